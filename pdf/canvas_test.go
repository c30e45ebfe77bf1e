package pdf

import (
	"bytes"
	"fmt"
	"image"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/internal/testpdf"
)

// TestCanvasDrawsAsRenderPage draws every page of documents of every shape the proof meets on one
// canvas, one after the other and back, and requires the very pixels renderPage draws: pages
// rotated, cropped, landscape, painted half transparent in a transparency group, a document with
// the seal's signature field, and a page with an annotation (which the canvas hands to
// renderPage).
func TestCanvasDrawsAsRenderPage(t *testing.T) {
	norm, err := normalize(testpdf.Pages(2, "firma"), Limits{}.orDefault(), false)
	if err != nil {
		t.Fatal(err)
	}
	room, err := SignatureRoom(norm.Data, Signature{Name: "Sello", Reason: "Sealed", Date: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), Room: 100})
	if err != nil {
		t.Fatal(err)
	}
	shapes := pdfOf(
		fixturePage{w: a4W, h: a4H, texts: []txt{{100, 700, 12, "Firma: " + placeholder}}},
		fixturePage{w: a4W, h: a4H, rotate: 90, texts: []txt{{100, 700, 12, "rotated"}}},
		fixturePage{w: letterH, h: letterW, crop: &rect{20, 30, 500, 400}, texts: []txt{{40, 100, 20, "cropped"}}},
	)
	transparent := onePage("/MediaBox [0 0 300 400] /Group << /S /Transparency /CS /DeviceRGB >> /Resources << /ExtGState << /GS1 << /ca 0.5 >> >> >>",
		"q /GS1 gs 0 0 1 rg 50 50 200 200 re f Q")
	annotated := testpdf.File([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Annots [4 0 R] >>",
		"<< /Type /Annot /Subtype /Square /Rect [50 50 250 250] /C [1 0 0] /F 4 >>",
	}, 1)
	for name, doc := range map[string][]byte{"normalised": norm.Data, "signature field": room.Data, "shapes": shapes, "transparent": transparent, "annotated": annotated} {
		inst, docs, counts, done, err := openDocuments(doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cv := &canvas{inst: inst}
		var order []int
		for p := 1; p <= counts[0]; p++ {
			order = append(order, p)
		}
		for p := counts[0]; p >= 1; p-- {
			order = append(order, p)
		}
		// One width after the other, so that each drawing but the first of a width is on the
		// bitmap the one before painted.
		for _, width := range []int{300, 893} {
			for _, p := range order {
				var want []byte
				var wantBounds image.Rectangle
				if err := renderPage(inst, docs[0], p, width, func(img *image.RGBA) error {
					want, wantBounds = bytes.Clone(img.Pix), img.Bounds()
					return nil
				}); err != nil {
					t.Fatalf("%s, page %d: %v", name, p, err)
				}
				if err := cv.draw(docs[0], p, width, func(img *image.RGBA) error {
					if img.Bounds() != wantBounds || !bytes.Equal(img.Pix, want) {
						t.Errorf("%s, page %d, %d px: the canvas draws other pixels (%v, want %v)", name, p, width, img.Bounds(), wantBounds)
					}
					return nil
				}); err != nil {
					t.Fatalf("%s, page %d: %v", name, p, err)
				}
			}
		}
		cv.close()
		done()
	}
}

// onePage is a document of one page: its dictionary's entries (but /Type, /Parent and /Contents)
// and its content stream.
func onePage(entries, content string) []byte {
	return testpdf.File([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R " + entries + " /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}, 1)
}

func TestFillBytes(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 64, 1000} {
		b := bytes.Repeat([]byte{0x42}, n+1)
		fillBytes(b[:n], 0xFF)
		if !bytes.Equal(b[:n], bytes.Repeat([]byte{0xFF}, n)) || b[n] != 0x42 {
			t.Errorf("%d bytes: got %x", n, b)
		}
	}
}
