package envelope

import "time"

// Pickup is what a new run of an envelope's workflow reads from the store, besides the envelope
// itself, when the envelope is PENDING already (the run before it ended or was lost): what the
// runs before did, so that it goes on without mailing anything twice.
type Pickup struct {
	TeamID int64
	// Noted are the recipients whose expiry the store noted (ExpiryNoted).
	Noted []int64 `json:",omitempty"`
	// Mailed are the signing requests and reminders of the envelope in the mail log.
	Mailed []Mailed `json:",omitempty"`
}

// Mailed is one mail of the mail log, as its Message-ID names it.
type Mailed struct {
	Kind        Mail
	RecipientID int64
	Seq         int
	At          time.Time // when it was claimed for sending
}
