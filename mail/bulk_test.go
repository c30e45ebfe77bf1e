package mail

import (
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

func TestComposeBulkSummary(t *testing.T) {
	d := BulkSummaryData{OwnerName: "Ana <dueña>", Title: "Convenio & anexo", JobID: "bulk_1", Total: 10, Done: 7, Failed: 3, Sent: true,
		Errors: []BulkRowError{{2, `"x" is not an email address`}, {5, "quota"}}}
	for _, c := range []struct {
		lang                  envelope.Language
		d                     BulkSummaryData
		subject, greet, count string
		errors                string
	}{
		{envelope.LanguageEnglish, d, "Bulk send complete: Convenio & anexo", "Hello Ana <dueña>,", "Rows: 10. Documents made and sent: 7. Rows that failed: 3.", `Row 2: "x" is not an email address`},
		{"", d, "Bulk send complete", "Hello Ana", "made and sent", `Row 2: "x" is not an email address`},
		{envelope.LanguageSpanish, d, "Envío masivo terminado: Convenio & anexo", "Hola Ana <dueña>:", "Filas: 10. Documentos creados y enviados: 7. Filas con error: 3.", `Fila 2: "x" is not an email address`},
		{envelope.LanguageEnglish, BulkSummaryData{JobID: "bulk_1", Total: 2, Done: 2}, "Bulk send complete", "Hello,\n", "Documents made: 2. Rows that failed: 0.", ""},
	} {
		m, err := ComposeBulkSummary(c.lang, c.d)
		if err != nil {
			t.Fatalf("%s: %v", c.lang, err)
		}
		if !strings.Contains(m.Subject, c.subject) || !strings.HasPrefix(m.Text, c.greet) || !strings.Contains(m.Text, c.count) ||
			!strings.Contains(m.Text, "/api/v2/template/bulk-send/bulk_1") || strings.Contains(m.Text, "%!") {
			t.Errorf("%s: %q\n%s", c.lang, m.Subject, m.Text)
		}
		if got := strings.Contains(m.Text, "Row 2:") || strings.Contains(m.Text, "Fila 2:"); got != (c.errors != "") || !strings.Contains(m.Text, c.errors) {
			t.Errorf("%s: errors listed %v, want %q", c.lang, got, c.errors)
		}
		if strings.Contains(m.HTML, "<dueña>") {
			t.Errorf("%s: the HTML does not escape:\n%s", c.lang, m.HTML)
		}
	}
	if _, err := ComposeBulkSummary(envelope.LanguageEnglish, BulkSummaryData{}); err == nil {
		t.Error("a summary without its job was composed")
	}
}
