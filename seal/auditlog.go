package seal

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// AuditLogPDF renders an envelope's audit trail as a PDF: one block per entry (time in the
// envelope's time zone, type, who and from where, the entry's data), then the chain's final
// hash, which `sobre audit verify` recomputes. It is not signed: the chain is its proof.
func AuditLogPDF(in Input, entries []envelope.AuditEntry) ([]byte, error) {
	pdf := newDoc()
	loc, err := time.LoadLocation(in.Timezone)
	if err != nil {
		loc = time.UTC
	}
	title := map[envelope.Language]string{envelope.LanguageSpanish: "Registro de auditoría"}[in.Language]
	if title == "" {
		title = "Audit log"
	}
	wr := &writer{pdf: pdf, left: margin, w: a4W - 2*margin}
	wr.page()
	if err := wr.line("bold", 16, title+": "+in.Title); err != nil {
		return nil, err
	}
	if err := wr.line("regular", 9, in.EnvelopeID); err != nil {
		return nil, err
	}
	for _, e := range entries {
		who := ""
		if e.Name != nil {
			who = *e.Name
		}
		if e.Email != nil {
			who += " <" + *e.Email + ">"
		}
		from := ""
		if e.IPAddress != nil {
			from = *e.IPAddress
		}
		data, _ := json.Marshal(e.Data)
		wr.gap(4)
		lines := []struct {
			font string
			size float64
			text string
		}{
			{"bold", 10, fmt.Sprintf("%s  %s", e.CreatedAt.In(loc).Format("2006-01-02 15:04:05 MST"), e.Type)},
			{"regular", 8.5, fmt.Sprintf("%s %s", who, from)},
			{"regular", 8, string(data)},
		}
		for _, l := range lines {
			if err := wr.line(l.font, l.size, l.text); err != nil {
				return nil, err
			}
		}
	}
	wr.gap(8)
	if err := wr.line("regular", 9, "SHA-256: "+in.AuditHash); err != nil {
		return nil, err
	}
	return pdf.GetBytesPdf(), nil
}
