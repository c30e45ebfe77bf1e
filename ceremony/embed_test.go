package ceremony_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
)

// The embedded page's cookie is the same session's, sent in a frame on another site:
// SameSite=None, Secure and Partitioned (on plain HTTP too), still HttpOnly, for Path=/ and
// without Domain. A browser that sends a stale cookie of the name before the live one (the
// top-level cookie and the partitioned one, on a site of the same site) is in its session.
func TestEmbeddedCeremonyCookie(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, _, rec := pending(t, nil, envelope.FieldSignature)
	for _, publicURL := range []string{"https://firma.example.cl", "http://127.0.0.1:8080"} {
		t.Run(publicURL, func(t *testing.T) {
			s := &ceremony.Service{Store: store, PublicURL: publicURL, Log: slog.New(slog.DiscardHandler)}
			var b browser
			w := httptest.NewRecorder()
			if _, err := s.BeginEmbedded(ctx, w, b.request(), rec); err != nil {
				t.Fatal(err)
			}
			set := w.Result().Cookies()
			if len(set) != 1 {
				t.Fatalf("cookies set: %v", set)
			}
			ck := set[0]
			if !ck.Secure || !ck.Partitioned || ck.SameSite != http.SameSiteNoneMode || !ck.HttpOnly || ck.Path != "/" || ck.Domain != "" {
				t.Fatalf("cookie %s", ck)
			}
			stale := &http.Cookie{Name: ck.Name, Value: "not-a-session-secret"}
			b.cookies = []*http.Cookie{stale, ck}
			c, ok := s.Session(ctx, b.request(), rec)
			if !ok {
				t.Fatal("the live cookie after a stale one is not read")
			}
			w = httptest.NewRecorder()
			if again, err := s.BeginEmbedded(ctx, w, b.request(), rec); err != nil || again.ID != c.ID || len(w.Result().Cookies()) != 0 {
				t.Fatalf("a second open started another session: %v, %v", again.ID, err)
			}
			b.cookies = []*http.Cookie{stale}
			if _, ok := s.Session(ctx, b.request(), rec); ok {
				t.Fatal("a stale cookie is a session")
			}
		})
	}
}
