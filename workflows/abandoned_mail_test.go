package workflows

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/sobre-sign/sobre/envelope"
)

// A run that decided its envelope is abandoned still lives while the mails of its last step are
// in flight (the owner's expiry notice, behind a relay that answers "try later"). An Update it
// accepts then is acted on, as at any other time: a redistribute mails the request it renewed
// the deadline for, and the revived envelope's run goes on until it is cancelled.
func TestAnUpdateWhileTheAbandonedRunWaitsForItsMailsIsActedOn(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil))
	week := 7 * 24 * time.Hour
	b.snap.Meta.EnvelopeExpirationPeriod = &envelope.ExpirationPeriod{Duration: envelope.Duration{Unit: envelope.UnitWeek, Amount: 1}}
	env := newEnv(t, b)
	relayBackAt := b.start.Add(week + 6*time.Minute)
	b.mailErr = func(n envelope.Mailing) error {
		if n.Kind == envelope.MailOwnerExpired && env.Now().Before(relayBackAt) {
			return errors.New("451 try again later")
		}
		return nil
	}
	env.OnActivity(acts.RenewDeadlines, mock.Anything, mock.Anything).Return(func(_ context.Context, in envelope.Renewal) ([]envelope.ProgressRecipient, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.snap.Recipients[0].ExpiresAt, b.snap.Recipients[0].ExpirationNotifiedAt = in.ExpiresAt, nil
		b.expired = nil
		return []envelope.ProgressRecipient{envelope.ProgressOf(b.snap.Recipients[0])}, nil
	})
	update(t, env, week+3*time.Minute, UpdateResend, ResendRequest{RecipientIDs: []int64{1}}, false)
	update(t, env, week+3*24*time.Hour, UpdateCancel, CancelRequest{Reason: "done"}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	resent := slices.ContainsFunc(b.mails, func(n envelope.Mailing) bool {
		return n.Kind == envelope.MailSigningRequest && n.Seq == resendSeq+1
	})
	if !resent {
		t.Errorf("the redistribute was answered, its deadline renewed, but its request never mailed (mails %v)", b.mails)
	}
	if !slices.Equal(b.finished, []envelope.Status{envelope.StatusCancelled}) {
		t.Errorf("finished %v: the revived envelope's run ended before its cancel", b.finished)
	}
}
