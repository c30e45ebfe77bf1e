package workflows

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
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
)

// Limits of reminders, as Documenso's: at most 5, and none later than 30 days after the request.
const (
	MaxReminders     = 5
	ReminderHorizon  = 30 * 24 * time.Hour
	handlerWaitLimit = 15 * time.Second
)

// DefaultExpiration is a recipient's time to act when documentMeta sets none.
var DefaultExpiration = envelope.Duration{Unit: envelope.UnitMonth, Amount: 3}

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
}

// CompleteRequest is the argument of UpdateComplete.
type CompleteRequest struct {
	RecipientID int64
	NextSigner  *persistence.NextSigner
	Actor       persistence.Actor
	// SessionID names the signing session completing (never its secret): the completion checks
	// the proofs that session holds and records them as the recipient's identity.
	SessionID string `json:",omitempty"`
	// LinkVersion is the version of the signing link the request came through: a link replaced
	// since then completes nothing. Nil (a request of a release before link versions) is not
	// checked.
	LinkVersion *int `json:",omitempty"`
}

// RejectRequest is the argument of UpdateReject.
type RejectRequest struct {
	RecipientID int64
	Reason      string
	Actor       persistence.Actor
	External    bool
	OnBehalfOf  *persistence.Actor
	// LinkVersion is the version of the signing link a recipient's own rejection came through
	// (not External): a link replaced since then rejects nothing. Nil is not checked.
	LinkVersion *int `json:",omitempty"`
}

// ResendRequest is the argument of UpdateResend.
type ResendRequest struct {
	RecipientIDs []int64
}

// CancelRequest is the argument of UpdateCancel.
type CancelRequest struct {
	Reason string
	Actor  persistence.Actor
}

// RecipientState is one recipient in the workflow's view.
type RecipientState struct {
	ID             int64
	Email          string
	Role           envelope.Role
	SigningOrder   *int
	SigningStatus  envelope.SigningStatus
	SendStatus     envelope.SendStatus
	ExpiresAt      *time.Time
	Reminders      int
	NextReminderAt *time.Time
}

// State is what QueryState answers.
type State struct {
	EnvelopeID   string
	Status       envelope.Status
	SigningOrder envelope.SigningOrder
	MayActNow    []int64
	Recipients   []RecipientState
}

// reminder tracks one recipient's reminders.
type reminder struct {
	RecipientID int64
	SentAt      time.Time
	Count       int       // reminders since the last request, for the limits
	Sent        int       // reminders ever sent to the recipient: their Message-ID sequence, never reset
	Next        time.Time // zero: no more
}

// outgoing is a queued mail and, for a request or reminder, the MarkSent that records it once
// sent. Mails go out after the workflow's lock is released, so a slow relay never holds up a
// recipient's completion.
type outgoing struct {
	Notice activities.Notice
	Mark   *activities.MarkSentInput
}

// ending is how the envelope ends, once decided.
type ending struct {
	status      envelope.Status
	deleted     bool  // removed, not just ended
	recipientID int64 // who rejected
	reason      string
	actor       persistence.Actor
}

// run is one envelope workflow's state.
type run struct {
	in          Input
	snap        persistence.Snapshot
	initialized bool
	finished    bool
	refresh     bool
	version     int // bumped by every event
	processed   int // the version the main loop last acted on
	end         *ending
	outbox      []outgoing
	reminders   []reminder
	resends     int                    // requests sent again, numbering their Message-IDs
	notified    []int64                // recipients whose expiry was handled
	requested   []int64                // recipients sent their request (a recipient who opened a link early still gets it)
	codeLocks   []persistence.CodeLock // locked code entries the owner was mailed about
	mismatches  map[int64]int          // by recipient, how many refused RUNs the owner was mailed about
	mu          workflow.Mutex
	legacy      bool // started before "mail-outside-lock": replays the first release's steps
	// bounded: started after "bounded-history": refresh signals are coalesced and the run
	// continues as new when its history grows (continue.go).
	bounded      bool
	urgent       int    // the version of the last event that is not a refresh signal
	sealAttempts int    // the seal's first attempt number in this run (attempts given up before)
	sealWait     string // how the seal waits before its next attempt (sealNoWait: it does not)
	runs         int    // runs before this one
}

// bump records an event (not a refresh signal) for the main loop to act on.
func (r *run) bump() {
	r.version++
	r.urgent = r.version
}

var acts *activities.Activities

// localCtx runs the short PostgreSQL writes. They are retried for up to a week: a database that
// is down for minutes or hours delays the envelope, it never fails the workflow.
func localCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout:    15 * time.Second,
		ScheduleToCloseTimeout: 7 * 24 * time.Hour,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 10 * time.Second},
	})
}

// sealCtx runs the seal: long enough for a large document, heartbeating, retried until it
// succeeds (a seal that keeps failing shows as this activity's last failure in the Temporal UI
// and in the SDK's activity failure metrics; the signatures are already stored).
// sealCtx retries a failing seal 8 times over about 20 minutes (5 s doubling to 10 min), then
// gives up to seal (below). Refusals (non-retryable errors) give up at once.
func sealCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    20 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 5 * time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Minute, MaximumAttempts: 8},
	})
}

// sealRetryAfter is how long a workflow whose seal failed (but was not refused) waits before
// trying again by itself.
const sealRetryAfter = time.Hour

// seal runs SealEnvelope until it succeeds. When it gives up (a refusal: the sealed document
// would not show what the signers were shown, a document cannot be read, the seal panicked; or
// a failure that outlasted the retries) the workflow never completes with a different or a
// missing seal: it records why in its memo (sealFailure, shown in the Temporal Web UI) and its
// log, mails the owner, and waits for the retry-seal signal, or, unless the seal was refused,
// an hour. The envelope stays PENDING meanwhile, with every signature recorded.
func (r *run) seal(ctx workflow.Context) error {
	retry := workflow.GetSignalChannel(ctx, SignalRetrySeal)
	for attempt := r.sealAttempts; ; attempt++ {
		if r.sealWait != sealNoWait {
			if r.bounded && r.historyFull(ctx) {
				// Hourly attempts for weeks grow the history: unless a retry was asked, the
				// next run waits and tries again.
				if !retry.ReceiveAsync(nil) {
					r.sealAttempts = attempt
					return errContinue
				}
			} else if err := r.sealPause(ctx, retry); err != nil {
				return err
			}
			r.sealWait = sealNoWait
		}
		err := workflow.ExecuteActivity(sealCtx(ctx), acts.SealEnvelope, r.in.EnvelopeID).Get(ctx, nil)
		if err == nil {
			if attempt > 0 {
				if err := workflow.UpsertMemo(ctx, map[string]any{"sealFailure": nil}); err != nil {
					return err
				}
			}
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		reason, refused := err.Error(), false
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) {
			reason, refused = appErr.Error(), appErr.NonRetryable()
		}
		workflow.GetLogger(ctx).Error("seal given up", "envelope", r.in.EnvelopeID, "refused", refused, "attempt", attempt, "err", err)
		if err := workflow.UpsertMemo(ctx, map[string]any{"sealFailure": reason}); err != nil {
			return err
		}
		r.queue(activities.Notice{Kind: mail.OwnerSealFailed, EnvelopeID: r.in.EnvelopeID, Seq: attempt, Reason: reason}, nil)
		r.flush(ctx)
		r.sealWait = sealFailed
		if refused {
			r.sealWait = sealRefused
		}
	}
}

// How a given-up seal waits before its next attempt.
const (
	sealNoWait  = ""
	sealFailed  = "failed"  // for the retry-seal signal or sealRetryAfter
	sealRefused = "refused" // for the retry-seal signal only
)

// sealPause waits for the retry-seal signal or, unless the seal was refused, sealRetryAfter.
func (r *run) sealPause(ctx workflow.Context, retry workflow.ReceiveChannel) error {
	waitCtx, stop := workflow.WithCancel(ctx)
	defer stop()
	sel := workflow.NewSelector(waitCtx)
	sel.AddReceive(retry, func(c workflow.ReceiveChannel, _ bool) { c.Receive(waitCtx, nil) })
	if r.sealWait != sealRefused {
		sel.AddFuture(workflow.NewTimer(waitCtx, sealRetryAfter), func(workflow.Future) {})
	}
	sel.Select(waitCtx)
	return ctx.Err()
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
	r.legacy = workflow.GetVersion(ctx, "mail-outside-lock", workflow.DefaultVersion, 1) == workflow.DefaultVersion
	r.bounded = workflow.GetVersion(ctx, "bounded-history", workflow.DefaultVersion, 1) == 1
	if in.Continued != nil {
		r.resume(*in.Continued)
		return r.loop(ctx)
	}
	log := workflow.GetLogger(ctx)

	var current persistence.Snapshot
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.LoadSnapshot, in.EnvelopeID).Get(ctx, &current); err != nil {
		return err
	}
	var expiresAt *time.Time
	if p := current.Meta.EnvelopeExpirationPeriod; p == nil || !p.Disabled {
		d := DefaultExpiration
		if p != nil {
			d = p.Duration
		}
		t := d.AddTo(workflow.Now(ctx))
		expiresAt = &t
	}
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.MarkPending, activities.MarkPendingInput{EnvelopeID: in.EnvelopeID, ExpiresAt: expiresAt}).Get(ctx, &r.snap); err != nil {
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
			ok, err := workflow.AwaitWithTimeout(ctx, wait, cond)
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
	return workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}

// coalesce, when only refresh signals are waiting, waits refreshDelay (or until another event
// arrives) so that the signals of a burst of changes are acted on with one reload.
func (r *run) coalesce(ctx workflow.Context) error {
	if !r.bounded || r.urgent > r.processed {
		return nil
	}
	_, err := workflow.AwaitWithTimeout(ctx, refreshDelay, func() bool { return r.urgent > r.processed })
	return err
}

func (r *run) register(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, QueryState, func() (State, error) { return r.state(), nil }); err != nil {
		return err
	}
	refresh := workflow.GetSignalChannel(ctx, SignalRefresh)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			refresh.Receive(ctx, nil)
			r.refresh = true
			r.version++
		}
	})
	handlers := []struct {
		name      string
		handler   any
		validator any
	}{
		{UpdateDistribute, r.onDistribute, nil},
		{UpdateComplete, r.onComplete, r.validateComplete},
		{UpdateReject, r.onReject, r.validateReject},
		{UpdateCancel, r.onCancel, r.validateCancel},
		{UpdateDelete, r.onDelete, r.validateDelete},
		{UpdateResend, r.onResend, r.validateResend},
	}
	for _, h := range handlers {
		if err := workflow.SetUpdateHandlerWithOptions(ctx, h.name, h.handler, workflow.UpdateHandlerOptions{Validator: h.validator}); err != nil {
			return err
		}
	}
	return nil
}

// appError is a domain error as the API can read it back: its type is the code.
func appError(err error) error {
	var de *envelope.Error
	if errors.As(err, &de) {
		return temporal.NewApplicationError(de.Message, string(de.Code))
	}
	return err
}

func (r *run) acting() error {
	if !r.initialized {
		return nil // the handler waits for initialisation
	}
	if r.finished || r.end != nil {
		status := r.snap.Status
		if r.end != nil {
			status = r.end.status
		}
		return appError(envelope.Errorf(map[envelope.Status]envelope.Code{
			envelope.StatusCompleted: envelope.CodeEnvelopeCompleted,
			envelope.StatusRejected:  envelope.CodeEnvelopeRejected,
			envelope.StatusCancelled: envelope.CodeEnvelopeCancelled,
		}[status], "The envelope is %s", status))
	}
	return nil
}

// wait blocks a handler until the main loop has acted on its event (bounded, so that a slow mail
// relay never holds an API call for long).
func (r *run) wait(ctx workflow.Context, v int) {
	_, _ = workflow.AwaitWithTimeout(ctx, handlerWaitLimit, func() bool { return r.processed >= v || r.finished })
}

func (r *run) onDistribute(ctx workflow.Context) error {
	if err := workflow.Await(ctx, func() bool { return r.initialized }); err != nil {
		return err
	}
	if r.finished {
		return nil
	}
	r.refresh = true
	r.bump()
	r.wait(ctx, r.version)
	return nil
}

func (r *run) validateComplete(ctx workflow.Context, req CompleteRequest) error {
	if err := req.check(); err != nil {
		return err
	}
	if err := r.acting(); err != nil {
		return err
	}
	if !r.initialized {
		return nil
	}
	return appError(envelope.Turn(r.snap.Meta.SigningOrder, r.snap.Participants(), req.RecipientID, workflow.Now(ctx)))
}

func (r *run) onComplete(ctx workflow.Context, req CompleteRequest) error {
	if err := workflow.Await(ctx, func() bool { return r.initialized }); err != nil {
		return err
	}
	if err := r.mu.Lock(ctx); err != nil {
		return err
	}
	v, err := r.complete(ctx, req)
	r.mu.Unlock()
	if err != nil {
		return err
	}
	r.wait(ctx, v)
	return nil
}

// complete records a completion; the caller holds r.mu. It returns the version to wait for.
func (r *run) complete(ctx workflow.Context, req CompleteRequest) (int, error) {
	if err := r.acting(); err != nil {
		return 0, err
	}
	if err := envelope.Turn(r.snap.Meta.SigningOrder, r.snap.Participants(), req.RecipientID, workflow.Now(ctx)); err != nil {
		return 0, appError(err)
	}
	in := persistence.CompleteInput{EnvelopeID: r.in.EnvelopeID, RecipientID: req.RecipientID, Actor: req.Actor, Now: workflow.Now(ctx),
		SessionID: req.SessionID, LinkVersion: req.LinkVersion}
	if req.NextSigner != nil && r.snap.Meta.AllowDictateNextSigner {
		in.NextSigner, in.NextID = req.NextSigner, r.nextAfter(req.RecipientID)
	}
	var snap persistence.Snapshot
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.CompleteRecipient, in).Get(ctx, &snap); err != nil {
		return 0, err
	}
	r.replaceSnapshot(snap)
	m := r.snap.Meta
	if m.EmailSettings.RecipientSigned {
		r.queue(activities.Notice{Kind: mail.RecipientSigned, EnvelopeID: r.in.EnvelopeID, ActorID: req.RecipientID}, nil)
	}
	if m.DistributionMethod == envelope.DistributionEmail && m.EmailSettings.DocumentPending && !envelope.AllDone(r.snap.Participants()) {
		r.queue(activities.Notice{Kind: mail.DocumentPending, EnvelopeID: r.in.EnvelopeID, RecipientID: req.RecipientID}, nil)
	}
	r.bump()
	return r.version, nil
}

// nextAfter is the first recipient after id in signing order who still has to act and was not
// yet sent the envelope: the one a signer may dictate.
func (r *run) nextAfter(id int64) int64 {
	sorted := envelope.SortForSigning(r.snap.Participants())
	seen := false
	for _, p := range sorted {
		if p.ID == id {
			seen = true
			continue
		}
		if rec := r.snap.Recipient(p.ID); seen && p.Pending() && rec != nil && rec.SendStatus == envelope.SendStatusNotSent {
			return p.ID
		}
	}
	return 0
}

func (r *run) validateReject(ctx workflow.Context, req RejectRequest) error {
	if err := req.check(); err != nil {
		return err
	}
	if err := r.acting(); err != nil {
		return err
	}
	if !r.initialized {
		return nil
	}
	rec := r.snap.Recipient(req.RecipientID)
	switch {
	case rec == nil:
		return appError(envelope.NotFound("Recipient"))
	case rec.SigningStatus == envelope.SigningStatusSigned:
		return appError(envelope.Errorf(envelope.CodeRecipientAlreadySigned, "Recipient has already signed"))
	case rec.SigningStatus == envelope.SigningStatusRejected:
		return appError(envelope.Errorf(envelope.CodeInvalidRequest, "Recipient has already rejected"))
	case rec.Role == envelope.RoleCC:
		return appError(envelope.Errorf(envelope.CodeInvalidRequest, "A CC recipient takes no action"))
	case rec.ExpiresAt != nil && !workflow.Now(ctx).Before(*rec.ExpiresAt) && !req.External:
		return appError(envelope.Errorf(envelope.CodeRecipientExpired, "Recipient's signing link has expired"))
	}
	return nil
}

func (r *run) onReject(ctx workflow.Context, req RejectRequest) error {
	if err := workflow.Await(ctx, func() bool { return r.initialized }); err != nil {
		return err
	}
	if err := r.mu.Lock(ctx); err != nil {
		return err
	}
	if err := r.acting(); err != nil {
		r.mu.Unlock()
		return err
	}
	in := persistence.RejectInput{EnvelopeID: r.in.EnvelopeID, RecipientID: req.RecipientID, Reason: req.Reason, Actor: req.Actor,
		External: req.External, OnBehalfOf: req.OnBehalfOf, Now: workflow.Now(ctx), LinkVersion: req.LinkVersion}
	var snap persistence.Snapshot
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.RejectRecipient, in).Get(ctx, &snap); err != nil {
		r.mu.Unlock()
		return err
	}
	r.replaceSnapshot(snap)
	r.end = &ending{status: envelope.StatusRejected, recipientID: req.RecipientID, reason: req.Reason, actor: req.Actor}
	r.bump()
	v := r.version
	r.mu.Unlock()
	r.wait(ctx, v)
	return nil
}

func (r *run) validateCancel(ctx workflow.Context, req CancelRequest) error {
	if err := req.check(); err != nil {
		return err
	}
	return r.acting()
}

func (r *run) onCancel(ctx workflow.Context, req CancelRequest) error {
	return r.endWith(ctx, ending{status: envelope.StatusCancelled, reason: req.Reason, actor: req.Actor})
}

// endWith decides how the envelope ends, unless it already ended: under the lock, so that a
// cancel and a rejection arriving together cannot overwrite one another.
func (r *run) endWith(ctx workflow.Context, e ending) error {
	if err := workflow.Await(ctx, func() bool { return r.initialized }); err != nil {
		return err
	}
	if err := r.mu.Lock(ctx); err != nil {
		return err
	}
	if err := r.acting(); err != nil {
		r.mu.Unlock()
		return err
	}
	r.end = &e
	r.bump()
	v := r.version
	r.mu.Unlock()
	r.wait(ctx, v)
	return nil
}

func (r *run) validateDelete(ctx workflow.Context) error {
	return r.acting()
}

func (r *run) onDelete(ctx workflow.Context) error {
	return r.endWith(ctx, ending{status: envelope.StatusCancelled, deleted: true, actor: persistence.SystemActor()})
}

func (r *run) validateResend(ctx workflow.Context, req ResendRequest) error {
	if err := req.check(); err != nil {
		return err
	}
	if err := r.acting(); err != nil {
		return err
	}
	if !r.initialized {
		return nil
	}
	for _, id := range req.RecipientIDs {
		if r.snap.Recipient(id) == nil {
			return appError(envelope.NotFound(fmt.Sprintf("Recipient %d", id)))
		}
	}
	return nil
}

// onResend sends the envelope again to the listed recipients who have not acted: a new deadline,
// a new request (with its own Message-ID) and reminders counted from now. The mails go out from
// the main loop, outside the lock.
func (r *run) onResend(ctx workflow.Context, req ResendRequest) error {
	if r.legacy {
		return r.legacyOnResend(ctx, req)
	}
	if err := workflow.Await(ctx, func() bool { return r.initialized }); err != nil {
		return err
	}
	if err := r.mu.Lock(ctx); err != nil {
		return err
	}
	if err := r.acting(); err != nil {
		r.mu.Unlock()
		return err
	}
	now := workflow.Now(ctx)
	in := activities.RenewInput{EnvelopeID: r.in.EnvelopeID, RecipientIDs: req.RecipientIDs, ExpiresAt: r.expiry(now)}
	var renewed []envelope.Recipient
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.RenewDeadlines, in).Get(ctx, &renewed); err != nil {
		r.mu.Unlock()
		return err
	}
	m := r.snap.Meta
	for _, rec := range renewed {
		r.resends++
		if m.DistributionMethod == envelope.DistributionEmail && rec.Email != "" {
			n := activities.Notice{Kind: mail.SigningRequest, EnvelopeID: r.in.EnvelopeID, RecipientID: rec.ID, Seq: 100 + r.resends}
			r.queue(n, &activities.MarkSentInput{EnvelopeID: r.in.EnvelopeID, RecipientID: rec.ID, EmailType: emailType(rec.Role), Mailed: true, Resending: true})
			if !slices.Contains(r.requested, rec.ID) {
				r.requested = append(r.requested, rec.ID)
			}
			sent := 0
			for _, rm := range r.reminders {
				if rm.RecipientID == rec.ID {
					sent = rm.Sent
				}
			}
			r.reminders = slices.DeleteFunc(r.reminders, func(rm reminder) bool { return rm.RecipientID == rec.ID })
			if m.ReminderSettings != nil {
				r.reminders = append(r.reminders, reminder{RecipientID: rec.ID, SentAt: now, Sent: sent, Next: m.ReminderSettings.SendAfter.AddTo(now)})
			}
		}
		r.notified = slices.DeleteFunc(r.notified, func(id int64) bool { return id == rec.ID })
	}
	var snap persistence.Snapshot
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.LoadSnapshot, r.in.EnvelopeID).Get(ctx, &snap); err != nil {
		r.mu.Unlock()
		return err
	}
	// The requests just queued mail each renewed recipient's current link, replaced or not.
	if r.snap.LinkVersions == nil {
		r.snap.LinkVersions = map[int64]int{}
	}
	for _, rec := range renewed {
		r.snap.LinkVersions[rec.ID] = snap.LinkVersions[rec.ID]
	}
	r.replaceSnapshot(snap)
	r.bump()
	v := r.version
	r.mu.Unlock()
	r.wait(ctx, v)
	return nil
}

// queue adds a mail to the outbox; mark, when set, is recorded once it is sent.
func (r *run) queue(n activities.Notice, mark *activities.MarkSentInput) {
	r.outbox = append(r.outbox, outgoing{Notice: n, Mark: mark})
}

// expiry is the deadline of a recipient sent the envelope at now, or nil for none.
func (r *run) expiry(now time.Time) *time.Time {
	p := r.snap.Meta.EnvelopeExpirationPeriod
	if p != nil && p.Disabled {
		return nil
	}
	d := DefaultExpiration
	if p != nil {
		d = p.Duration
	}
	t := d.AddTo(now)
	return &t
}

// step acts on everything that changed: reloads recipients if asked, decides completion and
// queues what is due under the lock, then sends the mails without it, and, when the envelope
// ends, finishes it.
func (r *run) step(ctx workflow.Context) error {
	if err := r.mu.Lock(ctx); err != nil {
		return err
	}
	v := r.version
	if r.refresh {
		r.refresh = false
		var snap persistence.Snapshot
		if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.LoadSnapshot, r.in.EnvelopeID).Get(ctx, &snap); err != nil {
			r.mu.Unlock()
			return err
		}
		r.noticeRemoved(snap)
		r.noticeReplacedLinks(snap)
		r.snap = snap
	}
	r.noticeCodeLocks()
	r.noticeIdentityMismatches()
	if r.end == nil && envelope.AllDone(r.snap.Participants()) {
		r.end = &ending{status: envelope.StatusCompleted, actor: persistence.SystemActor()}
	}
	if r.end == nil {
		if err := r.sendRequests(ctx); err != nil {
			r.mu.Unlock()
			return err
		}
	}
	r.mu.Unlock()
	r.flush(ctx)
	if r.end != nil {
		if err := r.mu.Lock(ctx); err != nil {
			return err
		}
		err := r.finish(ctx)
		r.mu.Unlock()
		if err != nil {
			return err
		}
	}
	r.processed = v
	return nil
}

// replaceSnapshot takes snap as the envelope's state, first queuing the "removed" mail for
// recipients it no longer holds (workflows of the first release did not, on this path).
func (r *run) replaceSnapshot(snap persistence.Snapshot) {
	if !r.legacy {
		r.noticeRemoved(snap)
		r.noticeReplacedLinks(snap)
	}
	r.snap = snap
}

// replacedLinkSeq numbers the signing request that mails a replaced link (plus the link's
// version), apart from first requests (0) and resends (100 on).
const replacedLinkSeq = 10_000

// noticeReplacedLinks queues the signing request again, with its new link, for each recipient
// who was sent one, has not acted, and whose link was replaced since (its email or
// authentication changed: envelope.ReplacesLink). The old link only says it was replaced.
func (r *run) noticeReplacedLinks(snap persistence.Snapshot) {
	m := snap.Meta
	if m.DistributionMethod != envelope.DistributionEmail || !m.EmailSettings.RecipientSigningRequest {
		return
	}
	for _, rec := range snap.Recipients {
		v := snap.LinkVersions[rec.ID]
		if v <= r.snap.LinkVersions[rec.ID] || !slices.Contains(r.requested, rec.ID) ||
			rec.SigningStatus != envelope.SigningStatusNotSigned || rec.Email == "" {
			continue
		}
		r.queue(activities.Notice{Kind: mail.SigningRequest, EnvelopeID: r.in.EnvelopeID, RecipientID: rec.ID, Seq: replacedLinkSeq + v}, nil)
	}
}

// noticeRemoved queues the "removed" mail for each recipient who was sent the envelope, had not
// acted and is no longer in snap.
func (r *run) noticeRemoved(snap persistence.Snapshot) {
	m := snap.Meta
	if m.DistributionMethod != envelope.DistributionEmail || !m.EmailSettings.RecipientRemoved {
		return
	}
	for _, old := range r.snap.Recipients {
		if snap.Recipient(old.ID) != nil || !slices.Contains(r.requested, old.ID) || old.SigningStatus != envelope.SigningStatusNotSigned || old.Email == "" {
			continue
		}
		r.queue(activities.Notice{Kind: mail.RecipientRemoved, EnvelopeID: r.in.EnvelopeID, RecipientID: old.ID, To: old.Email, ToName: old.Name}, nil)
	}
}

// noticeIdentityMismatches queues the owner's mail for each RUN refused to a recipient whose
// expected RUN it was not (one per RUN: the count in the snapshot numbers them).
func (r *run) noticeIdentityMismatches() {
	for _, m := range r.snap.IdentityMismatches {
		if m.RUNs <= r.mismatches[m.RecipientID] {
			continue
		}
		if r.mismatches == nil {
			r.mismatches = map[int64]int{}
		}
		r.mismatches[m.RecipientID] = m.RUNs
		r.queue(activities.Notice{Kind: mail.OwnerIdentity, EnvelopeID: r.in.EnvelopeID, ActorID: m.RecipientID, Seq: m.RUNs}, nil)
	}
}

// noticeCodeLocks queues the owner's mail for each locked access-code entry in the snapshot that
// was not mailed about yet: one per lock (its number is the mail's sequence, so a second lock
// after a redistribute is mailed too, and a retried mail is sent once).
func (r *run) noticeCodeLocks() {
	for _, l := range r.snap.CodeLocks {
		if slices.Contains(r.codeLocks, l) {
			continue
		}
		r.codeLocks = append(r.codeLocks, l)
		r.queue(activities.Notice{Kind: mail.OwnerCodeLocked, EnvelopeID: r.in.EnvelopeID, ActorID: l.RecipientID, Seq: l.Lock}, nil)
	}
}

// emailType names a signing request in the audit log, by role, as Documenso.
func emailType(role envelope.Role) string {
	switch role {
	case envelope.RoleApprover:
		return "APPROVE_REQUEST"
	case envelope.RoleViewer:
		return "VIEW_REQUEST"
	case envelope.RoleAssistant:
		return "ASSISTING_REQUEST"
	}
	return "SIGNING_REQUEST"
}

// sendRequests queues the envelope's request to each recipient who may act now and was not sent
// it yet; one sent by link (no mail) is marked sent at once. A recipient added while PENDING gets
// its deadline now.
func (r *run) sendRequests(ctx workflow.Context) error {
	m := r.snap.Meta
	if m.DistributionMethod != envelope.DistributionEmail {
		return nil // recipients get their links from the caller; they become SENT when they open them
	}
	now := workflow.Now(ctx)
	for _, id := range envelope.MayActNow(m.SigningOrder, r.snap.Participants()) {
		rec := r.snap.Recipient(id)
		if rec == nil || slices.Contains(r.requested, id) || (rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt)) {
			continue
		}
		mark := &activities.MarkSentInput{EnvelopeID: r.in.EnvelopeID, RecipientID: id, EmailType: emailType(rec.Role)}
		if rec.ExpiresAt == nil {
			if mark.ExpiresAt = r.expiry(now); mark.ExpiresAt != nil {
				rec.ExpiresAt = mark.ExpiresAt
			}
		}
		mailed := m.EmailSettings.RecipientSigningRequest && rec.Email != ""
		if mailed {
			mark.Mailed = true
			r.queue(activities.Notice{Kind: mail.SigningRequest, EnvelopeID: r.in.EnvelopeID, RecipientID: id}, mark)
		} else if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.MarkSent, *mark).Get(ctx, nil); err != nil {
			return err
		}
		rec.SendStatus = envelope.SendStatusSent
		r.requested = append(r.requested, id)
		if mailed && m.ReminderSettings != nil {
			r.reminders = append(r.reminders, reminder{RecipientID: id, SentAt: now, Next: m.ReminderSettings.SendAfter.AddTo(now)})
		}
	}
	return nil
}

// flush sends the queued mails in parallel, then records the requests and reminders among them
// as sent. A mail that cannot be sent within its activity's retries is logged and given up: it
// never fails the envelope.
func (r *run) flush(ctx workflow.Context) {
	out := r.outbox
	r.outbox = nil
	futures := make([]workflow.Future, len(out))
	for i, o := range out {
		futures[i] = workflow.ExecuteActivity(mailCtx(ctx), acts.SendNotice, o.Notice)
	}
	log := workflow.GetLogger(ctx)
	for i, f := range futures {
		if err := f.Get(ctx, nil); err != nil {
			log.Error("mail not sent; giving up on it", "kind", out[i].Notice.Kind, "recipient", out[i].Notice.RecipientID, "err", err)
			continue
		}
		if m := out[i].Mark; m != nil {
			if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.MarkSent, *m).Get(ctx, nil); err != nil {
				log.Error("mail sent but not recorded", "kind", out[i].Notice.Kind, "recipient", out[i].Notice.RecipientID, "err", err)
			}
		}
	}
}

// finish ends the envelope as r.end says, with its audit entry and mails.
func (r *run) finish(ctx workflow.Context) error {
	m, e := r.snap.Meta, r.end
	now := workflow.Now(ctx)
	byMail := m.DistributionMethod == envelope.DistributionEmail
	notice := func(kind mail.Kind, rid int64) activities.Notice {
		return activities.Notice{Kind: kind, EnvelopeID: r.in.EnvelopeID, RecipientID: rid, ActorID: e.recipientID, Reason: e.reason}
	}
	in := activities.FinishInput{EnvelopeID: r.in.EnvelopeID, Status: e.status, Actor: e.actor, Now: now}
	info := workflow.GetInfo(ctx)
	switch e.status {
	case envelope.StatusCompleted:
		if !r.legacy {
			// The sealed PDFs exist before the envelope is COMPLETED and before the completion
			// mails, which attach them.
			if err := r.seal(ctx); err != nil {
				return err
			}
		}
		in.AuditType, in.Data = "DOCUMENT_COMPLETED", map[string]any{"transactionId": info.WorkflowExecution.RunID}
		for _, rec := range r.snap.Recipients {
			if byMail && m.EmailSettings.DocumentCompleted {
				n := notice(mail.DocumentCompleted, rec.ID)
				n.Attach = true
				r.queue(n, nil)
			}
		}
		if m.EmailSettings.OwnerDocumentCompleted {
			n := notice(mail.OwnerCompleted, 0)
			n.Attach = true
			r.queue(n, nil)
		}
	case envelope.StatusRejected:
		in.AuditType = "DOCUMENT_COMPLETED"
		in.Data = map[string]any{"transactionId": info.WorkflowExecution.RunID, "isRejected": true, "rejectionReason": e.reason}
		if byMail {
			r.queue(notice(mail.RejectionConfirmed, e.recipientID), nil)
			for _, rec := range r.snap.Recipients {
				if rec.ID != e.recipientID && rec.Role != envelope.RoleCC && rec.SendStatus == envelope.SendStatusSent && rec.SigningStatus == envelope.SigningStatusNotSigned {
					r.queue(notice(mail.EnvelopeCancelled, rec.ID), nil)
				}
			}
		}
		r.queue(notice(mail.OwnerRejected, 0), nil)
	case envelope.StatusCancelled:
		if e.deleted {
			return r.remove(ctx)
		}
		in.AuditType, in.Data = "DOCUMENT_CANCELLED", map[string]any{"reason": e.reason}
		if byMail && m.EmailSettings.DocumentDeleted {
			for _, rec := range r.snap.Recipients {
				if rec.Role != envelope.RoleCC && rec.SendStatus == envelope.SendStatusSent && rec.SigningStatus == envelope.SigningStatusNotSigned {
					r.queue(notice(mail.EnvelopeCancelled, rec.ID), nil)
				}
			}
		}
	}
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.FinishEnvelope, in).Get(ctx, nil); err != nil {
		return err
	}
	r.snap.Status = e.status
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrStatus.ValueSet(string(e.status))); err != nil {
		return err
	}
	r.flush(ctx)
	r.finished = true
	return nil
}

// remove ends a deleted envelope: the recipients who were sent it are told (documentDeleted),
// then it is removed from PostgreSQL.
func (r *run) remove(ctx workflow.Context) error {
	m := r.snap.Meta
	if m.DistributionMethod == envelope.DistributionEmail && m.EmailSettings.DocumentDeleted {
		for _, rec := range r.snap.Recipients {
			if rec.Role != envelope.RoleCC && rec.SendStatus == envelope.SendStatusSent && rec.SigningStatus == envelope.SigningStatusNotSigned && rec.Email != "" {
				r.queue(activities.Notice{Kind: mail.EnvelopeCancelled, EnvelopeID: r.in.EnvelopeID, RecipientID: rec.ID}, nil)
			}
		}
	}
	r.flush(ctx)
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.HardDelete, r.in.EnvelopeID).Get(ctx, nil); err != nil {
		return err
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrStatus.ValueSet("DELETED")); err != nil {
		return err
	}
	r.finished = true
	return nil
}

// nextDeadline is the earliest reminder or expiry to act on, or zero.
func (r *run) nextDeadline() time.Time {
	var next time.Time
	earlier := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, rm := range r.reminders {
		earlier(rm.Next)
	}
	for _, rec := range r.snap.Recipients {
		if rec.ExpiresAt != nil && rec.Role != envelope.RoleCC && rec.SigningStatus == envelope.SigningStatusNotSigned && !slices.Contains(r.notified, rec.ID) {
			earlier(*rec.ExpiresAt)
		}
	}
	return next
}

// timersDue queues the reminders that are due and handles expired recipients, then sends the
// mails outside the lock.
func (r *run) timersDue(ctx workflow.Context) error {
	if err := r.mu.Lock(ctx); err != nil {
		return err
	}
	now := workflow.Now(ctx)
	m := r.snap.Meta
	var expired []int64
	for _, rec := range r.snap.Recipients {
		if rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt) && rec.Role != envelope.RoleCC &&
			rec.SigningStatus == envelope.SigningStatusNotSigned && !slices.Contains(r.notified, rec.ID) {
			expired = append(expired, rec.ID)
		}
	}
	if len(expired) > 0 {
		var list []envelope.Recipient
		if err := workflow.ExecuteLocalActivity(localCtx(ctx), acts.ExpireRecipients, r.in.EnvelopeID, now).Get(ctx, &list); err != nil {
			r.mu.Unlock()
			return err
		}
		r.notified = append(r.notified, expired...)
		for _, rec := range list {
			if m.EmailSettings.OwnerRecipientExpired {
				r.queue(activities.Notice{Kind: mail.OwnerExpired, EnvelopeID: r.in.EnvelopeID, ActorID: rec.ID}, nil)
			}
		}
	}
	active := envelope.MayActNow(m.SigningOrder, r.snap.Participants())
	for i := range r.reminders {
		rm := &r.reminders[i]
		if rm.Next.IsZero() || now.Before(rm.Next) {
			continue
		}
		rec := r.snap.Recipient(rm.RecipientID)
		stop := rec == nil || rec.SigningStatus != envelope.SigningStatusNotSigned || !slices.Contains(active, rm.RecipientID) ||
			(rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt)) || rm.Count >= MaxReminders || now.Sub(rm.SentAt) > ReminderHorizon ||
			m.DistributionMethod != envelope.DistributionEmail || m.ReminderSettings == nil
		if stop {
			rm.Next = time.Time{}
			continue
		}
		rm.Count++
		rm.Sent++
		r.queue(activities.Notice{Kind: mail.Reminder, EnvelopeID: r.in.EnvelopeID, RecipientID: rm.RecipientID, Seq: rm.Sent},
			&activities.MarkSentInput{EnvelopeID: r.in.EnvelopeID, RecipientID: rm.RecipientID, EmailType: "REMINDER", Mailed: true, Resending: true})
		rm.Next = m.ReminderSettings.RepeatEvery.AddTo(now)
		if rm.Count >= MaxReminders || rm.Next.Sub(rm.SentAt) > ReminderHorizon {
			rm.Next = time.Time{}
		}
	}
	r.mu.Unlock()
	r.flush(ctx)
	return nil
}

// state is the workflow's view for QueryState.
func (r *run) state() State {
	s := State{EnvelopeID: r.in.EnvelopeID, Status: r.snap.Status, SigningOrder: r.snap.Meta.SigningOrder,
		MayActNow: envelope.MayActNow(r.snap.Meta.SigningOrder, r.snap.Participants())}
	for _, rec := range r.snap.Recipients {
		rs := RecipientState{ID: rec.ID, Email: rec.Email, Role: rec.Role, SigningOrder: rec.SigningOrder,
			SigningStatus: rec.SigningStatus, SendStatus: rec.SendStatus, ExpiresAt: rec.ExpiresAt}
		for _, rm := range r.reminders {
			if rm.RecipientID == rec.ID {
				rs.Reminders = rm.Count
				if !rm.Next.IsZero() {
					next := rm.Next
					rs.NextReminderAt = &next
				}
			}
		}
		s.Recipients = append(s.Recipients, rs)
	}
	return s
}
