package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klippa-app/go-pdfium/requests"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/sobre-sign/sobre/internal/testpdf"
)

// placeholder is the text most tests look for.
const placeholder = "{{signature}}"

func TestInspect(t *testing.T) {
	a4 := fixturePage{w: a4W, h: a4H, texts: []txt{{72, 760, 12, "hola"}}}
	twoPages := pdfOf(a4, fixturePage{w: letterH, h: letterW}) // A4 portrait, Letter landscape
	whole := pdfOf(a4)

	tests := []struct {
		name    string
		data    []byte
		want    []PageSize
		wantErr error
	}{
		{name: "one A4 page", data: whole, want: []PageSize{{a4W, a4H}}},
		{name: "A4 portrait and Letter landscape", data: twoPages, want: []PageSize{{a4W, a4H}, {letterH, letterW}}},
		{name: "compressed object streams", data: rewritten(t, twoPages), want: []PageSize{{a4W, a4H}, {letterH, letterW}}},
		{name: "rotated 90", data: pdfOf(fixturePage{w: a4W, h: a4H, rotate: 90}), want: []PageSize{{a4H, a4W}}},
		{name: "rotated 180", data: pdfOf(fixturePage{w: a4W, h: a4H, rotate: 180}), want: []PageSize{{a4W, a4H}}},
		{name: "rotated 270", data: pdfOf(fixturePage{w: a4W, h: a4H, rotate: 270}), want: []PageSize{{a4H, a4W}}},
		{name: "rotated -90", data: pdfOf(fixturePage{w: a4W, h: a4H, rotate: -90}), want: []PageSize{{a4H, a4W}}},
		{name: "rotated 450", data: pdfOf(fixturePage{w: a4W, h: a4H, rotate: 450}), want: []PageSize{{a4H, a4W}}},
		{
			name: "media box and rotation inherited from the page tree",
			data: fixtureDoc{inherit: true, pages: []fixturePage{{w: letterW, h: letterH, rotate: 90}, {w: letterW, h: letterH, rotate: 90}}}.bytes(),
			want: []PageSize{{letterH, letterW}, {letterH, letterW}},
		},
		{name: "crop box", data: pdfOf(fixturePage{w: a4W, h: a4H, crop: &rect{50, 100, 450, 700}}), want: []PageSize{{400, 600}}},
		{name: "crop box and rotation", data: pdfOf(fixturePage{w: a4W, h: a4H, rotate: 90, crop: &rect{50, 100, 450, 700}}), want: []PageSize{{600, 400}}},
		{name: "crop box larger than the media box", data: pdfOf(fixturePage{w: 300, h: 400, crop: &rect{-10, -10, 1000, 1000}}), want: []PageSize{{300, 400}}},
		{name: "junk before the header", data: append([]byte("junk\r\n"), whole...), want: []PageSize{{a4W, a4H}}},
		{name: "trailing newlines after %%EOF", data: append(bytes.Clone(whole), "\n\n\n"...), want: []PageSize{{a4W, a4H}}},

		{name: "empty", data: nil, wantErr: ErrNotPDF},
		{name: "zero bytes", data: []byte{}, wantErr: ErrNotPDF},
		{name: "garbage", data: []byte("this is not a PDF, only text pretending\n%%EOF\n"), wantErr: ErrNotPDF},
		{name: "PNG signature", data: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), wantErr: ErrNotPDF},
		{name: "header only", data: []byte("%PDF-1.7\n"), wantErr: ErrNotPDF},
		{name: "header and end marker only", data: []byte("%PDF-1.7\n%%EOF\n"), wantErr: ErrNotPDF},
		{name: "truncated in the middle", data: whole[:len(whole)/2], wantErr: ErrNotPDF},
		{name: "truncated before %%EOF", data: whole[:len(whole)-7], wantErr: ErrNotPDF},
		{name: "truncated compressed file", data: func() []byte { c := rewritten(t, twoPages); return c[:len(c)*2/3] }(), wantErr: ErrNotPDF},
		{name: "no pages", data: fixtureDoc{}.bytes(), wantErr: ErrNotPDF},
		{name: "empty media box", data: pdfOf(fixturePage{w: 0, h: 0}), wantErr: ErrNotPDF},
		{name: "encrypted with a password", data: encrypted(t, whole, "secret", "owner"), wantErr: ErrEncrypted},
		{name: "encrypted with only an owner password", data: encrypted(t, whole, "", "owner"), wantErr: ErrEncrypted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := Inspect(tt.data)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !errors.Is(err, ErrNotPDF) {
					t.Fatalf("Inspect error = %v, want one wrapping %v and ErrNotPDF", err, tt.wantErr)
				}
				if len(info.Pages) != 0 {
					t.Errorf("pages %v returned with an error", info.Pages)
				}
				return
			}
			if err != nil {
				t.Fatalf("Inspect: %v", err)
			}
			if len(info.Pages) != len(tt.want) {
				t.Fatalf("pages = %v, want %v", info.Pages, tt.want)
			}
			for i, want := range tt.want {
				got := info.Pages[i]
				if math.Abs(got.Width-want.Width) > 0.01 || math.Abs(got.Height-want.Height) > 0.01 {
					t.Errorf("page %d = %v, want %v", i+1, got, want)
				}
			}
		})
	}
}

func TestEncryptedErrorsAreNotPDFErrors(t *testing.T) {
	if !errors.Is(ErrEncrypted, ErrNotPDF) {
		t.Fatal("ErrEncrypted does not wrap ErrNotPDF")
	}
	if errors.Is(ErrNotPDF, ErrEncrypted) {
		t.Fatal("ErrNotPDF wraps ErrEncrypted")
	}
}

// TestNoConfigDir checks that pdfcpu writes nothing under the user's configuration directory.
func TestNoConfigDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	doc := pdfOf(fixturePage{w: a4W, h: a4H, texts: []txt{{100, 700, 12, placeholder}}})
	ms, err := FindText(doc, placeholder)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WhiteOut(doc, ms); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(home)
	if err != nil || len(entries) != 0 {
		t.Errorf("$HOME holds %v (%v), want nothing", entries, err)
	}
}

// box is an expected Match box, in points of the displayed page from its top left.
type box struct{ left, top, right, bottom float64 }

// placeholderBox is where Helvetica text drawn at (x, y) on an unrotated page whose visible
// area starts at (llx, lly) and is height tall shows: from its origin to its advance width, and
// from about the braces' descent to their ascent.
func placeholderBox(t *testing.T, tx txt, llx, lly, height float64) box {
	w := textWidth(t, tx.s, tx.size)
	return box{
		left:   tx.x - llx,
		right:  tx.x - llx + w,
		top:    height - (tx.y - lly + 0.74*tx.size),
		bottom: height - (tx.y - lly - 0.21*tx.size),
	}
}

// checkBox compares a match with an expected box on a displayed page of w×h points, edge by edge
// within tol points.
func checkBox(t *testing.T, m Match, want box, w, h, tol float64) {
	t.Helper()
	got := box{m.X * w / 100, m.Y * h / 100, (m.X + m.Width) * w / 100, (m.Y + m.Height) * h / 100}
	if math.Abs(got.left-want.left) > tol || math.Abs(got.right-want.right) > tol ||
		math.Abs(got.top-want.top) > tol || math.Abs(got.bottom-want.bottom) > tol {
		t.Errorf("match %+v is the box %+.2f (points), want %+.2f within %.1f", m, got, want, tol)
	}
}

func TestFindTextPosition(t *testing.T) {
	sig := txt{100, 700, 12, placeholder}
	big := txt{300, 120, 20, placeholder}
	tests := []struct {
		name   string
		data   []byte
		w, h   float64 // displayed page size
		want   box
		widthP float64 // expected Width in percent, as a cross-check of the units
	}{
		{
			name: "A4", data: pdfOf(fixturePage{w: a4W, h: a4H, texts: []txt{sig}}),
			w: a4W, h: a4H, want: placeholderBox(t, sig, 0, 0, a4H), widthP: 100 * textWidth(t, placeholder, 12) / a4W,
		},
		{
			name: "after other text on the line",
			data: pdfOf(fixturePage{w: a4W, h: a4H, texts: []txt{{100, 700, 12, "Firma: " + placeholder + " fin"}}}),
			w:    a4W, h: a4H,
			want: placeholderBox(t, txt{100 + textWidth(t, "Firma: ", 12), 700, 12, placeholder}, 0, 0, a4H),
		},
		{
			name: "large type on Letter landscape", data: pdfOf(fixturePage{w: letterH, h: letterW, texts: []txt{big}}),
			w: letterH, h: letterW, want: placeholderBox(t, big, 0, 0, letterW),
		},
		{
			name: "compressed object streams", data: rewritten(t, pdfOf(fixturePage{w: a4W, h: a4H, texts: []txt{sig}})),
			w: a4W, h: a4H, want: placeholderBox(t, sig, 0, 0, a4H),
		},
		{
			name: "crop box", data: pdfOf(fixturePage{w: a4W, h: a4H, crop: &rect{50, 100, 450, 750}, texts: []txt{sig}}),
			w: 400, h: 650, want: placeholderBox(t, sig, 50, 100, 650),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := FindText(tt.data, placeholder)
			if err != nil {
				t.Fatalf("FindText: %v", err)
			}
			if len(ms) != 1 || ms[0].Page != 1 {
				t.Fatalf("matches = %+v, want one on page 1", ms)
			}
			checkBox(t, ms[0], tt.want, tt.w, tt.h, 1.5)
			if tt.widthP != 0 && math.Abs(ms[0].Width-tt.widthP) > 0.3 {
				t.Errorf("Width = %.2f%%, want about %.2f%%", ms[0].Width, tt.widthP)
			}
		})
	}
}

// TestFindTextMatchesWhatIsShown renders each page with PDFium, which applies the rotation and the
// crop box itself, and checks that the ink of the placeholder (the only thing on the page) lies
// where FindText says, within two points.
func TestFindTextMatchesWhatIsShown(t *testing.T) {
	for _, rot := range []int{0, 90, 180, 270} {
		for _, crop := range []*rect{nil, {40, 80, 500, 760}} {
			name := fmt.Sprintf("rotate %d", rot)
			if crop != nil {
				name += " with crop box"
			}
			t.Run(name, func(t *testing.T) {
				doc := pdfOf(fixturePage{w: a4W, h: a4H, rotate: rot, crop: crop, texts: []txt{{120, 650, 14, placeholder}}})
				info, err := Inspect(doc)
				if err != nil {
					t.Fatal(err)
				}
				ms, err := FindText(doc, placeholder)
				if err != nil || len(ms) != 1 {
					t.Fatalf("FindText = %+v, %v; want one match", ms, err)
				}
				const dpi = 144
				img := render(t, doc, 0, dpi)
				size := info.Pages[0]
				if b := img.Bounds(); math.Abs(float64(b.Dx())-size.Width*dpi/72) > 1 || math.Abs(float64(b.Dy())-size.Height*dpi/72) > 1 {
					t.Fatalf("PDFium renders %v pixels, Inspect says %v points", b.Size(), size)
				}
				ink, ok := inkBox(img, img.Bounds())
				if !ok {
					t.Fatal("nothing drawn on the page")
				}
				px := float64(img.Bounds().Dx()) / 100 // pixels per percent, horizontally
				py := float64(img.Bounds().Dy()) / 100
				m := ms[0]
				got := image.Rect(int(m.X*px), int(m.Y*py), int((m.X+m.Width)*px), int((m.Y+m.Height)*py))
				const tol = 2 * dpi / 72 // two points
				if abs(got.Min.X-ink.Min.X) > tol || abs(got.Min.Y-ink.Min.Y) > tol || abs(got.Max.X-ink.Max.X) > tol || abs(got.Max.Y-ink.Max.Y) > tol {
					t.Errorf("match %+v covers pixels %v; the ink is at %v", m, got, ink)
				}
			})
		}
	}
}

func TestFindTextOccurrences(t *testing.T) {
	a4 := func(texts ...txt) fixturePage { return fixturePage{w: a4W, h: a4H, texts: texts} }
	// Drawn bottom first and right first, so that content order is not reading order.
	twice := pdfOf(
		a4(txt{300, 100, 12, placeholder}, txt{100, 700, 12, "Firma: " + placeholder}),
		a4(txt{72, 500, 12, "nothing to see"}),
		a4(txt{400, 300, 12, placeholder}, txt{72, 300, 12, placeholder}),
	)
	tests := []struct {
		name string
		data []byte
		text string
		want []int // the pages of the expected matches, in order
		// order checks that consecutive matches on a page come in reading order.
		order bool
	}{
		{name: "every occurrence, in reading order", data: twice, text: placeholder, want: []int{1, 1, 3, 3}, order: true},
		{name: "text not present", data: twice, text: "{{absent}}", want: nil},
		{name: "case-sensitive", data: twice, text: "{{SIGNATURE}}", want: nil},
		{name: "part of a word", data: twice, text: "signat", want: []int{1, 1, 3, 3}},
		{name: "words with a space", data: twice, text: "nothing to", want: []int{2}},
		{name: "empty text", data: twice, text: "", want: nil},
		{name: "a page without text", data: pdfOf(fixturePage{w: a4W, h: a4H}), text: placeholder, want: nil},
		{name: "partly outside the crop box", data: pdfOf(fixturePage{w: a4W, h: a4H, crop: &rect{0, 0, 300, 300}, texts: []txt{{250, 100, 12, placeholder}}}), text: placeholder, want: []int{1}},
		{name: "outside the crop box", data: pdfOf(fixturePage{w: a4W, h: a4H, crop: &rect{0, 0, 300, 300}, texts: []txt{{400, 700, 12, placeholder}}}), text: placeholder, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := FindText(tt.data, tt.text)
			if err != nil {
				t.Fatalf("FindText: %v", err)
			}
			var pages []int
			for _, m := range ms {
				pages = append(pages, m.Page)
				if m.X < 0 || m.Y < 0 || m.Width <= 0 || m.Height <= 0 || m.X+m.Width > 100 || m.Y+m.Height > 100 {
					t.Errorf("box out of the page: %+v", m)
				}
			}
			if fmt.Sprint(pages) != fmt.Sprint(tt.want) {
				t.Fatalf("matches on pages %v, want %v: %+v", pages, tt.want, ms)
			}
			if !tt.order {
				return
			}
			for i := 1; i < len(ms); i++ {
				a, b := ms[i-1], ms[i]
				if a.Page == b.Page && !(a.Y+a.Height <= b.Y || (math.Abs(a.Y-b.Y) < 0.1 && a.X < b.X)) {
					t.Errorf("match %d %+v should come after match %d %+v", i-1, a, i, b)
				}
			}
		})
	}
}

func TestFindTextErrors(t *testing.T) {
	doc := pdfOf(fixturePage{w: a4W, h: a4H, texts: []txt{{100, 700, 12, placeholder}}})
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrNotPDF},
		{"garbage", []byte("garbage garbage garbage"), ErrNotPDF},
		{"truncated", doc[:len(doc)/2], ErrNotPDF},
		{"encrypted", encrypted(t, doc, "secret", "owner"), ErrEncrypted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := FindText(tt.data, placeholder)
			if !errors.Is(err, tt.want) || ms != nil {
				t.Fatalf("FindText = %v, %v; want an error wrapping %v", ms, err, tt.want)
			}
		})
	}
}

// TestConcurrentUse runs the three functions from several goroutines at once (run with -race).
func TestConcurrentUse(t *testing.T) {
	doc := pdfOf(
		fixturePage{w: a4W, h: a4H, texts: []txt{{100, 700, 12, placeholder}}},
		fixturePage{w: letterH, h: letterW, rotate: 90, texts: []txt{{200, 300, 12, placeholder}}},
	)
	want, err := FindText(doc, placeholder)
	if err != nil || len(want) != 2 {
		t.Fatalf("FindText = %+v, %v", want, err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for g := range 12 {
		wg.Go(func() {
			switch g % 3 {
			case 0:
				got, err := FindText(doc, placeholder)
				if err == nil && fmt.Sprint(got) != fmt.Sprint(want) {
					err = fmt.Errorf("goroutine %d: FindText = %+v, want %+v", g, got, want)
				}
				errs <- err
			case 1:
				_, err := Inspect(doc)
				errs <- err
			default:
				_, err := WhiteOut(doc, want)
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestWhiteOutHidesPlaceholders(t *testing.T) {
	keep := "Keep"
	pages := []fixturePage{
		{w: a4W, h: a4H, texts: []txt{{100, 700, 14, keep + " " + placeholder}, {300, 200, 10, placeholder}}},
		{w: a4W, h: a4H, rotate: 90, texts: []txt{{100, 700, 14, placeholder}}},
		{w: letterW, h: letterH, rotate: 270, crop: &rect{30, 30, 580, 760}, texts: []txt{{200, 400, 12, placeholder}}},
		// Content that leaves a transformation, a colour and a clip in force: the white boxes
		// must still land in the right place.
		{w: a4W, h: a4H, texts: []txt{{100, 500, 12, placeholder}}, extra: []string{"q 0 0 1 rg 2 0 0 2 0 0 cm 0 0 10 10 re W n"}},
	}
	for _, variant := range []struct {
		name string
		data []byte
		// appended: the result must be the input followed by an incremental update.
		appended bool
	}{
		{"cross-reference table", pdfOf(pages...), true},
		{"cross-reference stream and object streams", rewritten(t, pdfOf(pages...)), true},
		{"junk before the header, rewritten whole", append([]byte("junk\n"), pdfOf(pages...)...), false},
	} {
		t.Run(variant.name, func(t *testing.T) {
			doc := variant.data
			matches, err := FindText(doc, placeholder)
			if err != nil || len(matches) != 5 {
				t.Fatalf("FindText = %+v, %v; want 5 matches", matches, err)
			}
			kept, err := FindText(doc, keep)
			if err != nil || len(kept) != 1 {
				t.Fatalf("FindText(%q) = %+v, %v", keep, kept, err)
			}
			for i, m := range matches {
				if n := inkIn(t, doc, m); n == 0 {
					t.Fatalf("match %d %+v: no ink before white-out, the test cannot see anything", i, m)
				}
			}
			out, err := WhiteOut(doc, matches)
			if err != nil {
				t.Fatalf("WhiteOut: %v", err)
			}
			if appended := bytes.HasPrefix(out, doc); appended != variant.appended {
				t.Errorf("output starts with the input: %v, want %v", appended, variant.appended)
			}
			// A second round appends a second update after the first.
			if variant.appended {
				twice, err := WhiteOut(out, matches[:1])
				if err != nil || !bytes.HasPrefix(twice, out) {
					t.Errorf("WhiteOut of the result: %v, or not appended", err)
				} else if _, err := Inspect(twice); err != nil {
					t.Errorf("Inspect after two updates: %v", err)
				}
			}
			before, _ := Inspect(doc)
			after, err := Inspect(out)
			if err != nil {
				t.Fatalf("the whited-out PDF is unreadable: %v", err)
			}
			if fmt.Sprint(before) != fmt.Sprint(after) {
				t.Errorf("page sizes changed from %v to %v", before, after)
			}
			for i, m := range matches {
				if n := inkIn(t, out, m); n != 0 {
					t.Errorf("match %d %+v: %d dark pixels left", i, m, n)
				}
			}
			if n := inkIn(t, out, kept[0]); n == 0 {
				t.Errorf("the text beside the placeholder was whited out too")
			}
			// The text is hidden, not removed.
			again, err := FindText(out, placeholder)
			if err != nil || len(again) != len(matches) {
				t.Errorf("FindText after WhiteOut = %d matches, %v; want %d", len(again), err, len(matches))
			}
		})
	}
}

func TestWhiteOutInput(t *testing.T) {
	doc := pdfOf(fixturePage{w: a4W, h: a4H, texts: []txt{{100, 700, 12, placeholder}}})
	good := Match{Page: 1, X: 10, Y: 10, Width: 5, Height: 2}

	out, err := WhiteOut(doc, nil)
	if err != nil || !bytes.Equal(out, doc) {
		t.Errorf("WhiteOut without boxes = %d bytes, %v; want the input unchanged", len(out), err)
	}
	tests := []struct {
		name    string
		data    []byte
		boxes   []Match
		wantErr error // nil: any error
	}{
		{"garbage", []byte("not a pdf"), []Match{good}, ErrNotPDF},
		{"encrypted", encrypted(t, doc, "a", "b"), []Match{good}, ErrEncrypted},
		{"page 0", doc, []Match{{Page: 0, Width: 1, Height: 1}}, nil},
		{"page past the end", doc, []Match{good, {Page: 2, Width: 1, Height: 1}}, nil},
		{"negative width", doc, []Match{{Page: 1, Width: -1, Height: 1}}, nil},
		{"NaN", doc, []Match{{Page: 1, X: math.NaN(), Width: 1, Height: 1}}, nil},
		{"infinite", doc, []Match{{Page: 1, Width: math.Inf(1), Height: 1}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := WhiteOut(tt.data, tt.boxes)
			if err == nil || out != nil {
				t.Fatalf("WhiteOut = %d bytes, %v; want an error", len(out), err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("WhiteOut error %v, want one wrapping %v", err, tt.wantErr)
			}
		})
	}
}

func FuzzInspect(f *testing.F) {
	doc := pdfOf(
		fixturePage{w: a4W, h: a4H, texts: []txt{{100, 700, 12, placeholder}}},
		fixturePage{w: letterW, h: letterH, rotate: 90, crop: &rect{10, 10, 500, 700}},
	)
	f.Add(doc)
	f.Add(rewritten(f, doc))
	f.Add(fixtureDoc{inherit: true, pages: []fixturePage{{w: 100, h: 100}}}.bytes())
	f.Add(doc[:len(doc)/2])
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 1 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
	f.Add([]byte("%PDF-"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		type result struct {
			info Info
			err  error
		}
		done := make(chan result, 1)
		go func() {
			info, err := Inspect(data)
			done <- result{info, err}
		}()
		select {
		case r := <-done:
			if r.err == nil && len(r.info.Pages) == 0 {
				t.Fatal("no error and no pages")
			}
			if r.err != nil && !errors.Is(r.err, ErrNotPDF) {
				t.Fatalf("error not wrapping ErrNotPDF: %v", r.err)
			}
			for _, p := range r.info.Pages {
				if !(p.Width > 0 && p.Height > 0) || !finite(p.Width, p.Height) {
					t.Fatalf("invalid page size %v", p)
				}
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Inspect takes more than 20 s")
		}
	})
}

func BenchmarkInspect(b *testing.B) {
	doc := pdfOf(
		fixturePage{w: a4W, h: a4H, texts: []txt{{100, 700, 12, "Firma: " + placeholder}}},
		fixturePage{w: letterH, h: letterW},
	)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Inspect(doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFindText(b *testing.B) {
	doc := pdfOf(
		fixturePage{w: a4W, h: a4H, texts: []txt{{100, 700, 12, "Firma: " + placeholder}}},
		fixturePage{w: letterH, h: letterW},
	)
	if _, err := FindText(doc, placeholder); err != nil { // starts PDFium outside the timing
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ms, err := FindText(doc, placeholder); err != nil || len(ms) != 1 {
			b.Fatal(ms, err)
		}
	}
}

func BenchmarkWhiteOut(b *testing.B) {
	doc := pdfOf(fixturePage{w: a4W, h: a4H, texts: []txt{{100, 700, 12, "Firma: " + placeholder}}})
	boxes := []Match{{Page: 1, X: 20, Y: 15, Width: 11, Height: 1.5}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := WhiteOut(doc, boxes); err != nil {
			b.Fatal(err)
		}
	}
}

// render draws a page (index from 0) with PDFium and returns a copy of the image.
func render(t *testing.T, data []byte, index, dpi int) *image.RGBA {
	t.Helper()
	inst, doc, _, done, err := openDocument(data)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	res, err := inst.RenderPageInDPI(&requests.RenderPageInDPI{
		DPI:  dpi,
		Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: index}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Cleanup()
	src := res.Result.Image
	img := image.NewRGBA(src.Bounds())
	copy(img.Pix, src.Pix) // the original lives in PDFium's memory
	return img
}

// dark reports whether a pixel shows ink.
func dark(img *image.RGBA, x, y int) bool {
	c := img.RGBAAt(x, y)
	return c.A > 0x80 && (c.R < 0xc0 || c.G < 0xc0 || c.B < 0xc0)
}

// inkBox is the smallest rectangle holding every dark pixel of r.
func inkBox(img *image.RGBA, r image.Rectangle) (image.Rectangle, bool) {
	var ink image.Rectangle
	found := false
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if dark(img, x, y) {
				px := image.Rect(x, y, x+1, y+1)
				if !found {
					ink, found = px, true
				} else {
					ink = ink.Union(px)
				}
			}
		}
	}
	return ink, found
}

// inkIn counts the dark pixels inside a match's box on the rendered page.
func inkIn(t *testing.T, data []byte, m Match) int {
	t.Helper()
	img := render(t, data, m.Page-1, 72)
	b := img.Bounds()
	r := image.Rect(
		int(m.X*float64(b.Dx())/100), int(m.Y*float64(b.Dy())/100),
		int(math.Ceil((m.X+m.Width)*float64(b.Dx())/100)), int(math.Ceil((m.Y+m.Height)*float64(b.Dy())/100)),
	).Intersect(b)
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if dark(img, x, y) {
				n++
			}
		}
	}
	return n
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// BenchmarkNormalize normalises a 100-page document of about 10 MB (a photo-like image on every
// page) and reports the time against the 1 s target and against pdfcpu reading the same file
// alone (x-read: how much the normalisation costs over parsing).
func BenchmarkNormalize(b *testing.B) {
	doc := testpdf.WithImages(100, 100_000)
	if _, err := Normalize(b.Context(), doc, Limits{}); err != nil { // starts PDFium outside the timing
		b.Fatal(err)
	}
	start := time.Now()
	const reads = 3
	for range reads {
		if _, err := api.ReadContext(bytes.NewReader(doc), config()); err != nil {
			b.Fatal(err)
		}
	}
	read := time.Since(start) / reads
	b.SetBytes(int64(len(doc)))
	b.ResetTimer()
	start = time.Now()
	for b.Loop() {
		if _, err := Normalize(b.Context(), doc, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
	each := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(len(doc))/(1<<20), "MiB")
	b.ReportMetric(float64(each.Milliseconds()), "ms/doc")
	b.ReportMetric(each.Seconds()/1.0, "x-target")
	b.ReportMetric(float64(each)/float64(read), "x-read")
}

// The proof compares the catalogs: an entry changed, removed or added (but the seal's form,
// permissions and version) is refused.
// sigField is a signature field as the seal writes it, changed by change.
func sigField(change func(types.Dict)) types.Dict {
	f := types.Dict{"FT": types.Name("Sig"), "Type": types.Name("Annot"), "Subtype": types.Name("Widget"), "F": types.Integer(132),
		"T": types.StringLiteral("Signature 1"), "V": types.Dict{"Type": types.Name("Sig")},
		"Rect": types.Array{types.Integer(0), types.Integer(0), types.Integer(0), types.Integer(0)}}
	if change != nil {
		change(f)
	}
	return f
}

func TestSameCatalog(t *testing.T) {
	doc := testpdf.Minimal("catalog")
	for _, c := range []struct {
		name   string
		change func(types.Dict)
		ok     bool
	}{
		{"unchanged", func(types.Dict) {}, true},
		{"the seal's entries", func(d types.Dict) {
			d["AcroForm"] = types.Dict{"SigFlags": types.Integer(3), "Fields": types.Array{sigField(nil)}}
			d["Perms"] = types.Dict{"DocMDP": types.Dict{"Type": types.Name("Sig")}}
			d["Version"] = types.Name("1.7")
		}, true},
		{"a form with XFA", func(d types.Dict) {
			d["AcroForm"] = types.Dict{"Fields": types.Array{sigField(nil)}, "XFA": types.StringLiteral("<xdp/>")}
		}, false},
		{"a text field", func(d types.Dict) {
			d["AcroForm"] = types.Dict{"Fields": types.Array{sigField(func(f types.Dict) { f["FT"] = types.Name("Tx") })}}
		}, false},
		{"a signature field with an action", func(d types.Dict) {
			d["AcroForm"] = types.Dict{"Fields": types.Array{sigField(func(f types.Dict) {
				f["AA"] = types.Dict{"K": types.Dict{"S": types.Name("JavaScript")}}
			})}}
		}, false},
		{"a visible signature field", func(d types.Dict) {
			d["AcroForm"] = types.Dict{"Fields": types.Array{sigField(func(f types.Dict) {
				f["Rect"] = types.Array{types.Integer(0), types.Integer(0), types.Integer(200), types.Integer(50)}
			})}}
		}, false},
		{"usage rights", func(d types.Dict) {
			d["Perms"] = types.Dict{"DocMDP": types.Dict{"Type": types.Name("Sig")}, "UR3": types.Dict{}}
		}, false},
		{"permissions that are no signature", func(d types.Dict) { d["Perms"] = types.Dict{"DocMDP": types.Dict{"Type": types.Name("Action")}} }, false},
		{"a signature field whose value is no signature", func(d types.Dict) {
			d["AcroForm"] = types.Dict{"Fields": types.Array{sigField(func(f types.Dict) { f["V"] = types.Dict{"S": types.Name("JavaScript")} })}}
		}, false},
		{"an open action", func(d types.Dict) {
			d["OpenAction"] = types.Dict{"S": types.Name("JavaScript"), "JS": types.StringLiteral("app.alert(1)")}
		}, false},
		{"another page layout", func(d types.Dict) { d["PageLayout"] = types.Name("TwoColumnLeft") }, false},
	} {
		a, _, err := read(doc)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := read(doc)
		if err != nil {
			t.Fatal(err)
		}
		cat, err := b.Catalog()
		if err != nil {
			t.Fatal(err)
		}
		c.change(cat)
		if err := sameCatalog(a, b); (err == nil) != c.ok {
			t.Errorf("%s: sameCatalog = %v", c.name, err)
		}
	}
	// An entry of the shown catalog that the sealed one changes.
	a, _, _ := read(doc)
	b, _, _ := read(doc)
	ac, _ := a.Catalog()
	bc, _ := b.Catalog()
	ac["PageMode"], bc["PageMode"] = types.Name("UseNone"), types.Name("FullScreen")
	if err := sameCatalog(a, b); err == nil {
		t.Error("a changed /PageMode is accepted")
	}
}

// TestStampedPage changes a stamped page in every way Stamp does not: each must be refused, and
// the page as Stamp wrote it accepted.
func TestStampedPage(t *testing.T) {
	shown, err := normalize(pdfOf(fixturePage{w: letterW, h: letterH, texts: []txt{{72, 700, 12, "STAMPED PAGE"}}}), Limits{}.orDefault(), false)
	if err != nil {
		t.Fatal(err)
	}
	overlay := pdfOf(fixturePage{w: letterW, h: letterH, texts: []txt{{72, 100, 12, "VALUE"}}})
	stamped, err := Stamp(shown.Data, Overlay{PDF: overlay, OnPage: map[int]int{1: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		change func(b *model.Context, page types.Dict)
		ok     bool
	}{
		{"as stamped", func(*model.Context, types.Dict) {}, true},
		{"a page action", func(_ *model.Context, p types.Dict) {
			p["AA"] = types.Dict{"O": types.Dict{"S": types.Name("JavaScript"), "JS": types.StringLiteral("app.alert(1)")}}
		}, false},
		{"an annotation", func(_ *model.Context, p types.Dict) {
			p["Annots"] = types.Array{types.Dict{"Subtype": types.Name("Text"), "F": types.Integer(32)}}
		}, false},
		{"another crop box", func(_ *model.Context, p types.Dict) {
			p["CropBox"] = types.Array{types.Integer(0), types.Integer(0), types.Integer(300), types.Integer(300)}
		}, false},
		{"a content stream dropped", func(_ *model.Context, p types.Dict) {
			c := p["Contents"].(types.Array)
			p["Contents"] = append(types.Array{c[0]}, c[2:]...)
		}, false},
		{"a content stream added", func(_ *model.Context, p types.Dict) {
			c := p["Contents"].(types.Array)
			p["Contents"] = append(slices.Clone(c), c[len(c)-1])
		}, false},
		{"the q and the paint swapped", func(_ *model.Context, p types.Dict) {
			c := slices.Clone(p["Contents"].(types.Array))
			c[0], c[len(c)-1] = c[len(c)-1], c[0]
			p["Contents"] = c
		}, false},
		{"a resource added", func(_ *model.Context, p types.Dict) {
			r := maps.Clone(p["Resources"].(types.Dict))
			r["ExtGState"] = types.Dict{"G": types.Dict{"CA": types.Float(0)}}
			p["Resources"] = r
		}, false},
		{"a font replaced", func(_ *model.Context, p types.Dict) {
			r := maps.Clone(p["Resources"].(types.Dict))
			r["Font"] = types.Dict{}
			p["Resources"] = r
		}, false},
		{"a second form", func(_ *model.Context, p types.Dict) {
			r := maps.Clone(p["Resources"].(types.Dict))
			xo := maps.Clone(r["XObject"].(types.Dict))
			xo["Other"] = xo["SobreStamp0"]
			r["XObject"] = xo
			p["Resources"] = r
		}, false},
	} {
		a, _, err := read(shown.Data)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := read(stamped)
		if err != nil {
			t.Fatal(err)
		}
		page, _, _, err := b.PageDict(1, false)
		if err != nil {
			t.Fatal(err)
		}
		c.change(b, page)
		if err := stampedPage(newPageTree(a), newPageTree(b), 1); (err == nil) != c.ok {
			t.Errorf("%s: stampedPage = %v", c.name, err)
		}
	}
}

// TestSignatureRoom prepares a signature over a normalised document: the document is a prefix,
// the byte range covers everything but /Contents, the catalog gains only what the proof lets a
// seal add, and a document that already has a form is refused.
func TestSignatureRoom(t *testing.T) {
	doc, err := normalize(testpdf.Pages(2, "firma"), Limits{}.orDefault(), false)
	if err != nil {
		t.Fatal(err)
	}
	room, err := SignatureRoom(doc.Data, Signature{Name: "Sello (prueba) Ñuñoa", Reason: "Sealed", Date: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), Room: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := room.Data
	if !bytes.HasPrefix(out, doc.Data) {
		t.Fatal("the prepared file does not begin with the document")
	}
	var br [4]int
	at := bytes.LastIndex(out, []byte("/ByteRange ["))
	if _, err := fmt.Sscanf(string(out[at:]), "/ByteRange [%d %d %d %d", &br[0], &br[1], &br[2], &br[3]); err != nil {
		t.Fatal(err)
	}
	if br[0] != 0 || br[1] != room.ContentsStart || br[2] != room.ContentsEnd || br[2]+br[3] != len(out) || out[br[1]] != '<' || out[br[2]-1] != '>' ||
		string(out[br[1]+1:br[2]-1]) != strings.Repeat("0", 200) {
		t.Fatalf("byte range %v of %d bytes does not leave exactly /Contents out", br, len(out))
	}
	a, _, err := read(doc.Data)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := read(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameCatalog(a, b); err != nil {
		t.Fatalf("the prepared catalog is not one the proof accepts: %v", err)
	}
	if cat, _ := b.Catalog(); cat["AcroForm"] == nil || cat["Perms"] == nil {
		t.Fatalf("catalog %v lacks the form or the permissions", cat)
	}
	if _, err := SignatureRoom(out, Signature{Room: 100}); err == nil {
		t.Fatal("a document that already has a form was prepared again")
	}
}
