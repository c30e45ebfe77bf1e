package activities_test

import (
	"testing"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
)

// Every distinct notice has its own Message-ID (mail_log drops a repeated one as already sent),
// and the same notice keeps its id.
func TestMessageIDsAreDistinct(t *testing.T) {
	env := "envelope_abc"
	notices := []envelope.Mailing{
		{Kind: envelope.MailSigningRequest, EnvelopeID: env, RecipientID: 1},
		{Kind: envelope.MailSigningRequest, EnvelopeID: env, RecipientID: 2},
		{Kind: envelope.MailReminder, EnvelopeID: env, RecipientID: 1, Seq: 1},
		{Kind: envelope.MailReminder, EnvelopeID: env, RecipientID: 1, Seq: 2},
		{Kind: envelope.MailRecipientSigned, EnvelopeID: env, ActorID: 1},
		{Kind: envelope.MailRecipientSigned, EnvelopeID: env, ActorID: 2},
		{Kind: envelope.MailOwnerExpired, EnvelopeID: env, ActorID: 1},
		{Kind: envelope.MailOwnerExpired, EnvelopeID: env, ActorID: 2},
		{Kind: envelope.MailDocumentCompleted, EnvelopeID: env, RecipientID: 1},
		{Kind: envelope.MailRejectionConfirmed, EnvelopeID: env, RecipientID: 1, ActorID: 1},
	}
	seen := map[string]envelope.Mailing{}
	for _, n := range notices {
		id := activities.MessageID(n, "sign.example.cl")
		if prev, ok := seen[id]; ok {
			t.Errorf("%+v and %+v share Message-ID %s", prev, n, id)
		}
		seen[id] = n
		if again := activities.MessageID(n, "sign.example.cl"); again != id {
			t.Errorf("Message-ID changed between attempts: %s, %s", id, again)
		}
	}
	// Notices about nobody keep the form they always had.
	if got := activities.MessageID(notices[0], "sign.example.cl"); got != "signing_request.abc.1.0@sign.example.cl" {
		t.Errorf("Message-ID %s", got)
	}
}
