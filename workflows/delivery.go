package workflows

import (
	"errors"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// Mail delivery, in runs started since "async-mail" (r.async): each mail goes out in a coroutine
// (since currentShape, the mails of one step together in one SendNotices), and nothing of the
// envelope waits for it. SendNotice records the mail, and for a request or reminder the
// recipient SENT with EMAIL_SENT, in one transaction; a relay's refusal for good is recorded
// there too. A mail the relay never took within mailCtx's retries is recorded as undeliverable.
// The mails still in flight are handed to the next run by continue-as-new (SendNotice's claims
// make sending one again harmless), and a run ends only once they are done.

// undeliverableCtx runs MailUndeliverable: a short write, retried for as long as PostgreSQL
// needs.
func undeliverableCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    time.Minute,
		ScheduleToCloseTimeout: 7 * 24 * time.Hour,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Minute},
	})
}

// deliver sends o in a coroutine of its own, and keeps it in r.delivering until it is done.
func (r *run) deliver(ctx workflow.Context, o outgoing) {
	out := r.track([]outgoing{o})
	workflow.Go(ctx, func(ctx workflow.Context) {
		defer r.untrack(out)
		n := out[0].Notice
		n.Mark = out[0].Mark
		err := workflow.ExecuteActivity(mailCtx(ctx), actSendNotice, n).Get(ctx, nil)
		if err == nil || refused(err) {
			return
		}
		r.undeliverable(ctx, n, err)
	})
}

// deliverAll sends the mails out (a step's) in one SendNotices activity, in a coroutine of its
// own, and keeps them in r.delivering until it is done. When the activity gives up, each mail of
// out goes to MailUndeliverable, which records those still to send: one sent or refused stays as
// recorded, one that would not be sent now (its envelope ended, its recipient left or has no
// address) is not recorded.
func (r *run) deliverAll(ctx workflow.Context, out []outgoing) {
	out = r.track(out)
	workflow.Go(ctx, func(ctx workflow.Context) {
		defer r.untrack(out)
		ns := make([]envelope.Mailing, len(out))
		for i, o := range out {
			ns[i] = o.Notice
			ns[i].Mark = o.Mark
		}
		err := workflow.ExecuteActivity(mailCtx(ctx), actSendNotices, ns).Get(ctx, nil)
		if err == nil {
			return
		}
		for _, n := range ns {
			r.undeliverable(ctx, n, err)
		}
	})
}

// track numbers the mails out and adds them to r.delivering.
func (r *run) track(out []outgoing) []outgoing {
	out = slices.Clone(out)
	for i := range out {
		r.deliveries++
		out[i].Ref = r.deliveries
	}
	r.delivering = append(r.delivering, out...)
	return out
}

// untrack removes the mails out from r.delivering.
func (r *run) untrack(out []outgoing) {
	r.delivering = slices.DeleteFunc(r.delivering, func(d outgoing) bool {
		return slices.ContainsFunc(out, func(o outgoing) bool { return o.Ref == d.Ref })
	})
}

// undeliverable records mail n, which its activity did not send within its retries (err), as
// undeliverable.
func (r *run) undeliverable(ctx workflow.Context, n envelope.Mailing, err error) {
	log := workflow.GetLogger(ctx)
	log.Error("mail not delivered within its retries; recording it undeliverable", "kind", n.Kind, "recipient", n.RecipientID, "err", err)
	if err := workflow.ExecuteActivity(undeliverableCtx(ctx), actMailUndeliverable, n, err.Error()).Get(ctx, nil); err != nil {
		log.Error("undeliverable mail not recorded", "kind", n.Kind, "recipient", n.RecipientID, "err", err)
	}
}

// refused reports whether err is SendNotice's answer to a mail the relay refused for good, which
// it recorded itself.
func refused(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == envelope.MailRefusedType
}

// delivered reports whether no mail is in flight.
func (r *run) delivered() bool { return len(r.delivering) == 0 }

// removalMailWait is how long a deleted envelope waits for its mails (which read it) before it is
// removed: a mail still not delivered then is dropped.
const removalMailWait = 10 * time.Minute
