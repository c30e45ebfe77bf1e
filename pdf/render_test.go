package pdf_test

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math"
	"testing"

	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/pdf"
)

func TestRenderPage(t *testing.T) {
	doc := testpdf.Minimal("Rendered text")
	out, err := pdf.RenderPage(doc, 1, 300)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != 300 || b.Dy() < 100 {
		t.Fatalf("size %dx%d, want 300 wide and taller than 100", b.Dx(), b.Dy())
	}
	// Some pixel is not white: the text was drawn, not just a blank page.
	dark := false
	for y := b.Min.Y; y < b.Max.Y && !dark; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, _, _, _ := img.At(x, y).RGBA(); r < 0xC000 {
				dark = true
				break
			}
		}
	}
	if !dark {
		t.Fatal("the rendered page is blank")
	}
}

func TestRenderPageRefuses(t *testing.T) {
	doc := testpdf.Minimal("x")
	cases := []struct {
		name  string
		data  []byte
		page  int
		width int
		want  error
	}{
		{"page 0", doc, 0, 100, pdf.ErrNoSuchPage},
		{"page past the end", doc, 2, 100, pdf.ErrNoSuchPage},
		{"not a PDF", []byte("hello"), 1, 100, pdf.ErrNotPDF},
		{"width 0", doc, 1, 0, nil},
		{"too wide", doc, 1, pdf.MaxRenderWidth + 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := pdf.RenderPage(c.data, c.page, c.width)
			if err == nil {
				t.Fatal("no error")
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}

// A page of any shape is drawn: one whose image at the width asked would hold more than
// MaxRenderPixels is drawn narrower, its shape kept (a sliver 5 points wide and 842 tall, drawn
// 1,000 pixels wide, would need a bitmap 168,400 pixels tall, which PDFium cannot allocate).
func TestRenderPageOfAnyShape(t *testing.T) {
	for _, tt := range []struct {
		w, h  float64
		width int
		want  int // the image's width
	}{
		{595, 842, 1000, 1000},
		{595, 842, pdf.MaxRenderWidth, pdf.MaxRenderWidth},
		{100, 600, 1000, 1000},
		{5, 842, 1000, 188},
		{100, 8000, 1000, 273},
		{3, 14400, 2000, 35},
		{14400, 3, 2000, 2000},
	} {
		doc := testpdf.File([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] >>", tt.w, tt.h),
		}, 1)
		out, err := pdf.RenderPage(doc, 1, tt.width)
		if err != nil {
			t.Errorf("%g × %g at %d: %v", tt.w, tt.h, tt.width, err)
			continue
		}
		img, err := png.Decode(bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		wantH := math.Ceil(float64(b.Dx()) * tt.h / tt.w)
		if b.Dx() != tt.want || math.Abs(float64(b.Dy())-wantH) > 1 || b.Dx()*b.Dy() > pdf.MaxRenderPixels+b.Dx() {
			t.Errorf("%g × %g at %d: %d × %d pixels, want %d wide, %.0f tall, at most %d pixels",
				tt.w, tt.h, tt.width, b.Dx(), b.Dy(), tt.want, wantH, pdf.MaxRenderPixels)
		}
	}
}
