package api

import (
	"net/http"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// A string holding NUL (which PostgreSQL's text cannot store) is a 400 naming the value, not a 500.
func TestNULInStringsIsABadRequest(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	status, body := a.do(http.MethodPost, "/api/v2/envelope/update", key, `{"envelopeId":"envelope_x","data":{"title":"bad\u0000title"}}`)
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidBody)
	issues, _ := body["issues"].([]any)
	if len(issues) != 1 || issues[0].(map[string]any)["path"] != "data.title" {
		t.Fatalf("issues %v, want one naming data.title", issues)
	}
	status, body = a.do(http.MethodPost, "/api/v2/envelope/update", key, `{"envelopeId":"envelope_x","meta":{"subject":"ok"},"data":{"title":"fine"}}`)
	if issues, _ := body["issues"].([]any); len(issues) > 0 && issues[0].(map[string]any)["path"] == "data.title" {
		t.Fatalf("a clean title was refused: %v (%d)", body, status)
	}
}
