package pdf

import (
	"errors"
	"fmt"
	"image"
	"math"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// canvas draws pages of the documents open in one instance on one PDFium bitmap, kept from one
// drawing to the next while the size stays the same: creating and clearing a new bitmap for
// every drawing (what renderPage does) cost PDFium nearly as much as the drawing itself.
//
// A page is drawn as renderPage draws it (the same size, the same background, the same flags),
// but for its form layer: renderPage also draws the page's form fields, which are annotations.
// A page with annotations is handed to renderPage; a page without has no form layer to draw.
// Documents Sobre stores have none (Normalize flattens them), nor has the overlay, and the seal's
// signature field is on no page's list.
type canvas struct {
	inst   pdfium.Pdfium
	bitmap *references.FPDF_BITMAP
	w, h   int
}

// draw draws page (from 1) of doc width pixels wide within the engine's deadline and hands the
// image to use, which must not keep it: the next drawing paints over it.
func (c *canvas) draw(doc references.FPDF_DOCUMENT, page, width int, use func(*image.RGBA) error) error {
	pg := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: page - 1}}
	var img *image.RGBA
	annotated := false
	err := withDeadline(c.inst, deadline(), func() error {
		annots, err := c.inst.FPDFPage_GetAnnotCount(&requests.FPDFPage_GetAnnotCount{Page: pg})
		if err != nil {
			return err
		}
		if annotated = annots.Count != 0; annotated {
			return nil
		}
		img, err = c.paint(pg, width)
		return err
	})
	if err == nil && annotated {
		return renderPage(c.inst, doc, page, width, use)
	}
	if errors.Is(err, ErrLimit) {
		return fmt.Errorf("page %d: %w", page, err)
	}
	if err != nil {
		return fmt.Errorf("%w: PDFium, page %d: %w", ErrNotPDF, page, err)
	}
	return use(img)
}

// paint draws pg as go-pdfium's RenderPageInPixels does for a width alone: as tall as the page's
// shape asks, rounded up; filled white, or transparent black when the page has transparency;
// drawn with the bytes in RGBA order.
func (c *canvas) paint(pg requests.Page, width int) (*image.RGBA, error) {
	size, err := c.inst.GetPageSize(&requests.GetPageSize{Page: pg})
	if err != nil {
		return nil, err
	}
	w, h := width, int(math.Ceil(float64(width)*(size.Height/size.Width)))
	if c.bitmap == nil || c.w != w || c.h != h {
		c.close()
		bm, err := c.inst.FPDFBitmap_Create(&requests.FPDFBitmap_Create{Width: w, Height: h, Alpha: 1})
		if err != nil {
			return nil, err
		}
		c.bitmap, c.w, c.h = &bm.Bitmap, w, h
		// The pixels are read as rows of 4 × w bytes, one after the other.
		stride, err := c.inst.FPDFBitmap_GetStride(&requests.FPDFBitmap_GetStride{Bitmap: bm.Bitmap})
		if err != nil {
			return nil, err
		}
		if stride.Stride != 4*w {
			return nil, fmt.Errorf("a bitmap %d pixels wide has rows of %d bytes", w, stride.Stride)
		}
	}
	tr, err := c.inst.FPDFPage_HasTransparency(&requests.FPDFPage_HasTransparency{Page: pg})
	if err != nil {
		return nil, err
	}
	// The fill is what FPDFBitmap_FillRect over the whole bitmap writes (every byte 0xFF, or 0),
	// written here into PDFium's memory: PDFium's own fill, pixel by pixel in WebAssembly, took
	// a tenth of a one-page seal.
	blank, err := c.pixels(w, h)
	if err != nil {
		return nil, err
	}
	if tr.HasTransparency {
		fillBytes(blank, 0)
	} else {
		fillBytes(blank, 0xFF)
	}
	if _, err := c.inst.FPDF_RenderPageBitmap(&requests.FPDF_RenderPageBitmap{Bitmap: *c.bitmap, Page: pg, SizeX: w, SizeY: h,
		Flags: enums.FPDF_RENDER_FLAG_REVERSE_BYTE_ORDER}); err != nil {
		return nil, err
	}
	// Drawing may have grown PDFium's memory, which moves it: the pixels are looked up again.
	pix, err := c.pixels(w, h)
	if err != nil {
		return nil, err
	}
	return &image.RGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}, nil
}

// pixels returns the bitmap's w × h pixels, 4 bytes each, as a view of PDFium's memory: valid
// until PDFium next runs.
func (c *canvas) pixels(w, h int) ([]byte, error) {
	buf, err := c.inst.FPDFBitmap_GetBuffer(&requests.FPDFBitmap_GetBuffer{Bitmap: *c.bitmap})
	if err != nil {
		return nil, err
	}
	if len(buf.Buffer) < 4*w*h {
		return nil, fmt.Errorf("a bitmap of %d bytes for %d × %d pixels", len(buf.Buffer), w, h)
	}
	return buf.Buffer[:4*w*h], nil
}

// fillBytes sets every byte of b to v.
func fillBytes(b []byte, v byte) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for done := 1; done < len(b); done *= 2 {
		copy(b[done:], b[:done])
	}
}

// close frees the bitmap.
func (c *canvas) close() {
	if c.bitmap != nil {
		_, _ = c.inst.FPDFBitmap_Destroy(&requests.FPDFBitmap_Destroy{Bitmap: *c.bitmap})
		c.bitmap = nil
	}
}
