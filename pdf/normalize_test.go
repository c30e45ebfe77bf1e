package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/internal/testpdf"
)

// FuzzNormalize feeds Normalize arbitrary bytes, starting from the small documents of the
// hostile corpus: it must never panic, must fail only with the package's errors, and what it
// accepts must be one revision that normalises again to the same pages. (PDFium's read-back is
// left out: under coverage instrumentation its WebAssembly runtime is too slow to fuzz; the
// corpus and hostile tests run it.)
func FuzzNormalize(f *testing.F) {
	for _, name := range []string{"clean.pdf", "incremental.pdf", "acroform.pdf", "annotations.pdf", "javascript.pdf",
		"embedded.pdf", "ocg-visible.pdf", "ocg-hidden.pdf", "xfa.pdf", "xref-stream-plain.pdf", "placeholder.pdf"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(pdfOf(fixturePage{w: letterW, h: letterH, rotate: 90, crop: &rect{10, 10, 500, 700}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		norm, err := normalize(data, Limits{StreamBytes: 8 << 20, DocumentBytes: 32 << 20, Pages: 50}, false)
		if err != nil {
			if !errors.Is(err, ErrNotPDF) && !errors.Is(err, ErrLimit) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Normalize: an error of no documented kind: %v", err)
			}
			return
		}
		// One revision: the file's last cross-reference section is a table whose trailer points
		// to no earlier one. (The word startxref may also stand in a content stream, kept byte
		// for byte.)
		at, stream, err := lastXRef(norm.Data)
		if err != nil || stream || !bytes.HasPrefix(norm.Data[at:], []byte("xref")) || bytes.Contains(norm.Data[at:], []byte("/Prev")) {
			t.Fatalf("the normalised document is not one revision with a classic cross-reference table (at %d, stream %v): %v", at, stream, err)
		}
		again, err := normalize(norm.Data, Limits{}, false)
		if err != nil {
			t.Fatalf("a normalised document does not normalise again: %v", err)
		}
		if len(again.Pages) != len(norm.Pages) {
			t.Fatalf("normalising again gives %d pages instead of %d", len(again.Pages), len(norm.Pages))
		}
		for i := range norm.Pages {
			if again.Pages[i] != norm.Pages[i] {
				t.Fatalf("page %d: %v, then %v", i+1, norm.Pages[i], again.Pages[i])
			}
		}
	})
}

// BenchmarkNormalizePages normalises documents of 100 and 2,000 pages as the reading process does
// (without PDFium's read-back) and reports the milliseconds per page and the cost per page over
// the 100-page document's (x-100pages: 1 when the cost per page does not grow with the pages).
func BenchmarkNormalizePages(b *testing.B) {
	var hundred float64
	for _, pages := range []int{100, 2000} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			doc := testpdf.Pages(pages, "Contrato")
			start := time.Now()
			for b.Loop() {
				if _, err := normalize(doc, Limits{}.orDefault(), false); err != nil {
					b.Fatal(err)
				}
			}
			perPage := float64(time.Since(start).Microseconds()) / 1000 / float64(b.N) / float64(pages)
			if pages == 100 {
				hundred = perPage
			}
			b.ReportMetric(perPage, "ms/page")
			if hundred > 0 {
				b.ReportMetric(perPage/hundred, "x-100pages")
			}
		})
	}
}
