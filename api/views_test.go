package api

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Loading a signing link without its cookie begins a new ceremony session each time; the
// sessions minted so do not record more DOCUMENT_VIEWED rows: from one client (address and
// User-Agent) a view is recorded at most once in ten minutes. Another browser records its own.
func TestSigningPageViewsPerClient(t *testing.T) {
	a := newTestAPI(t)
	id, _, rec := a.pendingEnvelope(nil)
	conn, err := pgx.Connect(context.Background(), a.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	count := func(sql string, arg any) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(context.Background(), sql, arg).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	load := func(ua string) {
		t.Helper()
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		for range 2 { // the first load mints a session and its cookie, the second sends it
			req, _ := http.NewRequest(http.MethodGet, a.srv.URL+"/sign/"+rec.Token, nil)
			req.Header.Set("User-Agent", ua)
			res, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("signing page: %d", res.StatusCode)
			}
		}
	}
	for range 4 {
		load("curl/8.5.0")
	}
	if n := count(`SELECT count(*) FROM ceremony_sessions WHERE recipient_id = $1`, rec.ID); n != 4 {
		t.Errorf("%d ceremony sessions, want 4 (one per cookie jar)", n)
	}
	if n := count(`SELECT count(*) FROM audit_logs WHERE envelope_id = $1 AND type = 'DOCUMENT_VIEWED'`, id); n != 1 {
		t.Errorf("four new sessions from one client: %d DOCUMENT_VIEWED, want 1", n)
	}
	load("Mozilla/5.0 (iPhone)")
	if n := count(`SELECT count(*) FROM audit_logs WHERE envelope_id = $1 AND type = 'DOCUMENT_VIEWED'`, id); n != 2 {
		t.Errorf("after another browser: %d DOCUMENT_VIEWED, want 2", n)
	}
}
