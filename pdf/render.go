package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
)

// MaxRenderWidth is the widest page image RenderPage draws, in pixels.
const MaxRenderWidth = 2000

// MaxRenderPixels is the most pixels a page image of RenderPage holds: an A4 page drawn
// MaxRenderWidth wide holds 5.7 million. A page taller than that for the width asked (a long
// receipt, a sliver) is drawn narrower, its shape kept (fitWidth), so that a page of any shape
// costs bounded memory and stays within the bitmaps PDFium can allocate.
const MaxRenderPixels = MaxRenderWidth * MaxRenderWidth * 3 / 2

// fitWidth is the width a page w × h points is drawn at when width pixels are asked: width, or
// less when the image would hold more than MaxRenderPixels.
func fitWidth(width int, w, h float64) int {
	if w <= 0 || h <= 0 || float64(width)*float64(width)*h/w <= MaxRenderPixels {
		return width
	}
	return max(1, int(math.Sqrt(MaxRenderPixels*w/h)))
}

// RenderPage draws page (counted from 1) of a PDF as a PNG image width pixels wide (the height
// follows the page's displayed shape, rotation and crop box included), on white; narrower when
// that image would hold more than MaxRenderPixels. It is what a signing page shows in place of
// the document, so the browser needs no PDF viewer.
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
	var size *responses.GetPageSize
	err = withDeadline(inst, deadline(), func() (err error) {
		size, err = inst.GetPageSize(&requests.GetPageSize{Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: page - 1}}})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%w: PDFium, the size of page %d: %w", ErrNotPDF, page, err)
	}
	var buf bytes.Buffer
	err = renderPage(inst, doc, page, fitWidth(width, size.Width, size.Height), func(img *image.RGBA) error {
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(&buf, img); err != nil {
			return fmt.Errorf("pdf: encode page %d as PNG: %w", page, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// renderPage draws page (from 1) width pixels wide within the engine's deadline and hands the
// image to use, which must not keep it: its memory belongs to PDFium.
func renderPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, page, width int, use func(*image.RGBA) error) error {
	var img *responses.RenderPageInPixels
	err := withDeadline(inst, deadline(), func() (err error) {
		img, err = inst.RenderPageInPixels(&requests.RenderPageInPixels{
			Page:       requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: page - 1}},
			Width:      width,
			RenderForm: true,
			Document:   &doc,
		})
		return err
	})
	if errors.Is(err, ErrLimit) {
		return fmt.Errorf("page %d: %w", page, err)
	}
	if err != nil {
		return fmt.Errorf("%w: PDFium, page %d: %w", ErrNotPDF, page, err)
	}
	defer img.Cleanup()
	return use(img.Result.Image)
}

// agreeWithPDFium checks that PDFium, which draws the signing pages, reads the pages pdfcpu read:
// as many, each of the same displayed size (to half a point).
func agreeWithPDFium(data []byte, pages []PageSize) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: PDFium failed: %v", ErrNotPDF, v)
		}
	}()
	inst, doc, count, done, err := openDocument(data)
	if err != nil {
		return err
	}
	defer done()
	if count != len(pages) {
		return fmt.Errorf("%w: PDFium reads %d pages where pdfcpu reads %d", ErrNotPDF, count, len(pages))
	}
	for i, want := range pages {
		var got *responses.FPDF_GetPageSizeByIndex
		err := withDeadline(inst, deadline(), func() (err error) {
			got, err = inst.FPDF_GetPageSizeByIndex(&requests.FPDF_GetPageSizeByIndex{Document: doc, Index: i})
			return err
		})
		if errors.Is(err, ErrLimit) {
			return fmt.Errorf("page %d: %w", i+1, err)
		}
		if err != nil {
			return fmt.Errorf("%w: PDFium, size of page %d: %w", ErrNotPDF, i+1, err)
		}
		if math.Abs(got.Width-want.Width) > 0.5 || math.Abs(got.Height-want.Height) > 0.5 {
			return fmt.Errorf("%w: page %d is %.1f × %.1f pt for PDFium and %.1f × %.1f pt for pdfcpu",
				ErrNotPDF, i+1, got.Width, got.Height, want.Width, want.Height)
		}
	}
	return nil
}
