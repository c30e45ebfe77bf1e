package activities

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
)

// SendNotices sends the notices of one step of an envelope's workflow (all of one envelope), each
// as SendNotice sends one: claimed in the mail log, sent once, recorded. The envelope and its
// PDFs are read once for all of them; up to noticesAtOnce go out at once. A notice that cannot
// be sent now does not hold up the others: each is tried, and the activity then fails, to be
// retried; its retry finds the notices sent or refused since in the mail log and sends only the
// rest. A notice the relay refused for good is recorded as SendNotice records it and counts as
// done; one that can never be sent (its template fails) fails the activity for good only once no
// other notice is left to retry (NoticesError).
func (a *Activities) SendNotices(ctx context.Context, ns []envelope.Mailing) error {
	if len(ns) == 0 {
		return nil
	}
	id := ns[0].EnvelopeID
	for _, n := range ns[1:] {
		if n.EnvelopeID != id {
			return fmt.Errorf("notices of envelopes %s and %s in one call", id, n.EnvelopeID)
		}
	}
	snap, err := a.Store.LoadSnapshot(ctx, id)
	if err != nil {
		return domainError(err)
	}
	attach := sync.OnceValues(func() ([]mail.Attachment, error) { return a.attachments(ctx, id) })
	errs := make([]error, len(ns))
	slots := make(chan struct{}, noticesAtOnce)
	var wg sync.WaitGroup
	for i, n := range ns {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			errs[i] = a.sendNotice(ctx, snap, n, attach)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return NoticesError(errs)
}

// noticesAtOnce is how many notices of one SendNotices are handed to the relay at once, each in
// its own SMTP session, as many separate activities would: a step's mails go out about as fast
// as one does.
const noticesAtOnce = 4

// NoticesError is SendNotices' answer once each of its notices was tried, errs holding each
// one's error (nil when sent): a refusal for good was recorded and counts as done; while any
// notice may still go out the errors of those are returned, to be retried; else those of the
// notices that never can, which end the activity for good; nil when every notice is done.
func NoticesError(errs []error) error {
	var retry, final error
	for _, err := range errs {
		var app *temporal.ApplicationError
		switch {
		case err == nil, errors.As(err, &app) && app.Type() == envelope.MailRefusedType:
		case app != nil && app.NonRetryable():
			final = errors.Join(final, err)
		default:
			retry = errors.Join(retry, err)
		}
	}
	if retry != nil {
		return retry
	}
	return final
}
