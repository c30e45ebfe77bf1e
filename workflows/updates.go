package workflows

import (
	"errors"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// ResendRequest is the argument of UpdateResend.
type ResendRequest struct {
	RecipientIDs []int64
}

// CancelRequest is the argument of UpdateCancel.
type CancelRequest struct {
	Reason string
	Actor  envelope.Actor
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
		if len(de.Issues) > 0 {
			return temporal.NewApplicationError(de.Message, string(de.Code), de.Issues)
		}
		return temporal.NewApplicationError(de.Message, string(de.Code))
	}
	return err
}

// acting refuses an Update once the envelope ended, or its ending is decided, with the code
// envelope.RequirePending gives that status and the message "The envelope is <status>".
func (r *run) acting() error {
	if !r.initialized {
		return nil // the handler waits for initialisation
	}
	if !r.finished && r.end == nil {
		return nil
	}
	status := r.snap.Status
	if r.end != nil {
		status = r.end.status
	}
	if err := envelope.RequirePending(status); err != nil {
		return appError(envelope.Errorf(envelope.ErrorCode(err), "The envelope is %s", status))
	}
	return nil
}

// checked is what an Update's validator checks first: the request itself (its check), then that
// the workflow still acts (acting). ready is false when that refuses it, and before
// initialisation, when nothing of the envelope can be checked yet: the handler waits for it.
func (r *run) checked(req interface{ check() error }) (ready bool, err error) {
	if err := req.check(); err != nil {
		return false, err
	}
	if err := r.acting(); err != nil {
		return false, err
	}
	return r.initialized, nil
}

// wait blocks a handler that started at start until the main loop has acted on its event, within
// handlerWaitLimit of its start in all (its lock and its change included), so that the API's
// call deadline is not reached by work that was done.
func (r *run) wait(ctx workflow.Context, v int, start time.Time) {
	_, _ = r.awaitWithin(ctx, waitLeft(ctx, start), func() bool { return r.processed >= v || r.finished })
}

// waitLeft is what is left of handlerWaitLimit for a handler that started at start (at least a
// millisecond, so that a wait always has its timer).
func waitLeft(ctx workflow.Context, start time.Time) time.Duration {
	return max(handlerWaitLimit-workflow.Now(ctx).Sub(start), time.Millisecond)
}

func (r *run) onDistribute(ctx workflow.Context) error {
	start := workflow.Now(ctx)
	if err := workflow.Await(ctx, func() bool { return r.initialized }); err != nil {
		return err
	}
	if r.finished {
		return nil
	}
	r.refresh = true
	r.bump()
	r.wait(ctx, r.version, start)
	if !r.answersBeforeMail {
		r.waitMailed(ctx, start)
	}
	return nil
}

// waitMailed, after wait, also waits for the mails queued until then (a resend's requests, and a
// distribute's in a run started before answersBeforeMail), so that their caller reads them
// recorded as sent; within handlerWaitLimit from start in all. A completion never waits for a
// mail (a burst of them behind a slow relay would pass Temporal's limit of Updates in flight).
func (r *run) waitMailed(ctx workflow.Context, start time.Time) {
	if !r.async {
		return
	}
	upto := r.deliveries
	if workflow.Now(ctx).Sub(start) >= handlerWaitLimit {
		return
	}
	_, _ = r.awaitWithin(ctx, waitLeft(ctx, start), func() bool {
		return !slices.ContainsFunc(r.delivering, func(d outgoing) bool { return d.Ref <= upto })
	})
}

func (r *run) validateCancel(ctx workflow.Context, req CancelRequest) error {
	_, err := r.checked(req)
	return err
}

func (r *run) onCancel(ctx workflow.Context, req CancelRequest) error {
	return r.endWith(ctx, ending{status: envelope.StatusCancelled, reason: req.Reason, actor: req.Actor})
}

// endWith decides how the envelope ends, unless it already ended: under the lock, so that a
// cancel and a rejection arriving together cannot overwrite one another.
func (r *run) endWith(ctx workflow.Context, e ending) error {
	return r.act(ctx, func() (int, error) {
		if err := r.acting(); err != nil {
			return 0, err
		}
		r.end = &e
		r.bump()
		return r.version, nil
	})
}

func (r *run) validateDelete(ctx workflow.Context) error {
	return r.acting()
}

func (r *run) onDelete(ctx workflow.Context) error {
	return r.endWith(ctx, ending{status: envelope.StatusCancelled, deleted: true, actor: envelope.SystemActor()})
}
