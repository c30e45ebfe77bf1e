package api

import (
	"mime"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

func TestContentDisposition(t *testing.T) {
	tests := []struct{ name, want string }{
		{"contrato.pdf", `attachment; filename="contrato.pdf"; filename*=UTF-8''contrato.pdf`},
		{"Año ✓.pdf", `attachment; filename="A_o _.pdf"; filename*=UTF-8''A%C3%B1o%20%E2%9C%93.pdf`},
		{`a"b%c\d;e.pdf`, `attachment; filename="a_b_c_d;e.pdf"; filename*=UTF-8''a%22b%25c%5Cd%3Be.pdf`},
	}
	for _, tt := range tests {
		got := contentDisposition("attachment", tt.name)
		if got != tt.want {
			t.Errorf("contentDisposition(%q) = %s, want %s", tt.name, got, tt.want)
		}
		// A standard parser reads the UTF-8 name back from filename*.
		disposition, params, err := mime.ParseMediaType(got)
		if err != nil || disposition != "attachment" || params["filename"] != tt.name {
			t.Errorf("%s parses as %q %v (%v), want the name %q", got, disposition, params, err, tt.name)
		}
	}
}

// Every response says nosniff; files carry a sandbox CSP and an RFC 6266 name (ASCII fallback
// and filename*); an uploaded file's name becomes a clean title; the signing pages' forms may
// submit only to Sobre and Clave Única's origin.
func TestSecurityHeaders(t *testing.T) {
	a := newTestAPIWith(t, func(d *Deps) { d.Config.ClaveUnicaIssuerURL = "https://accounts.claveunica.gob.cl/openid" })
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	status, body := a.createRaw(key, map[string]any{"title": "Año 2024/25 \u202Efdp", "type": "DOCUMENT"},
		map[string][]byte{"C:\\Users\\maria\\fac\u202Etura\t final.pdf": minimalPDF("headers")})
	if status != 200 {
		t.Fatalf("create: %d %v", status, body)
	}
	id := body["id"].(string)
	_, env := a.do("GET", "/api/v2/envelope/"+id, key, "")
	item := env["envelopeItems"].([]any)[0].(map[string]any)
	if item["title"] != "factura final.pdf" {
		t.Errorf("the file C:\\Users\\maria\\fac<RLO>tura<TAB> final.pdf became the title %q", item["title"])
	}
	_, signingItem, rec := a.pendingEnvelope(nil)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}

	for _, c := range []struct {
		path, key   string
		status      int
		disposition string // "": not a file
	}{
		{"/healthz", "", 200, ""},
		{"/api/v2/nowhere", key, 404, ""},
		{"/api/v2/envelope", "", 401, ""},
		{"/api/v2/envelope/" + id, key, 200, ""},
		{"/static/sign/sign.js", "", 200, ""},
		{"/sign/" + rec.Token, "", 200, ""},
		{"/api/v2/envelope/item/" + item["id"].(string) + "/download?version=original", key, 200,
			`attachment; filename="factura final.pdf"; filename*=UTF-8''factura%20final.pdf`},
		{"/api/v2/envelope/" + id + "/audit-log/download", key, 200,
			`attachment; filename="A_o 2024_25 fdp_audit_log.pdf"; filename*=UTF-8''A%C3%B1o%202024_25%20fdp_audit_log.pdf`},
		{"/api/v2/signing/" + rec.Token + "/items/" + signingItem, "", 200,
			`inline; filename="a.pdf"; filename*=UTF-8''a.pdf`},
	} {
		req, _ := http.NewRequest("GET", a.srv.URL+c.path, nil)
		if c.key != "" {
			req.Header.Set("Authorization", c.key)
		}
		res, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		h := res.Header
		if res.StatusCode != c.status || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d, nosniff %q", c.path, res.StatusCode, h.Get("X-Content-Type-Options"))
		}
		if c.disposition == "" {
			continue
		}
		if h.Get("Content-Disposition") != c.disposition || h.Get("Content-Security-Policy") != "sandbox" {
			t.Errorf("%s: Content-Disposition %s, CSP %q; want %s and sandbox", c.path, h.Get("Content-Disposition"), h.Get("Content-Security-Policy"), c.disposition)
		}
	}

	ops := httptest.NewServer(a.server.OpsHandler())
	defer ops.Close()
	for _, path := range []string{"/metrics", "/readyz", "/nowhere"} {
		if _, h, _ := get(t, http.DefaultClient, ops.URL+path); h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("operations listener %s: nosniff %q", path, h.Get("X-Content-Type-Options"))
		}
	}

	csp := func(a *testAPI, token string) string {
		status, h, _ := get(t, browser, a.srv.URL+"/sign/"+token)
		if status != 200 {
			t.Fatalf("signing page: %d", status)
		}
		return h.Get("Content-Security-Policy")
	}
	if got := csp(a, rec.Token); !strings.Contains(got, "; form-action 'self' https://accounts.claveunica.gob.cl; ") {
		t.Errorf("signing page CSP %q: want form-action 'self' and Clave Única's origin only", got)
	}
	without := newTestAPIWith(t, func(d *Deps) { d.Config.ClaveUnicaIssuerURL = "" })
	_, _, other := without.pendingEnvelope(nil)
	if got := csp(without, other.Token); !strings.Contains(got, "; form-action 'self'; ") {
		t.Errorf("signing page CSP without Clave Única %q: want form-action 'self' only", got)
	}
}
