package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// Names the API uses to talk to an envelope's workflow.
const (
	UpdateDistribute = "distribute"   // start (or re-run) distribution; returns once PENDING
	UpdateComplete   = "complete"     // a recipient signs, approves or views
	UpdateReject     = "reject"       // a recipient rejects
	UpdateCancel     = "cancel"       // the owner cancels
	UpdateDelete     = "delete"       // the owner deletes a PENDING envelope: it ends and is removed
	UpdateResend     = "redistribute" // send the envelope again to recipients who have not acted
	SignalRefresh    = "refresh"      // the API changed recipients, or a code entry locked: read them again
	SignalRetrySeal  = "retry-seal"   // an operator: try the seal again after it gave up
	QueryState       = "state"        // the workflow's view, for ops
)

// Search attributes, so that ops find envelopes in the Temporal Web UI.
var (
	AttrEnvelopeID = temporal.NewSearchAttributeKeyKeyword("EnvelopeId")
	AttrTeamID     = temporal.NewSearchAttributeKeyKeyword("TeamId")
	AttrStatus     = temporal.NewSearchAttributeKeyKeyword("EnvelopeStatus")
	// AttrWebhookIDs names the webhooks whose calls a WebhookWorkflow delivers.
	AttrWebhookIDs = temporal.NewSearchAttributeKeyKeywordList("WebhookId")
)

// handlerWaitLimit is how long an Update handler waits for the main loop to act on its event
// (and a distribute or resend for its requests' mails): a completion whose step seals the
// envelope answers when the signature is recorded even if the seal takes longer. It stays under
// DefaultCallTimeout.
const handlerWaitLimit = 8 * time.Second

// Input starts an envelope's workflow.
type Input struct {
	EnvelopeID string
	TeamID     int64
	// Continued is the state of the run before, when this run continues it (continue-as-new,
	// see continue.go); nil for the first run.
	Continued *Continuation `json:",omitempty"`
	// ContinueAsNewAt is the history length, in events, at which a run continues as new even if
	// Temporal does not suggest it yet; 0 is continueAsNewAt. Tests lower it.
	ContinueAsNewAt int `json:",omitempty"`
	// Pickup starts a run for an envelope that must be PENDING already (its run before ended
	// or was lost): a draft is left a draft (pickup.go).
	Pickup bool `json:",omitempty"`
}

func mailCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    time.Minute,
		ScheduleToCloseTimeout: 72 * time.Hour,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Minute},
	})
}

// EnvelopeWorkflow owns a distributed envelope's life: it marks it PENDING, mails whoever may
// act now, reminds and expires on timers, takes completions, rejections and cancels as
// validated Updates, and ends the envelope COMPLETED, REJECTED or CANCELLED.
func EnvelopeWorkflow(ctx workflow.Context, in Input) error {
	r := &run{in: in, mu: workflow.NewMutex(ctx)}
	if err := r.register(ctx); err != nil {
		return err
	}
	shape := workflow.GetVersion(ctx, currentShape, workflow.DefaultVersion, currentShapeVersion)
	r.current = shape >= 1
	r.answersBeforeMail = shape >= 2
	r.legacy = !r.since(ctx, "mail-outside-lock")
	r.bounded = r.since(ctx, "bounded-history")
	r.async = r.since(ctx, "async-mail")
	r.ends = r.since(ctx, "end-when-abandoned")
	pickup := r.since(ctx, "pickup-from-store")
	r.boundedLocal = r.since(ctx, "bounded-local")
	r.cancelTimers = r.since(ctx, "cancel-timers")
	r.endsAfterMail = r.since(ctx, "abandoned-acts-until-it-ends")
	if in.Continued != nil {
		r.resume(*in.Continued)
		return r.loop(ctx)
	}
	log := workflow.GetLogger(ctx)

	var current envelope.Progress
	if err := r.db(ctx, actLoadSnapshot, in.EnvelopeID).Get(ctx, &current); err != nil {
		return err
	}
	expiresAt := envelope.Deadline(current.Meta.EnvelopeExpirationPeriod, workflow.Now(ctx))
	if pickup && leftAlone(in, current) {
		r.snap = current
	} else if err := r.db(ctx, actMarkPending, envelope.Distribution{EnvelopeID: in.EnvelopeID, ExpiresAt: expiresAt}).Get(ctx, &r.snap); err != nil {
		return err
	}
	r.initialized = true
	if r.snap.Status != envelope.StatusPending {
		log.Info("envelope is not pending; nothing to do", "status", r.snap.Status)
		r.finished = true
		return workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrStatus.ValueSet(string(envelope.StatusPending))); err != nil {
		return err
	}
	if pickup && current.Status == envelope.StatusPending {
		if err := r.pickup(ctx); err != nil {
			return err
		}
	}
	if r.since(ctx, "direct-link-owner-mail") {
		r.noticeDirectCreated()
	}
	return r.loop(ctx)
}

// refreshDelay is how long a refresh signal waits for more before the envelope is read again:
// a burst of recipient changes costs one reload.
const refreshDelay = time.Second

// loop is the workflow's main loop: it acts on every event and deadline until the envelope ends,
// or, once its history is long (continue.go), continues as new.
func (r *run) loop(ctx workflow.Context) error {
	step, timersDue := r.step, r.timersDue
	if r.legacy {
		step, timersDue = r.legacyStep, r.legacyTimersDue
	}
	for {
		if err := step(ctx); err != nil {
			if errors.Is(err, errContinue) {
				return r.continueAsNew(ctx)
			}
			return err
		}
		if r.finished {
			break
		}
		if r.bounded && r.historyFull(ctx) {
			drained, err := r.drain(ctx)
			if err != nil {
				return err
			}
			if drained {
				return r.continueAsNew(ctx)
			}
			continue // an event came first: act on it, then try again
		}
		if ended, err := r.endIfAbandoned(ctx); err != nil || ended {
			if err != nil {
				return err
			}
			if !r.endsAfterMail {
				return workflow.Await(ctx, r.delivered)
			}
			if acted, err := r.endOnceDelivered(ctx); err != nil || !acted {
				return err
			}
			continue
		}
		cond := func() bool { return r.version > r.processed }
		deadline := r.nextDeadline()
		if deadline.IsZero() {
			if err := workflow.Await(ctx, cond); err != nil {
				return err
			}
			if err := r.coalesce(ctx); err != nil {
				return err
			}
			continue
		}
		wait := deadline.Sub(workflow.Now(ctx))
		if wait > 0 {
			ok, err := r.awaitWithin(ctx, wait, cond)
			if err != nil {
				return err
			}
			if ok {
				if err := r.coalesce(ctx); err != nil {
					return err
				}
				continue
			}
		}
		if err := timersDue(ctx); err != nil {
			return err
		}
	}
	return workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) && r.delivered() })
}

// coalesce, when only refresh signals are waiting, waits refreshDelay (or until another event
// arrives) so that the signals of a burst of changes are acted on with one reload.
func (r *run) coalesce(ctx workflow.Context) error {
	if !r.bounded || r.urgent > r.processed {
		return nil
	}
	_, err := r.awaitWithin(ctx, refreshDelay, func() bool { return r.urgent > r.processed })
	return err
}

// step acts on everything that changed: reloads recipients if asked, decides completion and
// queues what is due under the lock, then sends the mails without it, and, when the envelope
// ends, seals it if it completed (without the lock) and finishes it.
func (r *run) step(ctx workflow.Context) error {
	var v int
	err := r.locked(ctx, func() error {
		v = r.version
		return r.collect(ctx)
	})
	if err != nil {
		return err
	}
	r.flush(ctx)
	if r.end != nil {
		if err := r.sealUnlocked(ctx); err != nil {
			return err
		}
		if err := r.locked(ctx, func() error { return r.finish(ctx) }); err != nil {
			return err
		}
	}
	r.processed = v
	return nil
}

// collect, under the lock, reloads the envelope if asked, queues the owner's mails about code
// locks and refused RUNs, decides completion and, until the envelope ends, queues the requests
// that are due.
func (r *run) collect(ctx workflow.Context) error {
	if r.refresh {
		r.refresh = false
		var snap envelope.Progress
		if err := r.db(ctx, actLoadSnapshot, r.in.EnvelopeID).Get(ctx, &snap); err != nil {
			return err
		}
		r.replaceSnapshot(snap)
	}
	r.noticeCodeLocks()
	r.noticeIdentityMismatches()
	r.endOnRecordedRejection(ctx)
	if r.end == nil && envelope.AllDone(r.snap.Participants()) {
		r.end = &ending{status: envelope.StatusCompleted, actor: envelope.SystemActor()}
	}
	if r.end == nil {
		return r.sendRequests(ctx)
	}
	return nil
}
