package activities

import (
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// parseMessageID reads back what MessageID wrote, and nothing else.
func TestParseMessageIDReadsBackMessageID(t *testing.T) {
	for _, n := range []envelope.Mailing{
		{Kind: envelope.MailSigningRequest, EnvelopeID: "envelope_abc123", RecipientID: 7},
		{Kind: envelope.MailSigningRequest, EnvelopeID: "envelope_abc123", RecipientID: 7, Seq: 103},
		{Kind: envelope.MailReminder, EnvelopeID: "envelope_x", RecipientID: 12345678901, Seq: 4},
		{Kind: envelope.MailOwnerCodeLocked, EnvelopeID: "envelope_x", ActorID: 9, Seq: 2},
		{Kind: envelope.MailRecipientSigned, EnvelopeID: "envelope_x", RecipientID: 3, ActorID: 4},
	} {
		id := MessageID(n, "mail.example.org")
		got, ok := parseMessageID(id)
		want := n
		want.EnvelopeID = ""
		if !ok || got != want {
			t.Errorf("parseMessageID(%q) = %+v %v, want %+v", id, got, ok, want)
		}
	}
	for _, bad := range []string{"", "no-at-sign", "x@h", "reminder.e.1@h", "reminder.e.x.1@h", "reminder.e.1.y@h", "reminder.e.1.2.ax@h"} {
		if got, ok := parseMessageID(bad); ok {
			t.Errorf("parseMessageID(%q) = %+v, want refused", bad, got)
		}
	}
}
