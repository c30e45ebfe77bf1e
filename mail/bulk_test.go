package mail

import (
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

func TestComposeBulkSummary(t *testing.T) {
	d := BulkSummaryData{OwnerName: "Ana <dueña>", Title: "Convenio & anexo", JobID: "bulk_1", Total: 10, Done: 7, Failed: 3, Sent: true,
		Errors: []string{`row 2: "x" is not an email address`, "row 5: quota"}}
	for _, c := range []struct {
		lang                  envelope.Language
		d                     BulkSummaryData
		subject, greet, count string
		errors                bool
	}{
		{envelope.LanguageEnglish, d, "Bulk send complete: Convenio & anexo", "Hello Ana <dueña>,", "of 10 rows, 7 documents were made and sent and 3 rows failed", true},
		{"", d, "Bulk send complete", "Hello Ana", "made and sent", true},
		{envelope.LanguageSpanish, d, "Envío masivo terminado: Convenio & anexo", "Hola Ana <dueña>:", "de 10 filas, 7 documentos fueron creados y enviados y 3 filas fallaron", true},
		{envelope.LanguageEnglish, BulkSummaryData{JobID: "bulk_1", Total: 2, Done: 2}, "Bulk send complete", "Hello,\n", "2 documents were made and 0 rows failed", false},
	} {
		m, err := ComposeBulkSummary(c.lang, c.d)
		if err != nil {
			t.Fatalf("%s: %v", c.lang, err)
		}
		if !strings.Contains(m.Subject, c.subject) || !strings.HasPrefix(m.Text, c.greet) || !strings.Contains(m.Text, c.count) ||
			!strings.Contains(m.Text, "/api/v2/template/bulk-send/bulk_1") || strings.Contains(m.Text, "%!") {
			t.Errorf("%s: %q\n%s", c.lang, m.Subject, m.Text)
		}
		if got := strings.Contains(m.Text, `row 2: "x" is not an email address`); got != c.errors {
			t.Errorf("%s: errors listed %v, want %v", c.lang, got, c.errors)
		}
		if strings.Contains(m.HTML, "<dueña>") {
			t.Errorf("%s: the HTML does not escape:\n%s", c.lang, m.HTML)
		}
	}
	if _, err := ComposeBulkSummary(envelope.LanguageEnglish, BulkSummaryData{}); err == nil {
		t.Error("a summary without its job was composed")
	}
}
