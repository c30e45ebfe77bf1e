package web

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// cuttable forwards TCP connections to a server until cut, which closes them all and refuses
// every new one: the server gone, as a stopped PostgreSQL is to its clients.
type cuttable struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCuttable(t *testing.T, target string) *cuttable {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cuttable{ln: ln}
	t.Cleanup(c.cut)
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			c.mu.Lock()
			c.conns = append(c.conns, in, out)
			c.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
	return c
}

func (c *cuttable) cut() {
	c.ln.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		conn.Close()
	}
}

// A signing link, a direct link, a page image or the way back from Clave Única, opened while
// PostgreSQL cannot be reached, says so with a 503 and Retry-After, in the browser's language;
// none says that the link does not exist.
func TestSigningPageWhileTheStoreIsUnreachable(t *testing.T) {
	dbURL := pgtest.NewURL(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	relay := newCuttable(t, u.Host)
	u.Host = relay.ln.Addr().String()
	store, err := persistence.Open(context.Background(), u.String(), persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	svc := &account.Service{Store: store, PublicURL: "http://127.0.0.1:8080", Log: slog.New(slog.DiscardHandler)}
	srv := signingServer(t, store, svc)
	rec := pendingFor(t, store, "ana@example.cl", envelope.RecipientAuthOptions{})
	v := newVisitor(t, srv)
	if res := v.get("/sign/" + rec.Token); res.status != http.StatusOK {
		t.Fatalf("before the cut: %d", res.status)
	}
	relay.cut()
	for _, tt := range []struct{ path, lang, want string }{
		{"/sign/" + rec.Token, "es", "No disponible por un momento"},
		{"/sign/" + rec.Token, "en", "Briefly unavailable"},
		{"/sign/" + strings.Repeat("x", 32), "en", "Briefly unavailable"},
		{"/d/" + strings.Repeat("x", 32), "en", "Briefly unavailable"},
		{"/auth/claveunica/return/1", "en", "Briefly unavailable"},
		{"/sign/" + rec.Token + "/pages/envelope_item_x/1", "en", "cannot be reached"},
	} {
		res := v.do(http.MethodGet, tt.path, nil, map[string]string{"Accept-Language": tt.lang})
		if res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") != "5" || !strings.Contains(res.body, tt.want) {
			t.Errorf("%s (%s): %d Retry-After %q, want 503 Retry-After 5 saying %q", tt.path[:8], tt.lang, res.status, res.header.Get("Retry-After"), tt.want)
		}
	}
}
