// Snapshots: the state of an envelope that its workflow decides on.

package persistence

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/keyring"
)

// Snapshot is an envelope as its workflow sees it: status, meta, owner and recipients.
type Snapshot struct {
	EnvelopeID string
	TeamID     int64
	Title      string
	Status     envelope.Status
	Meta       envelope.Meta
	OwnerName  string
	OwnerEmail string
	Recipients []envelope.Recipient
	// LinkVersions counts the replacements of each recipient's signing link, by recipient id
	// (envelope.Recipient.LinkVersion): the workflow mails a replaced link again.
	LinkVersions map[int64]int `json:",omitempty"`
	// CodeLocks are the recipients whose access-code entry is locked (the workflow mails the
	// owner once per lock).
	CodeLocks []CodeLock `json:",omitempty"`
	// IdentityMismatches are the recipients whose expected RUN was refused to a proof (the
	// workflow mails the owner once per RUN refused).
	IdentityMismatches []IdentityMismatch `json:",omitempty"`
	// DirectVisitor is the recipient a direct link's visitor became, for a document made
	// through one (the workflow mails the owner, ownerDocumentCreated); 0 for any other.
	DirectVisitor int64 `json:",omitempty"`
}

// Participants returns the recipients as the signing-order rules read them.
func (s Snapshot) Participants() []envelope.Participant {
	return envelope.Participants(s.Recipients)
}

// Recipient returns the recipient with id, or nil.
func (s Snapshot) Recipient(id int64) *envelope.Recipient {
	return envelope.FindRecipient(s.Recipients, id)
}

// LoadSnapshot reads envelope id for its workflow (no team scope: the workflow acts for Sobre).
func (s *Store) LoadSnapshot(ctx context.Context, id string) (Snapshot, error) {
	return loadSnapshot(ctx, s.pool, s.ring, id)
}

func loadSnapshot(ctx context.Context, q querier, ring *keyring.Ring, id string) (Snapshot, error) {
	var r snapshotRead
	b := &pgx.Batch{}
	r.queue(b, ring, id)
	if err := q.SendBatch(ctx, b).Close(); err != nil {
		return Snapshot{}, fmt.Errorf("load the snapshot of %s: %w", id, err)
	}
	return r.result()
}

// lockSnapshot locks the envelope row and reads the snapshot in the transaction, in one round
// trip: the reads run after the lock is taken, so they see what the last holder committed.
func (tx *Tx) lockSnapshot(ctx context.Context, id string) (Snapshot, error) {
	locked := false
	b := &pgx.Batch{}
	b.Queue(`SELECT true FROM envelopes WHERE id = $1 FOR UPDATE`, id).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&locked)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	var r snapshotRead
	r.queue(b, tx.ring, id)
	if err := tx.q.SendBatch(ctx, b).Close(); err != nil {
		return Snapshot{}, fmt.Errorf("lock and load the snapshot of %s: %w", id, err)
	}
	if !locked {
		return Snapshot{}, envelope.NotFound("Envelope")
	}
	return r.result()
}

// snapshotRead is a snapshot read by the queries queue adds to a batch.
type snapshotRead struct {
	one        oneEnvelope
	locks      []CodeLock
	mismatches []IdentityMismatch
	visitor    int64
}

// queue adds to b the reads of envelope id's snapshot.
func (r *snapshotRead) queue(b *pgx.Batch, ring *keyring.Ring, id string) {
	r.one.queue(b, ring, id, false, "")
	queueCodeLocks(b, id, &r.locks)
	queueIdentityMismatches(b, id, &r.mismatches)
	queueDirectVisitor(b, id, &r.visitor)
}

// result is the snapshot read, once the batch has run.
func (r *snapshotRead) result() (Snapshot, error) {
	e, err := r.one.result()
	if err != nil {
		return Snapshot{}, err
	}
	snap := Snapshot{EnvelopeID: e.ID, TeamID: e.TeamID, Title: e.Title, Status: e.Status, Meta: e.Meta,
		OwnerName: e.User.Name, OwnerEmail: e.User.Email, Recipients: e.Recipients, CodeLocks: r.locks, IdentityMismatches: r.mismatches,
		LinkVersions: map[int64]int{}, DirectVisitor: r.visitor}
	for _, rec := range e.Recipients {
		if rec.LinkVersion > 0 {
			snap.LinkVersions[rec.ID] = rec.LinkVersion
		}
	}
	return snap, nil
}
