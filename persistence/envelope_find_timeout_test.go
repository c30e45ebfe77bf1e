package persistence_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// A find that runs past FindTimeout (here: waiting on a lock someone holds on the tables it reads) is
// answered SERVICE_UNAVAILABLE with a message, not an internal error.
func TestFindEnvelopesPastTheTimeoutIsUnavailable(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	ctx := context.Background()
	store, err := persistence.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE envelopes, envelope_search IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"", "contrato"} {
		_, _, err = store.FindEnvelopes(ctx, persistence.ScopeOf(m), persistence.FindFilter{Query: q, Page: 1, PerPage: 10})
		shown, internal := envelope.Shown(err)
		if envelope.ErrorCode(err) != envelope.CodeUnavailable || internal || shown.Message == "" {
			t.Errorf("query %q past the timeout: %v (shown %+v, internal %v)", q, err, shown, internal)
		}
	}
}
