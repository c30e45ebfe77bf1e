package workflows

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"

	"github.com/sobre-sign/sobre/envelope"
)

// A rejection the store recorded but whose Update Temporal aborted (a workflow task lost under
// load) leaves the workflow's view without it; once the view is read again (another signer's
// completion, a refresh, a pickup run) the recipient is REJECTED there. The envelope must then
// end REJECTED, not wait for ever with a rejected recipient (a cancel coming later would end it
// CANCELLED).
func TestARecordedRejectionWhoseUpdateWasAbortedEndsTheEnvelope(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil), rec(3, envelope.RoleSigner, nil))
	env := newEnv(t, b)
	env.RegisterDelayedCallback(func() {
		// The first delivery of recipient 1's rejection: recorded, then aborted.
		b.mu.Lock()
		b.snap.Recipients[0].SigningStatus = envelope.SigningStatusRejected
		b.mu.Unlock()
	}, 30*time.Minute)
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
	// The same rejection delivered again is answered as the envelope's status says (its request
	// is not recorded, unlike a completion's: decidedByThis).
	update(t, env, 2*time.Hour, UpdateReject, RejectRequest{RecipientID: 1, Reason: "wrong amount"}, true)
	update(t, env, 3*time.Hour, UpdateCancel, CancelRequest{Reason: "late"}, true)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.finished, []envelope.Status{envelope.StatusRejected}) {
		t.Errorf("finished %v, want [REJECTED]", b.finished)
	}
}

// A pickup run (the run before was lost between the rejection and its ending) finds a REJECTED
// recipient in a PENDING envelope: it ends the envelope REJECTED.
func TestAPickupRunEndsAnEnvelopeWithARecordedRejection(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil))
	b.snap.Status = envelope.StatusPending
	b.snap.Recipients[0].SigningStatus = envelope.SigningStatusRejected
	b.snap.Recipients[0].SendStatus, b.snap.Recipients[1].SendStatus = envelope.SendStatusSent, envelope.SendStatusSent
	env := newEnv(t, b, func(env *testsuite.TestWorkflowEnvironment) {
		env.OnActivity(acts.LoadPickup, mock.Anything, mock.Anything).Return(envelope.Pickup{}, nil)
	})
	update(t, env, time.Hour, UpdateCancel, CancelRequest{Reason: "late"}, true)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test", Pickup: true})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.finished, []envelope.Status{envelope.StatusRejected}) {
		t.Errorf("finished %v, want [REJECTED]", b.finished)
	}
}
