package api

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// TestBulkSendRowSentBeforeACrashStaysSent: a row whose document was sent, and whose worker died
// before recording it SENT, is run again after the document's workflow has finished (a template
// of CCs only completes at once): the row is SENT, not FAILED, since its document went out.
func TestBulkSendRowSentBeforeACrashStaysSent(t *testing.T) {
	a, acts := newBulkTestAPI(t)
	key := a.key("Bulk", "owner@bulk.test", envelope.TeamRoleAdmin)
	payload := map[string]any{"title": "Copia", "type": "TEMPLATE", "recipients": []any{
		map[string]any{"email": "copia@bulk.test", "name": "Copia", "role": "CC"}}}
	status, created := a.createRaw(key, payload, map[string][]byte{"a.pdf": minimalPDF("bulk cc")})
	if status != http.StatusOK {
		t.Fatalf("template: %d %v", status, created)
	}
	tpl := created["id"].(string)
	status, out := a.do("POST", "/api/v2/template/bulk-send", key, fmt.Sprintf(`{"templateId":%q,"distributeDocument":true,
		"rows":[{"recipients":[{"id":%d,"email":"a@bulk.test"}]}]}`, tpl, a.templateRecipient(key, tpl)))
	if status != http.StatusOK {
		t.Fatalf("bulk send: %d %v", status, out)
	}
	jobID := out["jobId"].(string)
	got := a.waitBulk(key, jobID)
	row := got["rows"].([]any)[0].(map[string]any)
	if row["status"] != string(envelope.BulkRowSent) {
		t.Fatalf("row: %v", row)
	}
	id := row["envelopeId"].(string)
	waitFor(t, "the document COMPLETED", func() bool {
		e, err := a.store.EnvelopeForRecipient(context.Background(), id)
		return err == nil && e.Status == envelope.StatusCompleted
	})
	a.exec(`UPDATE bulk_send_rows SET status = 'CREATED' WHERE job_id = $1`, jobID)
	st, err := acts.BulkSendRow(context.Background(), envelope.BulkRowRef{JobID: jobID, Index: 0})
	if err != nil || st != envelope.BulkRowSent {
		t.Fatalf("row run again: %s %v", st, err)
	}
	if n := a.count(`SELECT count(*) FROM bulk_send_rows WHERE job_id = $1 AND status = 'SENT' AND error IS NULL`, jobID); n != 1 {
		t.Errorf("the row is not recorded SENT")
	}
}
