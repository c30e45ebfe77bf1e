package persistence_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// seedRecipients adds n recipients to a new envelope of store, straight in SQL, with tokens
// prefix<i>: kept as hash only, or also in the clear (as rows written before migration 00011).
func seedRecipients(b *testing.B, url string, store *persistence.Store, prefix string, n int, plain bool) string {
	b.Helper()
	id := draftWithOneSigner(b, store, fmt.Sprintf("%s %d %v", prefix, n, plain))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	plainExpr := "NULL"
	if plain {
		plainExpr = "$3 || g"
	}
	_, err = conn.Exec(ctx, `INSERT INTO recipients (envelope_id, email, name, role, token, token_hash)
		SELECT $1, 'r' || g || '@bench.test', 'R' || g, 'SIGNER', `+plainExpr+`, sha256(convert_to($3 || g, 'UTF8'))
		FROM generate_series(1, $2) g`, id, n, prefix)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "ANALYZE recipients"); err != nil {
		b.Fatal(err)
	}
	return id
}

// BenchmarkRecipientByToken: a signing link's lookup by hash among 200,000 recipients.
func BenchmarkRecipientByToken(b *testing.B) {
	url := pgtest.NewURL(b)
	ctx := context.Background()
	store, err := persistence.Open(ctx, url, persistence.WithKeyring(pgtest.Keyring(b)))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	const n = 200_000
	seedRecipients(b, url, store, "bench", n, false)
	b.ResetTimer()
	for b.Loop() {
		tok := fmt.Sprintf("bench%d", 1+rand.IntN(n))
		if _, err := store.RecipientByToken(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSealPlainTokens: the start-up step after migration 00011, in rows sealed per second.
func BenchmarkSealPlainTokens(b *testing.B) {
	url := pgtest.NewURL(b)
	ctx := context.Background()
	store, err := persistence.Open(ctx, url, persistence.WithKeyring(pgtest.Keyring(b)))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	const n = 50_000
	total, elapsed := 0, time.Duration(0)
	for b.Loop() {
		b.StopTimer()
		seedRecipients(b, url, store, fmt.Sprintf("run%d-", total/n), n, true)
		b.StartTimer()
		start := time.Now()
		sealed, err := store.SealPlainTokens(ctx)
		if err != nil || sealed != n {
			b.Fatalf("sealed %d, %v", sealed, err)
		}
		total, elapsed = total+sealed, elapsed+time.Since(start)
	}
	b.ReportMetric(float64(total)/elapsed.Seconds(), "rows/s")
}
