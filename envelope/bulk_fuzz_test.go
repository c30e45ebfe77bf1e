package envelope

import (
	"strings"
	"testing"
)

// FuzzParseBulkCSV: any file is either refused with problems or read into at most MaxBulkRows
// rows, each naming every template recipient once.
func FuzzParseBulkCSV(f *testing.F) {
	f.Add("recipient_1_email,recipient_1_name,recipient_2_email,Company\na@x.cl,Ana,,Acme\n")
	f.Add("\ufeffrecipient_1_email,recipient_2_email\n\"a,b\",\n")
	f.Add("recipient_1_email\n\"")
	tpl, fields := bulkTemplate()
	f.Fuzz(func(t *testing.T, in string) {
		var p Problems
		rows := ParseBulkCSV(&p, "file", strings.NewReader(in), tpl, fields)
		if p.Len() > 0 {
			return
		}
		if len(rows) == 0 || len(rows) > MaxBulkRows {
			t.Fatalf("%d rows without a problem", len(rows))
		}
		for _, r := range rows {
			if len(r.Recipients) != len(tpl) {
				t.Fatalf("row names %d recipients, want %d", len(r.Recipients), len(tpl))
			}
		}
	})
}
