package api

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// TestDirectSubmitSeesALinkDisabledWhileItWaits: a submit that read its link enabled and then
// waits for the template's row lock held by a toggle that disables the link is refused (410)
// once the toggle commits, and makes no document: the link is judged under the lock.
func TestDirectSubmitSeesALinkDisabledWhileItWaits(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	ctx := context.Background()
	key := a.key("Acme", "owner@acme.test", envelope.TeamRoleMember)
	tpl, token := a.directLinkOf(key)
	values := directOwnValues(tpl)

	conn, err := pgx.Connect(ctx, a.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT id FROM envelopes WHERE id = $1 FOR UPDATE`, tpl.ID); err != nil {
		t.Fatal(err)
	}

	type answer struct {
		status int
		body   map[string]any
	}
	done := make(chan answer, 1)
	go func() {
		status, body := a.do("POST", "/api/v2/direct/"+token, "", fmt.Sprintf(`{"name":"Vera","email":"vera@visita.test",
			"templateUpdatedAt":%q,"fields":[%s]}`, tpl.UpdatedAt.Format(time.RFC3339Nano), values))
		done <- answer{status, body}
	}()
	// Wait until the submit waits for the row lock this transaction holds.
	watch, err := pgx.Connect(ctx, a.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	waitFor(t, "the submit to wait for the template's lock", func() bool {
		var waiting int
		err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
			AND query LIKE '%FOR UPDATE%'`).Scan(&waiting)
		return err == nil && waiting > 0
	})
	before := a.envelopeCount()
	if _, err := tx.Exec(ctx, `UPDATE template_direct_links SET enabled = false WHERE envelope_id = $1`, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	got := <-done
	wantError(t, got.status, got.body, http.StatusGone, envelope.CodeLinkEnded)
	if after := a.envelopeCount(); after != before {
		t.Fatalf("a submit to a disabled link made a document: %d envelopes, had %d", after, before)
	}
}
