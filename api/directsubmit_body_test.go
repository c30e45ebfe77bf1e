package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// TestDirectSubmitBodyIsCappedAsJSON: the public submit and the signing API take JSON bodies
// only, so a body over SOBRE_MAX_BODY_BYTES is 413 even when it says it is multipart (which would
// raise the cap to SOBRE_MAX_UPLOAD_BYTES), and an unknown link is 404 before its body is read.
func TestDirectSubmitBodyIsCappedAsJSON(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "owner@acme.test", envelope.TeamRoleMember)
	_, token := a.directLinkOf(key)
	big := `{"name":"` + strings.Repeat("x", int(a.server.cfg.MaxBodyBytes)) + `","email":"vera@visita.test"}`
	post := func(path, body string) int {
		req, _ := http.NewRequest("POST", a.srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := post("/api/v2/direct/"+token, big); got != http.StatusRequestEntityTooLarge {
		t.Errorf("a JSON body over the cap, said to be multipart: %d, want 413", got)
	}
	if got := post("/api/v2/direct/"+strings.Repeat("z", 32), `{"name":"Vera"}`); got != http.StatusNotFound {
		t.Errorf("an unknown link: %d, want 404", got)
	}
	for _, route := range []string{"fields", "complete", "reject", "fea", "auth/password"} {
		if got := post("/api/v2/signing/"+strings.Repeat("z", 32)+"/"+route, big); got != http.StatusRequestEntityTooLarge {
			t.Errorf("signing %s: a JSON body over the cap, said to be multipart: %d, want 413", route, got)
		}
	}
}
