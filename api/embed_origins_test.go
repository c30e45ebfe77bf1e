package api

import (
	"net/http"
	"reflect"
	"sort"
	"testing"
)

// A team's embed origins: read and replaced by a MANAGER or an ADMIN only, each origin checked
// and normalised, another team's untouched; the server's origins are shown beside them.
func TestEmbedOrigins(t *testing.T) {
	a := newTestAPIWith(t, func(d *Deps) { d.Config.EmbedOrigins = []string{"https://all.example.com"} })
	admin := a.key("Acme", "ana@acme.cl", "ADMIN")
	manager := a.key("Acme", "mo@acme.cl", "MANAGER")
	member := a.key("Acme", "bo@acme.cl", "MEMBER")
	other := a.key("Otra", "olga@otra.cl", "ADMIN")

	if status, _ := a.do("GET", "/api/v2/team/embed-origins", member, ""); status != http.StatusForbidden {
		t.Errorf("a MEMBER reads: %d", status)
	}
	if status, _ := a.do("POST", "/api/v2/team/embed-origins/update", member, `{"origins":[]}`); status != http.StatusForbidden {
		t.Errorf("a MEMBER updates: %d", status)
	}
	status, body := a.do("POST", "/api/v2/team/embed-origins/update", manager, `{"origins":["https://App.example.com:443/","https://app.example.com","https://b.example.com:8443"]}`)
	if status != http.StatusOK {
		t.Fatalf("update: %d %v", status, body)
	}
	if got, want := body["origins"], []any{"https://app.example.com", "https://b.example.com:8443"}; !reflect.DeepEqual(got, want) {
		t.Errorf("origins %v, want %v", got, want)
	}
	if got := body["serverOrigins"]; !reflect.DeepEqual(got, []any{"https://all.example.com"}) {
		t.Errorf("serverOrigins %v", got)
	}
	status, body = a.do("POST", "/api/v2/team/embed-origins/update", admin, `{"origins":["https://ok.example.com","https://x.example.com/path","*","http://app.example.com"]}`)
	if status != http.StatusBadRequest {
		t.Fatalf("bad origins: %d %v", status, body)
	}
	var paths []string
	for _, is := range body["issues"].([]any) {
		paths = append(paths, is.(map[string]any)["path"].(string))
	}
	sort.Strings(paths)
	if want := []string{"origins[1]", "origins[2]", "origins[3]"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("issues at %v, want %v", paths, want)
	}
	// An origin is written into the embedded page's Content-Security-Policy: one that would end
	// frame-ancestors and start another directive (report-uri, to learn the page's URL) is refused.
	if status, body := a.do("POST", "/api/v2/team/embed-origins/update", admin, `{"origins":["https://a.example.com;report-uri","https://evil.example.com"]}`); status != http.StatusBadRequest {
		t.Errorf("an origin that injects a directive: %d %v", status, body)
	}
	if status, body := a.do("POST", "/api/v2/team/embed-origins/update", admin, `{}`); status != http.StatusBadRequest {
		t.Errorf("no origins member: %d %v", status, body)
	}
	if _, body := a.do("GET", "/api/v2/team/embed-origins", admin, ""); !reflect.DeepEqual(body["origins"], []any{"https://app.example.com", "https://b.example.com:8443"}) {
		t.Errorf("after refused updates: %v", body["origins"])
	}
	if _, body := a.do("GET", "/api/v2/team/embed-origins", other, ""); !reflect.DeepEqual(body["origins"], []any{}) {
		t.Errorf("another team reads %v", body["origins"])
	}
}

// TestEmbedOriginsWithNoneForEveryTeam: with SOBRE_EMBED_ORIGINS empty, serverOrigins is an
// empty list, never null, and a team's own origins are listed alone.
func TestEmbedOriginsWithNoneForEveryTeam(t *testing.T) {
	a := newTestAPI(t)
	admin := a.key("Acme", "ana@acme.cl", "ADMIN")
	status, body := a.do("GET", "/api/v2/team/embed-origins", admin, "")
	if status != http.StatusOK || !reflect.DeepEqual(body["serverOrigins"], []any{}) || !reflect.DeepEqual(body["origins"], []any{}) {
		t.Fatalf("read: %d %v, want two empty lists", status, body)
	}
}
