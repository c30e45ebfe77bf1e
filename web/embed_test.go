package web

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// embedServer serves the pages with serverOrigins as SOBRE_EMBED_ORIGINS.
func embedServer(t *testing.T, store *persistence.Store, serverOrigins ...string) *httptest.Server {
	t.Helper()
	log := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	h := &Handler{Store: store, Log: log, ClientIP: func(*http.Request) string { return "192.0.2.7" }, EmbedOrigins: serverOrigins,
		Ceremony: &ceremony.Service{Store: store, PublicURL: "http://127.0.0.1:8080", Log: log}}
	r := chi.NewRouter()
	h.Routes(r)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv
}

func frameAncestors(h http.Header) string {
	for _, d := range strings.Split(h.Get("Content-Security-Policy"), ";") {
		if d = strings.TrimSpace(d); strings.HasPrefix(d, "frame-ancestors ") {
			return strings.TrimPrefix(d, "frame-ancestors ")
		}
	}
	return ""
}

// The embedded page may be framed by the server's origins and the team's, and by no one when
// there are none (it then says so and begins no ceremony); its cookie is the partitioned one;
// the signing page itself is never framed.
func TestEmbeddedPageFraming(t *testing.T) {
	ctx := context.Background()
	store := pgtest.New(t)
	rec := pendingFor(t, store, fmt.Sprintf("ana-%d@example.cl", time.Now().UnixNano()), envelope.RecipientAuthOptions{})
	e, err := store.EnvelopeForRecipient(ctx, rec.EnvelopeID)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("no origin", func(t *testing.T) {
		a := newVisitor(t, embedServer(t, store)).get("/embed/sign/" + rec.Token)
		if a.status != http.StatusForbidden || frameAncestors(a.header) != "'none'" || a.header.Get("X-Frame-Options") != "DENY" {
			t.Fatalf("status %d, frame-ancestors %q, X-Frame-Options %q", a.status, frameAncestors(a.header), a.header.Get("X-Frame-Options"))
		}
		if !strings.Contains(a.body, embedTextFor("en").Refused) || strings.Contains(a.body, `class="page"`) {
			t.Errorf("the page does not say it may not be framed, or shows the document:\n%s", a.body)
		}
		if len(a.header.Values("Set-Cookie")) != 0 {
			t.Errorf("a ceremony began: %q", a.header.Values("Set-Cookie"))
		}
	})

	t.Run("the server's origins", func(t *testing.T) {
		srv := embedServer(t, store, "https://app.example.com", "http://localhost:3000")
		a := newVisitor(t, srv).get("/embed/sign/" + rec.Token)
		if a.status != http.StatusOK || frameAncestors(a.header) != "https://app.example.com http://localhost:3000" || a.header.Get("X-Frame-Options") != "" {
			t.Fatalf("status %d, frame-ancestors %q, X-Frame-Options %q", a.status, frameAncestors(a.header), a.header.Get("X-Frame-Options"))
		}
		cookie := strings.Join(a.header.Values("Set-Cookie"), "\n")
		for _, want := range []string{"sobre_ceremony_", "HttpOnly", "Secure", "SameSite=None", "Partitioned"} {
			if !strings.Contains(cookie, want) {
				t.Errorf("the ceremony cookie %q lacks %s", cookie, want)
			}
		}
		for _, want := range []string{`id="embed-meta"`, `src="/static/sign/embed.js"`, `https://app.example.com`, `"envelopeId":"` + e.ID + `"`, `class="page"`} {
			if !strings.Contains(a.body, want) {
				t.Errorf("the page lacks %s", want)
			}
		}
		if s := newVisitor(t, srv).get("/sign/" + rec.Token); frameAncestors(s.header) != "'none'" || s.header.Get("X-Frame-Options") != "DENY" || strings.Contains(s.body, "embed.js") {
			t.Errorf("the signing page may be framed: %q, %q", frameAncestors(s.header), s.header.Get("X-Frame-Options"))
		}
		if s := newVisitor(t, srv).get("/sign/" + rec.Token); strings.Contains(strings.Join(s.header.Values("Set-Cookie"), ""), "Partitioned") {
			t.Error("the signing page's cookie is partitioned")
		}
	})

	t.Run("the team's origins", func(t *testing.T) {
		if err := store.SetTeamEmbedOrigins(ctx, e.TeamID, []string{"https://team.example.com", "https://app.example.com"}); err != nil {
			t.Fatal(err)
		}
		a := newVisitor(t, embedServer(t, store, "https://app.example.com")).get("/embed/sign/" + rec.Token)
		if a.status != http.StatusOK || frameAncestors(a.header) != "https://app.example.com https://team.example.com" {
			t.Fatalf("status %d, frame-ancestors %q", a.status, frameAncestors(a.header))
		}
		if unknown := newVisitor(t, embedServer(t, store)).get("/embed/sign/unknown-token-0123456789"); unknown.status != http.StatusForbidden {
			t.Errorf("an unknown token: %d, want 403 (nobody may frame it)", unknown.status)
		}
	})
}

// testWriter logs what the handler logs into the test's output.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// The popup's pages: the frame's request for a login answers JSON (here a refusal: no Clave
// Única configured, or no session), a popup's post from another site is refused, and the page
// the popup lands on runs the script that tells the frame.
func TestEmbeddedClaveUnicaPopupPages(t *testing.T) {
	store := pgtest.New(t)
	rec := pendingFor(t, store, fmt.Sprintf("ana-%d@example.cl", time.Now().UnixNano()), envelope.RecipientAuthOptions{})
	srv := embedServer(t, store, "https://app.example.com")
	v := newVisitor(t, srv)
	a := v.do(http.MethodPost, "/embed/sign/"+rec.Token+"/claveunica", nil, nil)
	if a.status != http.StatusNotImplemented && a.status != http.StatusServiceUnavailable && a.status != http.StatusBadRequest ||
		!strings.HasPrefix(a.header.Get("Content-Type"), "application/json") || !strings.Contains(a.body, `"code":"`) {
		t.Errorf("a login without Clave Única: %d %s %s", a.status, a.header.Get("Content-Type"), a.body)
	}
	if a := v.do(http.MethodPost, "/embed/sign/unknown-token-0123456789/claveunica", nil, nil); a.status != http.StatusNotFound || !strings.Contains(a.body, `"code":"NOT_FOUND"`) {
		t.Errorf("an unknown link: %d %s", a.status, a.body)
	}
	done := v.get(ceremony.PopupDonePath)
	if done.status != http.StatusOK || !strings.Contains(done.body, `src="/static/sign/popupdone.js"`) || frameAncestors(done.header) != "'none'" {
		t.Errorf("the popup's last page: %d %q\n%s", done.status, frameAncestors(done.header), done.body)
	}
}
