package envelope

import "time"

// The envelope as its workflow holds it. Everything the workflow holds is kept in its Temporal
// history (in Temporal's database and its Web UI), so these types have no place for a signing
// token, an access code, a session or an expected RUN: those stay in the store, and the mail
// activity reads a recipient's signing link there when it writes the mail. Their JSON names are
// those of the workflow's first releases, so that recorded histories still decode.

// Progress is an envelope as its workflow holds it: its status, its documentMeta and its
// recipients, without the owner, the title or any secret.
type Progress struct {
	EnvelopeID string
	Status     Status
	Meta       Meta
	Recipients []ProgressRecipient
	// LinkVersions counts the replacements of each recipient's signing link, by recipient id:
	// the workflow mails a replaced link again.
	LinkVersions map[int64]int `json:",omitempty"`
	// CodeLocks are the recipients whose access-code entry is locked (the owner is mailed once
	// per lock).
	CodeLocks []CodeLock `json:",omitempty"`
	// IdentityMismatches are the recipients whose expected RUN was refused to a proof (the
	// owner is mailed once per RUN refused).
	IdentityMismatches []IdentityMismatch `json:",omitempty"`
	// DirectVisitor is the recipient a direct link's visitor became, for a document made
	// through one; 0 for any other.
	DirectVisitor int64 `json:",omitempty"`
}

// ProgressRecipient is a recipient as the envelope workflow holds it: what the signing-order
// rules and the mails need. Its JSON names are Recipient's.
type ProgressRecipient struct {
	ID            int64         `json:"id"`
	Email         string        `json:"email"` // whether the recipient is mailed; the address of a removed recipient's mail
	Name          string        `json:"name"`
	Role          Role          `json:"role"`
	SigningStatus SigningStatus `json:"signingStatus"`
	SendStatus    SendStatus    `json:"sendStatus"`
	SigningOrder  *int          `json:"signingOrder"`
	ExpiresAt     *time.Time    `json:"expiresAt"`
	// DecidedBy names the request that recorded the recipient's completion or rejection
	// (Recipient.OutcomeRequest).
	DecidedBy string `json:"decidedBy,omitempty"`
	// RejectionReason is why a REJECTED recipient rejected (Recipient.RejectionReason).
	RejectionReason string `json:"rejectionReason,omitempty"`
}

// CodeLock is one lock of a recipient's access-code entry; Lock numbers the locks of the
// recipient.
type CodeLock struct {
	RecipientID int64
	Lock        int
}

// IdentityMismatch counts the RUNs refused to a recipient because they were not the expected
// one.
type IdentityMismatch struct {
	RecipientID int64
	RUNs        int
}

// ProgressOf is r as the workflow holds it.
func ProgressOf(r Recipient) ProgressRecipient {
	p := ProgressRecipient{ID: r.ID, Email: r.Email, Name: r.Name, Role: r.Role, SigningStatus: r.SigningStatus,
		SendStatus: r.SendStatus, SigningOrder: r.SigningOrder, ExpiresAt: r.ExpiresAt}
	if r.OutcomeRequest != nil {
		p.DecidedBy = *r.OutcomeRequest
	}
	if r.RejectionReason != nil {
		p.RejectionReason = *r.RejectionReason
	}
	return p
}

// ProgressOfAll is list as the workflow holds it (nil for nil).
func ProgressOfAll(list []Recipient) []ProgressRecipient {
	if list == nil {
		return nil
	}
	out := make([]ProgressRecipient, len(list))
	for i, r := range list {
		out[i] = ProgressOf(r)
	}
	return out
}

// EventRecipient is recipient id as the workflow's events name them: what p holds of them, or
// their id alone when p no longer holds them. The store records the events it writes with the
// whole recipient.
func (p Progress) EventRecipient(id int64) Recipient {
	out := Recipient{ID: id, EnvelopeID: p.EnvelopeID}
	if r := p.Recipient(id); r != nil {
		out.Email, out.Name, out.Role, out.SigningOrder, out.ExpiresAt = r.Email, r.Name, r.Role, r.SigningOrder, r.ExpiresAt
		out.SigningStatus, out.SendStatus = r.SigningStatus, r.SendStatus
	}
	return out
}

// Participant is the recipient as the signing-order rules read them.
func (r ProgressRecipient) Participant() Participant {
	return Participant{ID: r.ID, Role: r.Role, SigningOrder: r.SigningOrder, Status: r.SigningStatus, ExpiresAt: r.ExpiresAt}
}

// Participants returns the recipients as the signing-order rules read them.
func (p Progress) Participants() []Participant {
	out := make([]Participant, 0, len(p.Recipients))
	for _, r := range p.Recipients {
		out = append(out, r.Participant())
	}
	return out
}

// Recipient returns the recipient with id, or nil.
func (p Progress) Recipient(id int64) *ProgressRecipient {
	for i := range p.Recipients {
		if p.Recipients[i].ID == id {
			return &p.Recipients[i]
		}
	}
	return nil
}
