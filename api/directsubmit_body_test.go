package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// TestDirectSubmitBodyIsCappedAsJSON: the public submit takes a JSON body only, so a body over
// SOBRE_MAX_BODY_BYTES is 413 even when it says it is multipart (which would raise the cap to
// SOBRE_MAX_UPLOAD_BYTES), and an unknown link is 404 before its body is read.
func TestDirectSubmitBodyIsCappedAsJSON(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "owner@acme.test", envelope.TeamRoleMember)
	_, token := a.directLinkOf(key)
	big := `{"name":"` + strings.Repeat("x", int(a.server.cfg.MaxBodyBytes)) + `","email":"vera@visita.test"}`
	post := func(token string) int {
		req, _ := http.NewRequest("POST", a.srv.URL+"/api/v2/direct/"+token, strings.NewReader(big))
		req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := post(token); got != http.StatusRequestEntityTooLarge {
		t.Errorf("a JSON body over the cap, said to be multipart: %d, want 413", got)
	}
	if got := post(strings.Repeat("z", 32)); got != http.StatusNotFound {
		t.Errorf("an unknown link: %d, want 404", got)
	}
}
