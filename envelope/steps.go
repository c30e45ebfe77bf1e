package envelope

import "time"

// The steps an envelope's workflow asks its activities to take, as plain data. The workflow's
// history keeps each of them, so they name recipients by id and carry no signing token, access
// code or session secret; their JSON names are those of the workflow's first releases, so that
// recorded histories still decode.

// Distribution moves an envelope to PENDING; ExpiresAt is the deadline of its recipients who
// have none (nil: no deadline).
type Distribution struct {
	EnvelopeID string
	ExpiresAt  *time.Time
}

// Sent records that a recipient was sent the envelope (or a reminder): EmailType names the
// request, Mailed tells whether it went by mail, Resending whether it was sent before.
type Sent struct {
	EnvelopeID  string
	RecipientID int64
	EmailType   string
	Mailed      bool
	Resending   bool
	// ExpiresAt is the recipient's deadline when it has none yet (added while PENDING).
	ExpiresAt *time.Time
}

// MailRefusedType is the type of the error SendNotice ends with when the relay refused a mail
// for good: it recorded the refusal, and the mail is not retried.
const MailRefusedType = "MAIL_REFUSED"

// NextSigner replaces the next recipient's email and name, as the signer who completes may
// dictate when the envelope allows it (allowDictateNextSigner).
type NextSigner struct {
	Email string `json:"email"`
	Name  string `json:"name"`
}

// RecipientCompletion is a recipient's completion (sign, approve, mark viewed) as the workflow asks
// for it.
type RecipientCompletion struct {
	EnvelopeID  string
	RecipientID int64
	Actor       Actor
	NextSigner  *NextSigner
	NextID      int64 // the recipient NextSigner replaces
	Now         time.Time
	// SessionID names the signing session completing (never its secret), empty when the caller
	// has none: its proofs are checked, and recorded as the recipient's identity.
	SessionID string
	// LinkVersion is the version of the signing link the completion came through: a link
	// replaced since completes nothing. Nil (a request of an older release) is not checked.
	LinkVersion *int
	// RequestID names the request (the workflow Update's id): recorded with the completion, so
	// that the same request delivered again is recognised as done.
	RequestID string `json:",omitempty"`
}

// RecipientRejection is a recipient's rejection as the workflow asks for it.
type RecipientRejection struct {
	EnvelopeID  string
	RecipientID int64
	Reason      string
	Actor       Actor
	External    bool   // recorded through the API on the recipient's behalf
	OnBehalfOf  *Actor // the team member the API call is attributed to
	Now         time.Time
	// LinkVersion is the version of the signing link a recipient's own rejection came through:
	// a link replaced since rejects nothing. Not checked when External or nil.
	LinkVersion *int
	// RequestID names the request (the workflow Update's id): recorded with the rejection, so
	// that the same request delivered again is recognised as done.
	RequestID string `json:",omitempty"`
}

// Ending is an ending event (CompletedEvent, RejectedEvent, CancelledEvent) as the workflow hands
// it to the store, which ends the envelope in the event's status (Event.Ending) and records it, by
// Actor. It holds what an ending event holds: it names no recipient but by id.
type Ending struct {
	EnvelopeID    string
	Kind          EventKind
	At            time.Time
	Reason        string
	TransactionID string
	RejectedBy    int64
	Actor         Actor
}

// EndingOf is ending event ev done by a, as the workflow hands it on.
func EndingOf(ev Event, a Actor) Ending {
	return Ending{EnvelopeID: ev.EnvelopeID, Kind: ev.Kind, At: ev.At, Reason: ev.Reason, TransactionID: ev.TransactionID,
		RejectedBy: ev.RejectedBy, Actor: a}
}

// Event is the ending event e hands on.
func (e Ending) Event() Event {
	return Event{Kind: e.Kind, EnvelopeID: e.EnvelopeID, At: e.At, Reason: e.Reason, TransactionID: e.TransactionID, RejectedBy: e.RejectedBy}
}

// Renewal gives recipients sent the envelope again a new deadline (nil: none).
type Renewal struct {
	EnvelopeID   string
	RecipientIDs []int64
	ExpiresAt    *time.Time
}

// Mailing is one mail the workflow asks for: a kind, the envelope, who receives it (a
// recipient, or the owner when RecipientID is 0) and a sequence number that makes its
// Message-ID unique (reminders count up). The mail activity reads the addresses and the signing
// link from the store by id.
type Mailing struct {
	Kind        Mail
	EnvelopeID  string
	RecipientID int64
	ActorID     int64 // the recipient who signed, rejected or expired, when the mail is about one
	Seq         int
	Reason      string
	Attach      bool // attach the envelope's PDFs
	// To and ToName address a person who is no longer a recipient (RecipientRemoved).
	To, ToName string
	// Mark, for a request or a reminder, is what sending it records: the recipient SENT and
	// EMAIL_SENT, written once, in the transaction that records the mail sent. Nil for other
	// mails, and for the mails of workflows that record it themselves afterwards.
	Mark *Sent `json:",omitempty"`
}
