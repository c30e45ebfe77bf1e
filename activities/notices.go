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
// PDFs are read once for all of them. A notice that cannot be sent now does not hold up the others:
// each is tried, and the activity then fails with the first such error, to be retried; its
// retry finds the notices sent or refused since in the mail log and sends only the rest. A notice
// the relay refused for good is recorded as SendNotice records it and counts as done; one that
// can never be sent (its template fails) fails the activity for good only once no other notice
// is left to retry.
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
	var retry, final error
	for _, n := range ns {
		err := a.sendNotice(ctx, snap, n, attach)
		var app *temporal.ApplicationError
		switch {
		case err == nil:
		case errors.As(err, &app) && app.Type() == envelope.MailRefusedType:
			// Refused for good and recorded: done.
		case ctx.Err() != nil:
			return err
		case app != nil && app.NonRetryable():
			final = errors.Join(final, err)
		default:
			retry = errors.Join(retry, err)
		}
	}
	// While any notice may still go out, the activity is retried; the workflow gives up on the
	// notices left only when none can.
	if retry != nil {
		return retry
	}
	return final
}
