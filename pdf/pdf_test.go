package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"math"
	"testing"
	"time"

	"github.com/klippa-app/go-pdfium/requests"
)

type text struct {
	x, y, size float64
	s          string
}

type testPage struct {
	w, h   float64
	rotate int
	texts  []text
}

// makePDF writes a PDF with Helvetica text at known places.
func makePDF(pages ...testPage) []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	catalog := add("")
	pagesObj := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids string
	for _, p := range pages {
		var ops bytes.Buffer
		for _, t := range p.texts {
			fmt.Fprintf(&ops, "BT /F1 %g Tf %g %g Td (%s) Tj ET\n", t.size, t.x, t.y, t.s)
		}
		content := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", ops.Len(), ops.String()))
		kid := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %g %g] /Rotate %d /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>",
			pagesObj, p.w, p.h, p.rotate, font, content))
		kids += fmt.Sprintf("%d 0 R ", kid)
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj)
	objs[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, len(pages))
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, xref)
	return b.Bytes()
}

const a4w, a4h = 595.28, 841.89

func TestInspect(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		want    []PageSize
		wantErr error
	}{
		{"A4", makePDF(testPage{w: a4w, h: a4h}), []PageSize{{a4w, a4h}}, nil},
		{"A4 and Letter landscape", makePDF(testPage{w: a4w, h: a4h}, testPage{w: 792, h: 612}), []PageSize{{a4w, a4h}, {792, 612}}, nil},
		{"rotated page", makePDF(testPage{w: a4w, h: a4h, rotate: 90}), []PageSize{{a4h, a4w}}, nil},
		{"garbage", []byte("hello, not a pdf"), nil, ErrNotPDF},
		{"empty", nil, nil, ErrNotPDF},
		{"header only", []byte("%PDF-1.7\n"), nil, ErrNotPDF},
		{"truncated", makePDF(testPage{w: a4w, h: a4h})[:200], nil, ErrNotPDF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := Inspect(tt.data)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Inspect error %v, want %v", err, tt.wantErr)
			}
			if len(info.Pages) != len(tt.want) {
				t.Fatalf("pages %v, want %v", info.Pages, tt.want)
			}
			for i := range tt.want {
				if math.Abs(info.Pages[i].Width-tt.want[i].Width) > 0.01 || math.Abs(info.Pages[i].Height-tt.want[i].Height) > 0.01 {
					t.Errorf("page %d: %v, want %v", i+1, info.Pages[i], tt.want[i])
				}
			}
		})
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestFindText(t *testing.T) {
	doc := makePDF(
		testPage{w: a4w, h: a4h, texts: []text{{100, 700, 12, "Firma: {{signature}}"}, {300, 100, 20, "{{signature}}"}}},
		testPage{w: 792, h: 612, texts: []text{{72, 500, 12, "nothing here"}}},
		testPage{w: a4w, h: a4h, rotate: 90, texts: []text{{100, 700, 12, "{{rut}}"}}},
	)
	matches, err := FindText(doc, "{{signature}}")
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) != 2 {
		t.Fatalf("matches %+v, want 2", matches)
	}
	first := matches[0]
	// "Firma: " is about 37 points wide in 12 pt Helvetica; the placeholder starts near x=137.
	if first.Page != 1 || !near(first.X, 100*137/a4w, 1.5) || !near(first.Y+first.Height, 100*(a4h-700)/a4h, 1) {
		t.Errorf("first match %+v: want page 1, x≈%.1f%%, bottom≈%.1f%%", first, 100*137/a4w, 100*(a4h-700)/a4h)
	}
	if first.Width <= 5 || first.Width > 20 || first.Height <= 0.8 || first.Height > 3 {
		t.Errorf("first match size %+v", first)
	}
	second := matches[1]
	if second.Page != 1 || second.Y <= first.Y || second.Width <= first.Width {
		t.Errorf("second match %+v should be lower and wider (20 pt) than %+v", second, first)
	}
	none, err := FindText(doc, "{{absent}}")
	if err != nil || len(none) != 0 {
		t.Errorf("absent text: %v %v", none, err)
	}
	rot, err := FindText(doc, "{{rut}}")
	if err != nil || len(rot) != 1 || rot[0].Page != 3 {
		t.Fatalf("rotated page: %+v %v", rot, err)
	}
	// On a page rotated 90°, text at user (100, 700) shows near the top right: x = 700/842, y = 100/595.
	if !near(rot[0].X, 100*700/a4h, 3) || !near(rot[0].Y, 100*100/a4w, 3) {
		t.Errorf("rotated match %+v, want x≈%.1f y≈%.1f", rot[0], 100*700/a4h, 100*100/a4w)
	}
	if _, err := FindText([]byte("garbage"), "x"); !errors.Is(err, ErrNotPDF) {
		t.Errorf("garbage: %v", err)
	}
}

// render draws page index of data in grey at 72 dpi.
func render(t *testing.T, data []byte, index int) image.Image {
	t.Helper()
	inst, err := instance()
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	res, err := inst.RenderPageInDPI(&requests.RenderPageInDPI{DPI: 72, Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc.Document, Index: index}}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Cleanup()
	return res.Result.Image
}

// darkPixels counts non-white pixels inside a percent box of the rendered page.
func darkPixels(img image.Image, m Match) int {
	b := img.Bounds()
	x0, y0 := int(m.X*float64(b.Dx())/100), int(m.Y*float64(b.Dy())/100)
	x1, y1 := int((m.X+m.Width)*float64(b.Dx())/100), int((m.Y+m.Height)*float64(b.Dy())/100)
	n := 0
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xc000 || g < 0xc000 || bl < 0xc000 {
				n++
			}
		}
	}
	return n
}

func TestWhiteOutHidesThePlaceholder(t *testing.T) {
	doc := makePDF(
		testPage{w: a4w, h: a4h, texts: []text{{100, 700, 14, "Keep {{sig}}"}}},
		testPage{w: a4w, h: a4h, rotate: 90, texts: []text{{100, 700, 14, "{{sig}}"}}},
	)
	matches, err := FindText(doc, "{{sig}}")
	if err != nil || len(matches) != 2 {
		t.Fatalf("matches %+v %v", matches, err)
	}
	keep, err := FindText(doc, "Keep")
	if err != nil || len(keep) != 1 {
		t.Fatal(keep, err)
	}
	for i, m := range matches {
		if n := darkPixels(render(t, doc, m.Page-1), m); n == 0 {
			t.Fatalf("match %d: no ink before white-out; the test cannot see anything", i)
		}
	}
	out, err := WhiteOut(doc, matches)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Inspect(out); err != nil {
		t.Fatalf("whited-out PDF unreadable: %v", err)
	}
	for i, m := range matches {
		if n := darkPixels(render(t, out, m.Page-1), m); n != 0 {
			t.Errorf("match %d on page %d: %d dark pixels remain", i, m.Page, n)
		}
	}
	if n := darkPixels(render(t, out, 0), keep[0]); n == 0 {
		t.Error("the text beside the placeholder was whited out too")
	}
}

func FuzzInspect(f *testing.F) {
	f.Add(makePDF(testPage{w: a4w, h: a4h}))
	f.Add([]byte("%PDF-1.4\n1 0 obj << >> endobj trailer << /Root 1 0 R >>"))
	f.Add([]byte("%PDF-"))
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			info, err := Inspect(data)
			if err == nil && len(info.Pages) == 0 {
				t.Error("no error and no pages")
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Inspect hangs")
		}
	})
}

func BenchmarkInspect(b *testing.B) {
	doc := makePDF(testPage{w: a4w, h: a4h, texts: []text{{100, 700, 12, "hola"}}}, testPage{w: 792, h: 612})
	for b.Loop() {
		if _, err := Inspect(doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFindText(b *testing.B) {
	doc := makePDF(testPage{w: a4w, h: a4h, texts: []text{{100, 700, 12, "Firma {{signature}}"}}})
	if _, err := FindText(doc, "warm up"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := FindText(doc, "{{signature}}"); err != nil {
			b.Fatal(err)
		}
	}
}
