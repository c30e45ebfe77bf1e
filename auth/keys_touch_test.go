package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/auth"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// TestTouchAPIKeyRecordsUseOncePerMinute: a key never used is recorded as used; a key whose use,
// as read, was recorded less than a minute ago is not written again (its row keeps what it had);
// one recorded longer ago is written.
func TestTouchAPIKeyRecordsUseOncePerMinute(t *testing.T) {
	store, url := pgtest.NewWithURL(t)
	ctx := context.Background()
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	keys := &auth.Keys{Store: store}
	key, _, err := keys.Issue(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin, "ci", nil)
	if err != nil {
		t.Fatal(err)
	}
	resolve := func() *time.Time {
		t.Helper()
		k, err := keys.Resolve(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		return k.LastUsedAt
	}
	k, err := keys.Resolve(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if k.LastUsedAt != nil {
		t.Fatalf("a fresh key was used at %v", k.LastUsedAt)
	}
	if err := store.TouchAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	first := resolve()
	if first == nil {
		t.Fatal("the first use was not recorded")
	}

	// As read now, the key was used 30 s ago: nothing is written, though the row says earlier.
	if _, err := db.Exec(ctx, `UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, k.ID); err != nil {
		t.Fatal(err)
	}
	recent := time.Now().Add(-30 * time.Second)
	k.LastUsedAt = &recent
	if err := store.TouchAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	stale := resolve()
	if stale == nil || time.Since(*stale) < time.Minute {
		t.Fatalf("a key read as used 30 s ago was written again: %v", stale)
	}

	// As read, used 2 minutes ago: written.
	k.LastUsedAt = stale
	if err := store.TouchAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if now := resolve(); now == nil || time.Since(*now) > 30*time.Second {
		t.Fatalf("a key used 2 minutes ago was not recorded again: %v", now)
	}
}
