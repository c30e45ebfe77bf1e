package persistence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/keyring"
)

// Store reads and writes Sobre's state. It is safe for concurrent use.
type Store struct {
	pool  *pgxpool.Pool
	audit *AuditKeys // signs appended audit entries; nil: unkeyed (see SetAuditKeys)
	// keyedFrom is the first audit entry (seq) that must carry a hash and an HMAC
	// (SetAuditKeyedFrom, auditEntryRule).
	keyedFrom int64
	ring      *keyring.Ring // seals and opens signing tokens (tokens.go)
}

// Option configures a Store.
type Option func(*Store)

// WithKeyring gives the Store the keys that seal and open recipients' signing tokens. A Store
// without one reads recipients without their tokens and cannot create or replace a token
// (ErrNoKeyring): enough for tools that only manage keys or check audit logs.
func WithKeyring(r *keyring.Ring) Option { return func(s *Store) { s.ring = r } }

// Open connects to the database at url and checks the connection.
func Open(ctx context.Context, url string, opts ...Option) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	// Every transaction runs at READ COMMITTED, whatever the URL, the role or the database set:
	// a statement after a lock (the mail quota's count after its advisory lock, a mail's check
	// after its envelope's share lock) must see what was committed while it waited, which a
	// snapshot taken at a transaction's first statement would not.
	cfg.ConnConfig.RuntimeParams["default_transaction_isolation"] = "read committed"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping database %s@%s:%d/%s: %w", cfg.ConnConfig.User, cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database, err)
	}
	s := &Store{pool: pool}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Close closes every connection.
func (s *Store) Close() { s.pool.Close() }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.pool.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}

// querier is what pgxpool.Pool and pgx.Tx have in common.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// queueRows adds sql (with args) to b, its rows read into *into by scan once the batch runs; a
// failure to read them names what.
func queueRows[T any](b *pgx.Batch, into *[]T, what string, scan pgx.RowToFunc[T], sql string, args ...any) {
	b.Queue(sql, args...).Query(func(rows pgx.Rows) (err error) {
		if *into, err = pgx.CollectRows(rows, scan); err != nil {
			return fmt.Errorf("read %s: %w", what, err)
		}
		return nil
	})
}

// Tx is a Store bound to one open transaction. A method that Store and Tx both have does the same
// thing with the same arguments: Store's runs on its own (in a transaction of its own when it
// writes more than one row), Tx's within the transaction. A Tx method named Lock… reads what it
// names as the scope sees it and locks its envelope's row until the transaction ends.
type Tx struct {
	q     querier
	audit *AuditKeys
	ring  *keyring.Ring
	// outbox holds the webhook events of this transaction, written when it ends (emitWebhooks).
	outbox []outboxEntry
	// chains holds, for each envelope this transaction appended audit entries to, the hash of
	// its last entry (chainEnd).
	chains map[string][]byte
}

// InTx runs fn in one transaction, committed when fn returns nil and rolled back otherwise. A
// constraint the change broke is answered as the domain's error (domainError).
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) error {
	return domainError(pgx.BeginFunc(ctx, s.pool, func(ptx pgx.Tx) error {
		tx := &Tx{q: ptx, audit: s.audit, ring: s.ring}
		if err := fn(tx); err != nil {
			return err
		}
		return tx.writeOutbox(ctx)
	}))
}

// notFound maps pgx.ErrNoRows to the domain's not-found error and wraps everything else.
func notFound(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return envelope.NotFound(what)
	}
	return fmt.Errorf("load %s: %w", what, err)
}

// TableExists reports whether the public schema has a table named name.
func (s *Store) TableExists(ctx context.Context, name string) bool {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT to_regclass('public.' || $1) IS NOT NULL`, name).Scan(&ok)
	return err == nil && ok
}

// CountRows returns the number of rows of a table of Sobre's schema (for tests and metrics).
func (s *Store) CountRows(ctx context.Context, table string) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{table}.Sanitize()).Scan(&n); err != nil {
		return 0, fmt.Errorf("count rows of %s: %w", table, err)
	}
	return n, nil
}

func jsonUnmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode stored json: %w", err)
	}
	return nil
}
