package activities

import (
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// The workflow's view of an envelope. Every activity result is kept in the workflow's history
// (by Temporal, in its database and its Web UI), so the activities answer with these types,
// which have no place for a signing token, an access code, a session or an expected RUN: those
// stay in PostgreSQL, and SendNotice reads the signing link there when it writes the mail.

// Recipient is a recipient as the envelope workflow holds it: what the signing-order rules and
// the mails need. Its JSON names are envelope.Recipient's, so that histories written when
// activities returned whole recipients still decode.
type Recipient struct {
	ID            int64                  `json:"id"`
	Email         string                 `json:"email"` // whether the recipient is mailed; the address of a removed recipient's mail
	Name          string                 `json:"name"`
	Role          envelope.Role          `json:"role"`
	SigningStatus envelope.SigningStatus `json:"signingStatus"`
	SendStatus    envelope.SendStatus    `json:"sendStatus"`
	SigningOrder  *int                   `json:"signingOrder"`
	ExpiresAt     *time.Time             `json:"expiresAt"`
}

// RecipientOf is r as the workflow holds it.
func RecipientOf(r envelope.Recipient) Recipient {
	return Recipient{ID: r.ID, Email: r.Email, Name: r.Name, Role: r.Role, SigningStatus: r.SigningStatus,
		SendStatus: r.SendStatus, SigningOrder: r.SigningOrder, ExpiresAt: r.ExpiresAt}
}

// RecipientsOf is list as the workflow holds it.
func RecipientsOf(list []envelope.Recipient) []Recipient {
	if list == nil {
		return nil
	}
	out := make([]Recipient, len(list))
	for i, r := range list {
		out[i] = RecipientOf(r)
	}
	return out
}

// Snapshot is an envelope as its workflow holds it (persistence.Snapshot without the owner,
// the title and the recipients' secrets). Its JSON names are persistence.Snapshot's.
type Snapshot struct {
	EnvelopeID string
	Status     envelope.Status
	Meta       envelope.Meta
	Recipients []Recipient
	// LinkVersions counts the replacements of each recipient's signing link, by recipient id:
	// the workflow mails a replaced link again.
	LinkVersions map[int64]int `json:",omitempty"`
	// CodeLocks are the recipients whose access-code entry is locked (the owner is mailed once
	// per lock).
	CodeLocks []persistence.CodeLock `json:",omitempty"`
	// IdentityMismatches are the recipients whose expected RUN was refused to a proof (the
	// owner is mailed once per RUN refused).
	IdentityMismatches []persistence.IdentityMismatch `json:",omitempty"`
}

// SnapshotOf is s as the workflow holds it.
func SnapshotOf(s persistence.Snapshot) Snapshot {
	return Snapshot{EnvelopeID: s.EnvelopeID, Status: s.Status, Meta: s.Meta, Recipients: RecipientsOf(s.Recipients),
		LinkVersions: s.LinkVersions, CodeLocks: s.CodeLocks, IdentityMismatches: s.IdentityMismatches}
}

// Participants returns the recipients as the signing-order rules read them.
func (s Snapshot) Participants() []envelope.Participant {
	out := make([]envelope.Participant, 0, len(s.Recipients))
	for _, r := range s.Recipients {
		out = append(out, envelope.Participant{ID: r.ID, Role: r.Role, SigningOrder: r.SigningOrder, Status: r.SigningStatus, ExpiresAt: r.ExpiresAt})
	}
	return out
}

// Recipient returns the recipient with id, or nil.
func (s Snapshot) Recipient(id int64) *Recipient {
	for i := range s.Recipients {
		if s.Recipients[i].ID == id {
			return &s.Recipients[i]
		}
	}
	return nil
}
