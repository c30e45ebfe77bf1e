package api

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// TestDirectPageNotReadyShowsNoPage: a link whose template cannot be signed yet (its placeholder
// recipient has no signature field) answers 410 for its page and 404 for its page images, as a
// disabled link does: nothing of the template is shown.
func TestDirectPageNotReadyShowsNoPage(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "owner@acme.test", envelope.TeamRoleMember)
	tpl := a.directTemplate(key)
	status, link := a.do("POST", "/api/v2/template/direct/create", key, fmt.Sprintf(`{"templateId":%d}`, tpl.LegacyID))
	if status != http.StatusOK {
		t.Fatalf("create: %d %v", status, link)
	}
	token := link["token"].(string)
	if status, _ := a.do("GET", "/d/"+token, "", ""); status != http.StatusGone {
		t.Fatalf("page: %d, want 410", status)
	}
	if status, _ := a.do("GET", "/d/"+token+"/pages/"+tpl.Items[0].ID+"/1.png", "", ""); status != http.StatusNotFound {
		t.Errorf("page image of a link not ready: %d, want 404", status)
	}
}
