package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// The audit log's PDF holds at most the limit's entries (MaxAuditPDFEntries, made small here):
// at the limit it is made, past it the answer is a 400 saying how many entries there are and where
// to read them.
func TestAuditLogPDFIsCapped(t *testing.T) {
	if MaxAuditPDFEntries < 1000 || MaxAuditPDFEntries > 10000 {
		t.Errorf("MaxAuditPDFEntries %d: the measured cost (about 2 ms and 130 KiB per entry) wants 1,000 to 10,000", MaxAuditPDFEntries)
	}
	a := newTestAPI(t)
	a.server.auditPDFLimit = 40
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	status, body := a.createRaw(key, map[string]any{"title": "t", "type": "DOCUMENT"}, map[string][]byte{"a.pdf": minimalPDF("audit")})
	if status != 200 {
		t.Fatalf("create: %d %v", status, body)
	}
	id := body["id"].(string)
	_, page := a.do("GET", "/api/v2/envelope/"+id+"/audit-log", key, "")
	have := int(page["count"].(float64))
	a.exec(`INSERT INTO audit_logs (id, envelope_id, type, data) SELECT 'bulk' || g, $1, 'DOCUMENT_VIEWED', '{}' FROM generate_series(1, $2::int) g`, id, 40-have)
	status, pdf, h := a.download("/api/v2/envelope/"+id+"/audit-log/download", key)
	if status != 200 || h.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(string(pdf), "%PDF-") {
		t.Fatalf("40 entries: %d %s %.100s", status, h.Get("Content-Type"), pdf)
	}
	a.exec(`INSERT INTO audit_logs (id, envelope_id, type, data) VALUES ('bulk-41', $1, 'DOCUMENT_VIEWED', '{}')`, id)
	status, body = a.do("GET", "/api/v2/envelope/"+id+"/audit-log/download", key, "")
	wantError(t, status, body, http.StatusBadRequest, codeAuditLogLimit)
	if msg := body["message"].(string); !strings.Contains(msg, "41 entries") || !strings.Contains(msg, "at most 40") || !strings.Contains(msg, fmt.Sprintf("/envelope/%s/audit-log", id)) {
		t.Errorf("message %q", msg)
	}
}
