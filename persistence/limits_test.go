package persistence_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// storeAndConn is a Store on a fresh database and a plain connection to it, for what a test
// must read or change behind the Store's back (the clock of a row, say).
func storeAndConn(t *testing.T) (*persistence.Store, *pgx.Conn) {
	t.Helper()
	url := pgtest.NewURL(t)
	store, err := persistence.Open(context.Background(), url, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return store, conn
}

func auditCount(t *testing.T, conn *pgx.Conn, envelopeID, typ string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM audit_logs WHERE envelope_id = $1 AND type = $2`, envelopeID, typ).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// DOCUMENT_VIEWED is recorded once per signing session in ten minutes, however often the link is
// loaded; another session, or a caller without one, has its own; after ten minutes the session
// is recorded again. DOCUMENT_OPENED stays once.
func TestDocumentViewedOncePerSessionInTenMinutes(t *testing.T) {
	t.Parallel()
	store, conn := storeAndConn(t)
	ctx := context.Background()
	id := draftWithOneSigner(t, store, "views")
	snap, err := store.LoadSnapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rec := snap.Recipients[0]
	view := func(session string) { // each session from its own browser
		t.Helper()
		if err := store.MarkOpened(ctx, rec, session, envelope.RecipientActor(rec, "198.51.100.7", "ua "+session)); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		view("s1")
	}
	if n := auditCount(t, conn, id, "DOCUMENT_VIEWED"); n != 1 {
		t.Fatalf("five loads in one session: %d DOCUMENT_VIEWED, want 1", n)
	}
	view("s2")
	view("s2")
	view("")
	view("")
	if n := auditCount(t, conn, id, "DOCUMENT_VIEWED"); n != 3 {
		t.Errorf("after a second session and two loads without one: %d DOCUMENT_VIEWED, want 3", n)
	}
	if _, err := conn.Exec(ctx, `UPDATE document_views SET viewed_at = now() - interval '9 minutes 50 seconds' WHERE recipient_id = $1`, rec.ID); err != nil {
		t.Fatal(err)
	}
	view("s1")
	if n := auditCount(t, conn, id, "DOCUMENT_VIEWED"); n != 3 {
		t.Errorf("9m50s later: %d DOCUMENT_VIEWED, want still 3", n)
	}
	if _, err := conn.Exec(ctx, `UPDATE document_views SET viewed_at = now() - interval '10 minutes' WHERE recipient_id = $1`, rec.ID); err != nil {
		t.Fatal(err)
	}
	view("s1")
	view("s1")
	if n := auditCount(t, conn, id, "DOCUMENT_VIEWED"); n != 4 {
		t.Errorf("ten minutes later: %d DOCUMENT_VIEWED, want 4", n)
	}
	if n := auditCount(t, conn, id, "DOCUMENT_OPENED"); n != 1 {
		t.Errorf("%d DOCUMENT_OPENED, want 1", n)
	}
}

// A new session for every load (a link loaded without the cookie begins one) records no more
// views: from one client (address and User-Agent) a recipient's view is recorded at most once in
// ten minutes, whatever the session; another browser, or the same one from another address,
// records its own.
func TestDocumentViewedOncePerClientInTenMinutes(t *testing.T) {
	t.Parallel()
	store, conn := storeAndConn(t)
	ctx := context.Background()
	id := draftWithOneSigner(t, store, "views per client")
	snap, err := store.LoadSnapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rec := snap.Recipients[0]
	view := func(session, ip, ua string) {
		t.Helper()
		if err := store.MarkOpened(ctx, rec, session, envelope.RecipientActor(rec, ip, ua)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		view("minted-"+strconv.Itoa(i), "198.51.100.7", "curl/8")
	}
	view("", "198.51.100.7", "curl/8")
	if n := auditCount(t, conn, id, "DOCUMENT_VIEWED"); n != 1 {
		t.Fatalf("six loads from one client, each in a new session: %d DOCUMENT_VIEWED, want 1", n)
	}
	view("phone", "198.51.100.7", "Mobile Safari")
	view("laptop-elsewhere", "203.0.113.9", "curl/8")
	if n := auditCount(t, conn, id, "DOCUMENT_VIEWED"); n != 3 {
		t.Errorf("another browser, and the same one from another address: %d DOCUMENT_VIEWED, want 3", n)
	}
	if _, err := conn.Exec(ctx, `UPDATE document_views SET viewed_at = now() - interval '10 minutes' WHERE recipient_id = $1`, rec.ID); err != nil {
		t.Fatal(err)
	}
	view("minted-9", "198.51.100.7", "curl/8")
	view("minted-10", "198.51.100.7", "curl/8")
	if n := auditCount(t, conn, id, "DOCUMENT_VIEWED"); n != 4 {
		t.Errorf("ten minutes later: %d DOCUMENT_VIEWED, want 4", n)
	}
}

// A User-Agent or address is kept to 512 bytes of valid UTF-8, in the audit entry whatever
// built the actor.
func TestClientTextCapped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     int
	}{
		{"short", "Mozilla/5.0", 11},
		{"exactly 512", strings.Repeat("a", 512), 512},
		{"1 MiB", strings.Repeat("a", 1<<20), 512},
		{"a character across the cut", strings.Repeat("a", 511) + "ñ" + "bbb", 511},
		{"invalid UTF-8", "ok\xff\xfe", len("ok\uFFFD")},
		{"NUL", "ok\x00ok", len("okok")},
	} {
		got := envelope.CapClientText(tc.in)
		if len(got) != tc.want || !envelope.IsText(got) || !strings.HasPrefix(strings.ReplaceAll(tc.in, "\x00", ""), strings.TrimSuffix(got, "\uFFFD")) {
			t.Errorf("%s: %d bytes (valid %v), want %d", tc.name, len(got), utf8.ValidString(got), tc.want)
		}
	}

	store, conn := storeAndConn(t)
	ctx := context.Background()
	id := draftWithOneSigner(t, store, "caps")
	huge := strings.Repeat("x", 1<<20)
	ip := strings.Repeat("1", 600)
	// An actor built by hand (as a workflow's would be, from a request) is capped when stored.
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		return tx.AppendAudit(ctx, id, envelope.Audit{Type: envelope.AuditMetaUpdated, Data: map[string]any{}}, envelope.Actor{UserAgent: &huge, IPAddress: &ip})
	}); err != nil {
		t.Fatal(err)
	}
	snap, err := store.LoadSnapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.MarkOpened(ctx, snap.Recipients[0], "s", envelope.RecipientActor(snap.Recipients[0], ip, huge)); err != nil {
		t.Fatal(err)
	}
	var longest, n int
	if err := conn.QueryRow(ctx, `SELECT max(greatest(octet_length(user_agent), octet_length(ip_address))), count(*) FROM audit_logs
		WHERE envelope_id = $1 AND user_agent IS NOT NULL`, id).Scan(&longest, &n); err != nil {
		t.Fatal(err)
	}
	if longest != 512 || n != 3 {
		t.Errorf("longest stored User-Agent or address: %d bytes over %d entries, want 512 over 3", longest, n)
	}
	if n, _, err := store.VerifyAudit(ctx, id); err != nil || n < 4 {
		t.Errorf("the chain over capped entries: %d entries, %v", n, err)
	}
}
