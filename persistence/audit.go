// Audit entries: appending them under the envelope's lock, and reading them.

package persistence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// AppendAudit adds entry (built by one of envelope's audit constructors) to the audit log of
// envelope envelopeID, chained to the entry before it (see auditchain.go). It locks the
// envelope's row, so entries of one envelope are written one after another; callers that change
// other rows of the envelope lock it first (LockEnvelope, lockSnapshot) so that locks are always
// taken in that order.
func (tx *Tx) AppendAudit(ctx context.Context, envelopeID string, entry envelope.Audit, a envelope.Actor) error {
	typ := string(entry.Type)
	if typ == "" {
		return fmt.Errorf("append an audit entry without a type to %s", envelopeID)
	}
	prev, err := tx.chainEnd(ctx, envelopeID)
	if err != nil {
		return err
	}
	a = a.Capped()
	raw, err := json.Marshal(entry.Data)
	if err != nil {
		return fmt.Errorf("encode audit data %s: %w", typ, err)
	}
	created := time.Now().UTC().Truncate(time.Microsecond)
	c := auditContent{CreatedAt: canonicalTime(created), EnvelopeID: envelopeID, ID: newCUID(), Type: typ,
		Name: a.Name, Email: a.Email, UserID: a.UserID, UserAgent: a.UserAgent, IPAddress: a.IPAddress}
	content, err := canonical(c, raw)
	if err != nil {
		return err
	}
	hash := chainHash(prev, content)
	var mac []byte
	var macKey *string
	if tx.audit != nil {
		id := tx.audit.PrimaryID()
		mac, _ = tx.audit.mac(id, envelopeID, hash)
		macKey = &id
	}
	_, err = tx.q.Exec(ctx, `INSERT INTO audit_logs (id, envelope_id, created_at, type, data, name, email, user_id, user_agent, ip_address, prev_hash, hash, mac, mac_key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, c.ID, envelopeID, created, typ, raw, a.Name, a.Email, a.UserID,
		a.UserAgent, a.IPAddress, prev, hash, mac, macKey)
	if err != nil {
		return fmt.Errorf("append audit %s to %s: %w", typ, envelopeID, err)
	}
	tx.chains[envelopeID] = hash
	return nil
}

// chainEnd locks the envelope's row and returns the hash of its last audit entry (zeroHash for
// none), in one round trip; in a transaction that appended to the chain before, it is the hash
// that append wrote, with no round trip: the row lock, held until the transaction ends, keeps
// every other writer of the chain out.
//
// The lock and the read are two statements sent together, not one: a statement that waits for
// the lock reads with the snapshot it took before waiting, so a single SELECT … FOR UPDATE would
// miss the entry the lock's holder appended and chain after the one before it. The read, a
// statement of its own, takes its snapshot once the lock is held.
func (tx *Tx) chainEnd(ctx context.Context, envelopeID string) ([]byte, error) {
	if prev, ok := tx.chains[envelopeID]; ok {
		return prev, nil
	}
	var batch pgx.Batch
	var lockErr error
	batch.Queue(`SELECT id FROM envelopes WHERE id = $1 FOR UPDATE`, envelopeID).QueryRow(func(row pgx.Row) error {
		var id string
		lockErr = row.Scan(&id)
		return lockErr
	})
	prev := zeroHash
	batch.Queue(`SELECT hash FROM audit_logs WHERE envelope_id = $1 ORDER BY seq DESC LIMIT 1`, envelopeID).QueryRow(func(row pgx.Row) error {
		var hash []byte
		if err := row.Scan(&hash); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			return fmt.Errorf("read the audit chain of %s: %w", envelopeID, err)
		}
		if hash != nil {
			prev = hash
		}
		return nil
	})
	if err := tx.q.SendBatch(ctx, &batch).Close(); err != nil {
		if lockErr != nil {
			return nil, notFound(lockErr, "Envelope")
		}
		return nil, err
	}
	if tx.chains == nil {
		tx.chains = map[string][]byte{}
	}
	return prev, nil
}

// Record writes what event ev says happened to its envelope: its audit entry (ev.Audit()), by a,
// and its webhook events (ev.WebhookEvents()) to the outbox.
func (tx *Tx) Record(ctx context.Context, ev envelope.Event, a envelope.Actor) error {
	entry := ev.Audit()
	if entry.Type == "" {
		return fmt.Errorf("record a %s event of %s: it lacks what its kind records", ev.Kind, ev.EnvelopeID)
	}
	if err := tx.AppendAudit(ctx, ev.EnvelopeID, entry, a); err != nil {
		return err
	}
	return tx.emitWebhooks(ctx, ev.EnvelopeID, ev.At, ev.WebhookEvents()...)
}

// lockEnvelopeRow locks the envelope's row until the transaction ends.
func (tx *Tx) lockEnvelopeRow(ctx context.Context, envelopeID string) error {
	var id string
	if err := tx.q.QueryRow(ctx, `SELECT id FROM envelopes WHERE id = $1 FOR UPDATE`, envelopeID).Scan(&id); err != nil {
		return notFound(err, "Envelope")
	}
	return nil
}

// AuditPage is one page of an envelope's audit log, with the total count; without Sobre's own
// entry types (envelope.AuditType.Extension) unless extensions.
func (s *Store) AuditPage(ctx context.Context, sc Scope, envelopeID string, page, perPage int, ascending, extensions bool) ([]envelope.AuditEntry, int, error) {
	if _, err := s.EnvelopeRef(ctx, sc, envelopeID); err != nil {
		return nil, 0, err
	}
	hidden := []string{}
	if !extensions {
		for _, t := range envelope.ExtensionAuditTypes() {
			hidden = append(hidden, string(t))
		}
	}
	var count int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM audit_logs WHERE envelope_id = $1 AND NOT type = ANY($2)`, envelopeID, hidden).Scan(&count); err != nil {
		return nil, 0, fmt.Errorf("count audit entries of %s: %w", envelopeID, err)
	}
	order := "DESC"
	if ascending {
		order = "ASC"
	}
	rows, err := s.pool.Query(ctx, `SELECT id, created_at, envelope_id, type, data, name, email, user_id, user_agent, ip_address
		FROM audit_logs WHERE envelope_id = $1 AND NOT type = ANY($4) ORDER BY created_at `+order+`, seq `+order+` LIMIT $2 OFFSET $3`,
		envelopeID, perPage, (page-1)*perPage, hidden)
	if err != nil {
		return nil, 0, fmt.Errorf("load audit entries of %s: %w", envelopeID, err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (envelope.AuditEntry, error) {
		var e envelope.AuditEntry
		var raw []byte
		if err := row.Scan(&e.ID, &e.CreatedAt, &e.EnvelopeID, &e.Type, &raw, &e.Name, &e.Email, &e.UserID, &e.UserAgent, &e.IPAddress); err != nil {
			return e, err
		}
		return e, json.Unmarshal(raw, &e.Data)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("read audit entries of %s: %w", envelopeID, err)
	}
	return list, count, nil
}

// AuditTypes returns the types of an envelope's audit entries, oldest first.
func (s *Store) AuditTypes(ctx context.Context, envelopeID string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT type FROM audit_logs WHERE envelope_id = $1 ORDER BY seq`, envelopeID)
	if err != nil {
		return nil, fmt.Errorf("audit types of %s: %w", envelopeID, err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
