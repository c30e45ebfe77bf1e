package activities_test

import (
	"testing"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/mail"
)

// Every distinct notice has its own Message-ID (mail_log drops a repeated one as already sent),
// and the same notice keeps its id.
func TestMessageIDsAreDistinct(t *testing.T) {
	env := "envelope_abc"
	notices := []activities.Notice{
		{Kind: mail.SigningRequest, EnvelopeID: env, RecipientID: 1},
		{Kind: mail.SigningRequest, EnvelopeID: env, RecipientID: 2},
		{Kind: mail.Reminder, EnvelopeID: env, RecipientID: 1, Seq: 1},
		{Kind: mail.Reminder, EnvelopeID: env, RecipientID: 1, Seq: 2},
		{Kind: mail.RecipientSigned, EnvelopeID: env, ActorID: 1},
		{Kind: mail.RecipientSigned, EnvelopeID: env, ActorID: 2},
		{Kind: mail.OwnerExpired, EnvelopeID: env, ActorID: 1},
		{Kind: mail.OwnerExpired, EnvelopeID: env, ActorID: 2},
		{Kind: mail.DocumentCompleted, EnvelopeID: env, RecipientID: 1},
		{Kind: mail.RejectionConfirmed, EnvelopeID: env, RecipientID: 1, ActorID: 1},
	}
	seen := map[string]activities.Notice{}
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
