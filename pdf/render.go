package pdf

import (
	"bytes"
	"fmt"
	"image/png"

	"github.com/klippa-app/go-pdfium/requests"
)

// MaxRenderWidth is the widest page image RenderPage draws, in pixels.
const MaxRenderWidth = 2000

// RenderPage draws page (counted from 1) of a PDF as a PNG image width pixels wide (the height
// follows the page's displayed shape, rotation and crop box included), on white. It is what a
// signing page shows in place of the document, so the browser needs no PDF viewer.
func RenderPage(data []byte, page, width int) (out []byte, err error) {
	if width < 1 || width > MaxRenderWidth {
		return nil, fmt.Errorf("pdf: render width %d is outside 1..%d", width, MaxRenderWidth)
	}
	if err := sniff(data); err != nil {
		return nil, err
	}
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, fmt.Errorf("%w: PDFium failed: %v", ErrNotPDF, v)
		}
	}()
	inst, doc, count, done, err := openDocument(data)
	if err != nil {
		return nil, err
	}
	defer done()
	if page < 1 || page > count {
		return nil, fmt.Errorf("%w: page %d of %d", ErrNoSuchPage, page, count)
	}
	img, err := inst.RenderPageInPixels(&requests.RenderPageInPixels{
		Page:       requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: page - 1}},
		Width:      width,
		RenderForm: true,
		Document:   &doc,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: PDFium, page %d: %w", ErrNotPDF, page, err)
	}
	defer img.Cleanup()
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img.Result.Image); err != nil {
		return nil, fmt.Errorf("pdf: encode page %d as PNG: %w", page, err)
	}
	return buf.Bytes(), nil
}
