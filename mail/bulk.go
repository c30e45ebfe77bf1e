package mail

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
)

// BulkSummaryData fills the mail telling the owner of a bulk send how it ended.
type BulkSummaryData struct {
	OwnerName string
	Title     string // the template's
	JobID     string
	Total     int
	Done      int // rows whose document was made (and sent, when the job sends)
	Failed    int
	Sent      bool           // the job sent the documents
	Errors    []BulkRowError // the first failed rows
}

// BulkRowError is a failed row of a bulk send: its number (from 1) and why.
type BulkRowError struct {
	Row    int
	Reason string
}

// bulkSummaryText is the mail in one language: subject (%s the title), greetings, and the body,
// where %[1]d is the total, %[2]d the rows done, %[3]d the failed, %[4]s the job's id and
// %[5]s what was done ("made and sent" or "made").
type bulkSummaryText struct{ subject, greet, greetNoName, body, sent, made, errorsHead, row string }

var bulkSummaryTexts = map[envelope.Language]bulkSummaryText{
	envelope.LanguageEnglish: {"Bulk send complete: %s", "Hello %s,", "Hello,",
		"Your bulk send %[4]s has ended. Rows: %[1]d. Documents %[5]s: %[2]d. Rows that failed: %[3]d.\n\nGET /api/v2/template/bulk-send/%[4]s lists every row with its document or its error.",
		"made and sent", "made", "Rows that failed:", "Row %d: %s"},
	envelope.LanguageSpanish: {"Envío masivo terminado: %s", "Hola %s:", "Hola:",
		"Su envío masivo %[4]s terminó. Filas: %[1]d. Documentos %[5]s: %[2]d. Filas con error: %[3]d.\n\nGET /api/v2/template/bulk-send/%[4]s lista cada fila con su documento o su error.",
		"creados y enviados", "creados", "Filas con error:", "Fila %d: %s"},
}

// ComposeBulkSummary renders, in lang (English when lang is unknown), the one mail the owner of
// a bulk send gets when it ends: how many rows were done and failed, and the first errors.
func ComposeBulkSummary(lang envelope.Language, d BulkSummaryData) (Composed, error) {
	t, ok := bulkSummaryTexts[lang]
	if !ok {
		lang, t = envelope.LanguageEnglish, bulkSummaryTexts[envelope.LanguageEnglish]
	}
	if d.JobID == "" {
		return Composed{}, fmt.Errorf("bulk summary mail: no job")
	}
	greeting := t.greetNoName
	if name := strings.TrimSpace(d.OwnerName); name != "" {
		greeting = fmt.Sprintf(t.greet, name)
	}
	done := t.made
	if d.Sent {
		done = t.sent
	}
	paragraphs := []string{greeting, fmt.Sprintf(t.body, d.Total, d.Done, d.Failed, d.JobID, done)}
	if len(d.Errors) > 0 {
		lines := make([]string, len(d.Errors))
		for i, e := range d.Errors {
			lines[i] = fmt.Sprintf(t.row, e.Row, e.Reason)
		}
		paragraphs = append(paragraphs, t.errorsHead+"\n"+strings.Join(lines, "\n"))
	}
	subject := fmt.Sprintf(t.subject, d.Title)
	body := strings.Join(paragraphs, "\n\n")
	var html bytes.Buffer
	err := page.Execute(&html, map[string]any{"Lang": string(lang), "Subject": subject, "Paragraphs": strings.Split(body, "\n\n")})
	if err != nil {
		return Composed{}, fmt.Errorf("render bulk summary html: %w", err)
	}
	return Composed{Subject: subject, Text: body + "\n\n-- \nSobre", HTML: html.String()}, nil
}
