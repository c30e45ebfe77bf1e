package workflows

import (
	"errors"
	"slices"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/sobre-sign/sobre/envelope"
)

// A distribute is answered once the envelope is PENDING and its requests are queued, not once
// they are sent (as Documenso answers before its mail jobs run): here the relay turns each
// request away nine times (8.5 minutes of retries), and the answer still comes at once in the workflow's
// time, with no request sent yet; the requests go out after. A run of currentShape version 1
// waited for them, up to handlerWaitLimit.
func TestDistributeAnswersBeforeTheMails(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil))
	env := newEnv(t, b)
	turnedAway := map[int64]int{}
	b.mailErr = func(n envelope.Mailing) error {
		if n.Kind == envelope.MailSigningRequest && turnedAway[n.RecipientID] < 9 { // 8.5 minutes of retries
			turnedAway[n.RecipientID]++
			return errors.New("451 4.3.0 try later")
		}
		return nil
	}
	const at = time.Second
	var answeredAt time.Time
	var requestsAtAnswer []int64
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateDistribute, "distribute", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Errorf("distribute rejected: %v", err) },
			OnAccept: func() {},
			OnComplete: func(_ any, err error) {
				if err != nil {
					t.Errorf("distribute: %v", err)
				}
				answeredAt, requestsAtAnswer = env.Now(), b.mailsOf(envelope.MailSigningRequest)
			},
		})
	}, at)
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	update(t, env, 2*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("workflow: completed %v, error %v", env.IsWorkflowCompleted(), env.GetWorkflowError())
	}
	if answeredAt.IsZero() {
		t.Fatal("distribute was never answered")
	}
	if took := answeredAt.Sub(b.start) - at; took >= handlerWaitLimit || len(requestsAtAnswer) != 0 {
		t.Errorf("distribute answered %s after it was sent, with requests sent to %v; want at once, before any", took, requestsAtAnswer)
	}
	if got := b.mailsOf(envelope.MailSigningRequest); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("signing requests to %v, want [1 2] once the relay took them", got)
	}
}
