package workflows

import (
	"errors"
	"slices"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// How a seal that gave up waits, by the error it gave up with.
func TestSealGaveUp(t *testing.T) {
	nonRetryable := func(f envelope.SealFailure) error {
		return temporal.NewNonRetryableApplicationError("why", string(f), nil)
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"no seal configured", nonRetryable(envelope.SealNotConfigured), sealRefused},
		{"the audit log does not verify", nonRetryable(envelope.SealChainBroken), sealRefused},
		{"not what was shown", nonRetryable(envelope.SealNotShown), sealRefused},
		{"an unreadable document", nonRetryable(envelope.SealUnreadable), sealRefused},
		{"an unknown refusal", nonRetryable("SEAL_REFUSED_SOMETHING"), sealRefused},
		{"the TSA stayed unavailable", nonRetryable(envelope.SealTSAUnavailable), sealTSA},
		{"a failure that outlasted its retries, given up by the activity", nonRetryable(envelope.SealFailed), sealFailed},
		{"a retryable failure that outlasted the retry policy", temporal.NewApplicationError("down", "SEAL_NOT_CONFIGURED"), sealFailed},
		{"not an application error", errors.New("timeout"), sealFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := sealGaveUp(tt.err); got != tt.want {
				t.Errorf("sealGaveUp(%v) waits %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

// A seal refused because it can never succeed as things stand (no seal configured, an audit log
// that does not verify, a sealed document that would not show what was signed, a document that
// cannot be read) is tried once, the owner is mailed
// once, the envelope stays PENDING, and only the retry-seal signal tries again; meanwhile a
// cancel is refused at once (the envelope is complete), not held behind the seal.
func TestRefusedSealsWaitForTheRetrySignal(t *testing.T) {
	for _, f := range []envelope.SealFailure{envelope.SealNotConfigured, envelope.SealChainBroken, envelope.SealNotShown, envelope.SealUnreadable} {
		t.Run(string(f), func(t *testing.T) {
			b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil))
			refuse := true
			b.sealErr = func() error {
				if refuse {
					return temporal.NewNonRetryableApplicationError("refused", string(f), nil)
				}
				return nil
			}
			env := newEnv(t, b)
			update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
			update(t, env, 3*time.Hour, UpdateCancel, CancelRequest{}, true)
			env.RegisterDelayedCallback(func() {
				b.mu.Lock()
				attempts, finished := b.sealAttempts, len(b.finished)
				b.mu.Unlock()
				if attempts != 1 || finished != 0 {
					t.Errorf("a week after the refusal: %d seal attempts, %d endings; want 1 and 0", attempts, finished)
				}
				if got := b.mailsOf(envelope.MailOwnerSealFailed); !slices.Equal(got, []int64{0}) {
					t.Errorf("seal-failure mails to %v, want the owner once", got)
				}
				refuse = false
				env.SignalWorkflow(SignalRetrySeal, nil)
			}, 7*24*time.Hour)
			env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
			if env.GetWorkflowError() != nil || !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
				t.Fatalf("error %v, finished %v", env.GetWorkflowError(), b.finished)
			}
			if b.sealAttempts != 2 || b.sealed != 1 {
				t.Errorf("%d seal attempts, %d seals; want 2 and 1", b.sealAttempts, b.sealed)
			}
		})
	}
}

// A timestamp authority that stays unavailable (the activity gives up after SOBRE_TSA_RETRY_FOR
// with SEAL_TSA_UNAVAILABLE) makes the workflow wait an hour and try again by itself, for as long
// as it takes; the owner is mailed once, not at every attempt.
func TestSealWaitsForTheTSA(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil))
	b.sealErr = func() error {
		if b.sealAttempts <= 5 {
			return temporal.NewNonRetryableApplicationError("the timestamp authority is unavailable: 503", string(envelope.SealTSAUnavailable), nil)
		}
		return nil
	}
	env := newEnv(t, b)
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	if env.GetWorkflowError() != nil || !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
		t.Fatalf("error %v, finished %v", env.GetWorkflowError(), b.finished)
	}
	if b.sealAttempts != 6 {
		t.Errorf("%d seal attempts, want 5 given up an hour apart and 1 that seals", b.sealAttempts)
	}
	if got := b.mailsOf(envelope.MailOwnerSealFailed); !slices.Equal(got, []int64{0}) {
		t.Errorf("seal-failure mails to %v, want the owner once", got)
	}
	if elapsed := env.Now().Sub(b.start); elapsed < 6*time.Hour || elapsed > 7*time.Hour {
		t.Errorf("completed %v after the start, want about 6 hours (a completion, five hourly waits)", elapsed)
	}
}

// Cancelling the workflow ends a refused seal's wait: the workflow ends cancelled, the envelope
// neither finished nor sealed.
func TestWorkflowCancelEndsTheSealWait(t *testing.T) {
	b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil))
	b.sealErr = func() error {
		return temporal.NewNonRetryableApplicationError("no seal certificate is configured", string(envelope.SealNotConfigured), nil)
	}
	env := newEnv(t, b)
	update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
	env.RegisterDelayedCallback(env.CancelWorkflow, 5*time.Hour)
	env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
	var canceled *temporal.CanceledError
	if err := env.GetWorkflowError(); !errors.As(err, &canceled) {
		t.Fatalf("workflow error %v, want cancelled", err)
	}
	if len(b.finished) != 0 || b.sealed != 0 || b.sealAttempts != 1 {
		t.Errorf("finished %v, %d seals of %d attempts; want none of 1", b.finished, b.sealed, b.sealAttempts)
	}
}

// Envelopes of the first release's path (legacy, started before "mail-outside-lock") are sealed
// when they complete after "seal-legacy"; those that completed before it were not.
func TestLegacyEnvelopesAreSealed(t *testing.T) {
	for _, tt := range []struct {
		name       string
		sealLegacy workflow.Version
		wantSealed int
	}{
		{"completing after seal-legacy", 1, 1},
		{"completed before seal-legacy", workflow.DefaultVersion, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil))
			env := newEnv(t, b)
			env.OnGetVersion(currentShape, workflow.DefaultVersion, currentShapeVersion).Return(workflow.DefaultVersion)
			env.OnGetVersion("mail-outside-lock", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
			env.OnGetVersion("seal-legacy", workflow.DefaultVersion, 1).Return(tt.sealLegacy)
			update(t, env, time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
			if tt.wantSealed == 0 {
				// The first release's finish did not seal: the fake refuses COMPLETED without one.
				b.sealed = -1
				b.sealErr = func() error { return errors.New("sealed") }
			}
			env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
			if env.GetWorkflowError() != nil || !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
				t.Fatalf("error %v, finished %v; want COMPLETED", env.GetWorkflowError(), b.finished)
			}
			if b.sealAttempts != tt.wantSealed {
				t.Errorf("%d seal attempts, want %d", b.sealAttempts, tt.wantSealed)
			}
		})
	}
}
