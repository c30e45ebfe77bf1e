package workflows

import (
	"errors"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/sobre-sign/sobre/envelope"
)

// An Update that reaches the workflow once its ending is decided (while it seals, say) or done is
// refused with the ending's code and the message callers have always been shown.
func TestActingRefusedOnceEnded(t *testing.T) {
	tests := []struct {
		name     string
		r        run
		wantCode envelope.Code
		wantMsg  string
	}{
		{"running", run{initialized: true, snap: envelope.Progress{Status: envelope.StatusPending}}, "", ""},
		{"completion decided, sealing", run{initialized: true, snap: envelope.Progress{Status: envelope.StatusPending},
			end: &ending{status: envelope.StatusCompleted}}, envelope.CodeEnvelopeCompleted, "The envelope is COMPLETED"},
		{"rejection decided", run{initialized: true, snap: envelope.Progress{Status: envelope.StatusPending},
			end: &ending{status: envelope.StatusRejected}}, envelope.CodeEnvelopeRejected, "The envelope is REJECTED"},
		{"deleted", run{initialized: true, snap: envelope.Progress{Status: envelope.StatusPending},
			end: &ending{status: envelope.StatusCancelled, deleted: true}}, envelope.CodeEnvelopeCancelled, "The envelope is CANCELLED"},
		{"finished", run{initialized: true, finished: true, snap: envelope.Progress{Status: envelope.StatusCancelled}},
			envelope.CodeEnvelopeCancelled, "The envelope is CANCELLED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.r.acting()
			if tt.wantCode == "" {
				if err != nil {
					t.Fatalf("acting() = %v, want nil", err)
				}
				return
			}
			var app *temporal.ApplicationError
			if !errors.As(err, &app) {
				t.Fatalf("acting() = %v, want an application error", err)
			}
			if app.Type() != string(tt.wantCode) || app.Message() != tt.wantMsg {
				t.Errorf("acting() = %s %q, want %s %q", app.Type(), app.Message(), tt.wantCode, tt.wantMsg)
			}
		})
	}
}

// A completion Temporal aborted after its signature was recorded (a workflow task lost under
// load), delivered again by the client with the same Update id, is answered as done; another
// request for the same recipient is refused as already signed.
func TestAnAbortedCompletionDeliveredAgainIsDone(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil))
	first := "completion-1"
	b.snap.Recipients[0].SigningStatus, b.snap.Recipients[0].OutcomeRequest = envelope.SigningStatusSigned, &first
	env := newEnv(t, b)
	outcome := map[string]error{}
	deliver := func(delay time.Duration, id string) {
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateComplete, id, &testsuite.TestUpdateCallback{
				OnReject:   func(err error) { outcome[id] = err },
				OnAccept:   func() {},
				OnComplete: func(_ interface{}, err error) { outcome[id] = err },
			}, CompleteRequest{RecipientID: 1})
		}, delay)
	}
	deliver(time.Minute, first)
	deliver(2*time.Minute, "completion-2")
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if err, ok := outcome[first]; !ok || err != nil {
		t.Errorf("the same completion delivered again: %v (answered %v), want done", err, ok)
	}
	var app *temporal.ApplicationError
	if err := outcome["completion-2"]; !errors.As(err, &app) || app.Type() != string(envelope.CodeRecipientAlreadySigned) {
		t.Errorf("another completion of the same recipient: %v, want RECIPIENT_ALREADY_SIGNED", err)
	}
}

// A rejection Temporal aborted after the store recorded it, delivered again with the same Update
// id, is answered as done, and the envelope ends REJECTED by it; a rejection by another request
// is refused.
func TestAnAbortedRejectionDeliveredAgainIsDone(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil))
	first := "rejection-1"
	reason := "no"
	b.snap.Recipients[0].SigningStatus, b.snap.Recipients[0].OutcomeRequest, b.snap.Recipients[0].RejectionReason = envelope.SigningStatusRejected, &first, &reason
	env := newEnv(t, b)
	outcome := map[string]error{}
	deliver := func(delay time.Duration, id string) {
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateReject, id, &testsuite.TestUpdateCallback{
				OnReject:   func(err error) { outcome[id] = err },
				OnAccept:   func() {},
				OnComplete: func(_ interface{}, err error) { outcome[id] = err },
			}, RejectRequest{RecipientID: 1, Reason: reason})
		}, delay)
	}
	// Both arrive as the run starts: the store's view already holds the rejection.
	deliver(0, first)
	deliver(0, "rejection-2")
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if err, ok := outcome[first]; !ok || err != nil {
		t.Errorf("the same rejection delivered again: %v (answered %v), want done", err, ok)
	}
	if outcome["rejection-2"] == nil {
		t.Error("another rejection of the same recipient was answered as done")
	}
	if len(b.finished) != 1 || b.finished[0] != envelope.StatusRejected {
		t.Errorf("finished %v, want REJECTED", b.finished)
	}
}
