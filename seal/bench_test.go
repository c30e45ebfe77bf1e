package seal_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/seal"
)

// BenchmarkSeal seals documents of 1, 10 and 100 pages, each page with two filled fields, and
// reports the time per page (p50 and p99 over the iterations) and the sealed file's size
// relative to the original.
func BenchmarkSeal(b *testing.B) {
	s, _, err := seal.DevSeal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, pages := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			doc := testpdf.Pages(pages, "Contrato")
			in := seal.Input{EnvelopeID: "envelope_bench", Title: "Contrato", Language: envelope.LanguageSpanish, Timezone: "America/Santiago",
				AuditHash: "ab", SealedAt: time.Now(),
				Documents: []seal.Document{{ItemID: "i", Title: "c.pdf", PDF: doc, SHA256: "x"}},
				Parties:   []seal.Party{{Name: "José Ñúñez", Email: "j@example.cl", Role: envelope.RoleSigner, Signature: "José Ñúñez"}}}
			for p := 1; p <= pages; p++ {
				in.Documents[0].Pages = append(in.Documents[0].Pages, seal.Size{Width: 595.28, Height: 841.89})
				in.Marks = append(in.Marks,
					seal.Mark{ItemID: "i", Page: p, X: 10, Y: 80, W: 30, H: 4, Type: envelope.FieldSignature, Text: "José Ñúñez"},
					seal.Mark{ItemID: "i", Page: p, X: 50, Y: 80, W: 30, H: 4, Type: envelope.FieldDate, Text: "2026-11-23"})
			}
			var perPage []time.Duration
			var size int
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				out, err := seal.Seal(in, s)
				if err != nil {
					b.Fatal(err)
				}
				perPage = append(perPage, time.Since(start)/time.Duration(pages))
				size = len(out[0].PDF)
			}
			slices.Sort(perPage)
			at := func(q float64) float64 {
				return float64(perPage[min(len(perPage)-1, int(q*float64(len(perPage))))].Microseconds()) / 1000
			}
			b.ReportMetric(at(0.50), "ms/page-p50")
			b.ReportMetric(at(0.99), "ms/page-p99")
			b.ReportMetric(float64(size)/float64(len(doc)), "size-ratio")
		})
	}
}
