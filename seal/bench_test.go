package seal_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/seal"
)

// BenchmarkSeal seals documents of 1, 10, 100 and 1,000 pages in two shapes: two filled fields on
// the last page only (a contract signed at its end), and two on every page (initials on each
// page: every page is drawn three times by the seal-time proof). It reports the seconds per
// document and the milliseconds per page (p50 over the iterations), the per-page cost over the
// 1-page document's of the same shape (x-1page: 1 means the cost per page does not grow with
// the page count), and the sealed file's size over the original's.
func BenchmarkSeal(b *testing.B) {
	s, _, err := seal.DevSeal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	onePage := map[string]float64{}
	for _, shape := range []string{"last-page", "every-page"} {
		for _, pages := range []int{1, 10, 100, 1000} {
			b.Run(fmt.Sprintf("fields=%s/pages=%d", shape, pages), func(b *testing.B) {
				doc := testpdf.Pages(pages, "Contrato")
				in := seal.Input{EnvelopeID: "envelope_bench", Title: "Contrato", Language: envelope.LanguageSpanish, Timezone: "America/Santiago",
					AuditHash: "ab", SealedAt: time.Now(),
					Documents: []seal.Document{{ItemID: "i", Title: "c.pdf", PDF: doc, SHA256: "x"}},
					Parties:   []seal.Party{{Name: "José Ñúñez", Email: "j@example.cl", Role: envelope.RoleSigner, Signature: "José Ñúñez"}}}
				for p := 1; p <= pages; p++ {
					in.Documents[0].Pages = append(in.Documents[0].Pages, seal.Size{Width: 595.28, Height: 841.89})
					if shape == "every-page" || p == pages {
						in.Marks = append(in.Marks,
							seal.Mark{ItemID: "i", Page: p, X: 10, Y: 80, W: 30, H: 4, Type: envelope.FieldSignature, Text: "José Ñúñez"},
							seal.Mark{ItemID: "i", Page: p, X: 50, Y: 80, W: 30, H: 4, Type: envelope.FieldDate, Text: "2026-11-23"})
					}
				}
				var took []time.Duration
				var size int
				b.ResetTimer()
				for b.Loop() {
					start := time.Now()
					out, err := seal.Seal(context.Background(), in, s)
					if err != nil {
						b.Fatal(err)
					}
					took = append(took, time.Since(start))
					size = len(out[0].PDF)
				}
				slices.Sort(took)
				p50 := took[len(took)/2]
				perPage := float64(p50.Microseconds()) / 1000 / float64(pages)
				if pages == 1 {
					onePage[shape] = perPage
				}
				b.ReportMetric(p50.Seconds(), "s/doc-p50")
				b.ReportMetric(perPage, "ms/page-p50")
				if one := onePage[shape]; one > 0 {
					b.ReportMetric(perPage/one, "x-1page")
				}
				b.ReportMetric(float64(size)/float64(len(doc)), "size-ratio")
			})
		}
	}
}
