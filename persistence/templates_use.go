package persistence

import (
	"context"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// CreateFromTemplate creates ne, a DOCUMENT made from a template, for the editor and returns it.
// With send, it must be ready to be sent at once (checkSendable), or it is not created either;
// starting its workflow is the caller's part.
func (s *Store) CreateFromTemplate(ctx context.Context, ed Editor, checks EditChecks, ne NewEnvelope, send bool) (*envelope.Envelope, error) {
	var created *envelope.Envelope
	err := s.InTx(ctx, func(tx *Tx) error {
		id, err := tx.CreateEnvelope(ctx, ed.Member, ne, ed.Actor)
		if err != nil {
			return err
		}
		if err := tx.emitWebhooks(ctx, id, time.Now(), envelope.WebhookTemplateUsed); err != nil {
			return err
		}
		if created, err = tx.GetEnvelope(ctx, ed.scope(), id); err != nil {
			return err
		}
		if !send {
			return nil
		}
		return checks.checkSendable(ctx, tx, created)
	})
	return created, err
}
