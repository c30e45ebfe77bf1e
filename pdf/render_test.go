package pdf_test

import (
	"bytes"
	"errors"
	"image/png"
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
