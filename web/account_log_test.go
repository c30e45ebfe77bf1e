package web

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// lockedBuffer is a log destination the handler and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLinkTokensStayOutOfTheLog: the request log leaves out the path of every route with a
// {token} in it, so that a mailed link never reaches the log; a verification or reset link
// whose page fails inside (the database away, say) must not be logged either, for the link still
// works afterwards (a reset link for an hour).
func TestLinkTokensStayOutOfTheLog(t *testing.T) {
	store := pgtest.New(t)
	store.Close() // every statement now fails: an internal error on every page that reads
	var logged lockedBuffer
	h := &Handler{Accounts: &account.Service{Store: store, PublicURL: "http://127.0.0.1:8080", Log: slog.New(slog.DiscardHandler)},
		Log: slog.New(slog.NewTextHandler(&logged, nil)), ClientIP: func(*http.Request) string { return "192.0.2.7" }}
	r := chi.NewRouter()
	h.Routes(r)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	v := newVisitor(t, srv)
	const verifyToken, resetToken = "VERIFYTOKENsecret-0123456789abcdef", "RESETTOKENsecret-0123456789abcdef"
	if got := v.get("/account/verify/" + verifyToken); got.status != http.StatusInternalServerError {
		t.Fatalf("verify page with the database away: %d", got.status)
	}
	if got := v.post("/account/reset/"+resetToken, url.Values{"password": {"a-new-password-9"}, "password2": {"a-new-password-9"}}); got.status != http.StatusInternalServerError {
		t.Fatalf("reset with the database away: %d", got.status)
	}
	for _, tok := range []string{verifyToken, resetToken} {
		if strings.Contains(logged.String(), tok) {
			t.Errorf("the log holds the mailed link's token %s:\n%s", tok, logged.String())
		}
	}
}
