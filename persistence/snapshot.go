// Snapshots: the state of an envelope that its workflow decides on.

package persistence

import (
	"context"
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
	var (
		one        oneEnvelope
		locks      []CodeLock
		mismatches []IdentityMismatch
		visitor    int64
	)
	b := &pgx.Batch{}
	one.queue(b, ring, id, false, "")
	queueCodeLocks(b, id, &locks)
	queueIdentityMismatches(b, id, &mismatches)
	queueDirectVisitor(b, id, &visitor)
	if err := q.SendBatch(ctx, b).Close(); err != nil {
		return Snapshot{}, fmt.Errorf("load the snapshot of %s: %w", id, err)
	}
	e, err := one.result()
	if err != nil {
		return Snapshot{}, err
	}
	snap := Snapshot{EnvelopeID: e.ID, TeamID: e.TeamID, Title: e.Title, Status: e.Status, Meta: e.Meta,
		OwnerName: e.User.Name, OwnerEmail: e.User.Email, Recipients: e.Recipients, CodeLocks: locks, IdentityMismatches: mismatches,
		LinkVersions: map[int64]int{}, DirectVisitor: visitor}
	for _, r := range e.Recipients {
		if r.LinkVersion > 0 {
			snap.LinkVersions[r.ID] = r.LinkVersion
		}
	}
	return snap, nil
}

// lockSnapshot locks the envelope row and reads the snapshot in the transaction.
func (tx *Tx) lockSnapshot(ctx context.Context, id string) (Snapshot, error) {
	var status envelope.Status
	if err := tx.q.QueryRow(ctx, `SELECT status FROM envelopes WHERE id = $1 FOR UPDATE`, id).Scan(&status); err != nil {
		return Snapshot{}, notFound(err, "Envelope")
	}
	return loadSnapshot(ctx, tx.q, tx.ring, id)
}
