package api

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// BenchmarkBulkSend measures a bulk send of b.N rows (a template with one signer, each document
// made and sent through its workflow), from the request to the job's end: rows/s.
func BenchmarkBulkSend(b *testing.B) {
	a, _ := newBulkTestAPI(b)
	key := a.key("Bench", "bench@bulk.test", envelope.TeamRoleAdmin)
	tpl := a.bulkTemplate(key)
	var csv strings.Builder
	csv.WriteString("recipient_1_email,recipient_1_name\n")
	for i := range b.N {
		fmt.Fprintf(&csv, "r%d@bench.test,Row %d\n", i, i)
	}
	b.ResetTimer()
	start := time.Now()
	status, out := a.bulkCSV(key, tpl, csv.String(), true)
	if status != 200 {
		b.Fatalf("bulk send: %d %v", status, out)
	}
	accepted := time.Since(start)
	got := a.waitBulk(key, out["jobId"].(string))
	elapsed := time.Since(start)
	b.StopTimer()
	if got["sent"] != float64(b.N) {
		b.Fatalf("progress: %v", got)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(accepted.Milliseconds()), "ms-to-accept")
}
