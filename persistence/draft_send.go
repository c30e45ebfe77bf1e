package persistence

import (
	"context"
	"errors"

	"github.com/sobre-sign/sobre/envelope"
)

// PrepareDistribution applies meta (nil: none) to envelope envelopeID, checks that it may be sent
// now (checkReady) and, when its requests are mailed for the first time, that they fit the mail
// quota (sendQuota; a PENDING envelope sent again mails no one its workflow did not already,
// unless this send switches it from links to email), and saves it, recording
// DOCUMENT_META_UPDATED when the meta changed. It returns the envelope as it is to be sent;
// starting its workflow is the caller's part. A bad meta value is reported at its path
// (meta.subject...).
func (s *Store) PrepareDistribution(ctx context.Context, ed Editor, checks EditChecks, envelopeID string, meta *envelope.MetaInput) (*envelope.Envelope, error) {
	var e *envelope.Envelope
	err := s.InTx(ctx, func(tx *Tx) error {
		ref, err := tx.LockEnvelope(ctx, ed.scope(), envelopeID)
		if err != nil {
			return err
		}
		if err := envelope.MayManage(ed.Member, ref.Owned()); err != nil {
			return err
		}
		if e, err = tx.GetEnvelope(ctx, ed.scope(), envelopeID); err != nil {
			return err
		}
		// A PENDING envelope sent by link until now mails its requests for the first time when
		// this send switches it to email: they are counted as a draft's are.
		firstMailing := e.Status == envelope.StatusDraft || e.Meta.DistributionMethod != envelope.DistributionEmail
		var p envelope.Problems
		changes := envelope.MetaAuditChanges(meta.Apply(&p, "meta", &e.Meta))
		if err := p.Err(); err != nil {
			return err
		}
		if err := checks.checkReady(e); err != nil {
			return err
		}
		if firstMailing {
			if err := checks.sendQuota(ctx, tx, e); err != nil {
				return err
			}
		}
		if err := tx.SaveEnvelope(ctx, e); err != nil {
			return err
		}
		if len(changes) > 0 {
			return tx.AppendAudit(ctx, e.ID, envelope.MetaUpdatedAudit(changes), ed.Actor)
		}
		return nil
	})
	return e, err
}

// checkSendable refuses to send e, a DRAFT, when it is not ready (checkReady) or when its
// signing requests would pass the mail quota (sendQuota).
func (c EditChecks) checkSendable(ctx context.Context, tx *Tx, e *envelope.Envelope) error {
	if err := c.checkReady(e); err != nil {
		return err
	}
	return c.sendQuota(ctx, tx, e)
}

// checkReady refuses to send e when it is not ready (envelope.CheckDistributable), or when one
// of its recipients could never act on this server (EditChecks.Signable: every such recipient is
// named at recipients[i].authOptions, under the code and message of the first).
func (c EditChecks) checkReady(e *envelope.Envelope) error {
	if err := envelope.CheckDistributable(e); err != nil {
		return err
	}
	return c.checkRecipientsSignable(e)
}

// sendQuota refuses sending e when its signing requests, to whoever may act now in e, would
// pass the mail quota (EditChecks.SendQuota, which reserves them).
func (c EditChecks) sendQuota(ctx context.Context, tx *Tx, e *envelope.Envelope) error {
	if c.SendQuota == nil {
		return nil
	}
	return c.SendQuota(ctx, tx, e)
}

func (c EditChecks) checkRecipientsSignable(e *envelope.Envelope) error {
	if c.Signable == nil {
		return nil
	}
	var issues []envelope.Issue
	var first *envelope.Error
	for i, r := range e.Recipients {
		if r.Role == envelope.RoleCC {
			continue
		}
		err := c.Signable(envelope.RequiredProofs(r, e.AuthOptions, e.Fields))
		var de *envelope.Error
		if errors.As(err, &de) {
			if first == nil {
				first = de
			}
			issues = append(issues, envelope.Issue{Path: envelope.Join(envelope.Join("recipients", i), "authOptions"), Message: de.Message})
		} else if err != nil {
			return err
		}
	}
	if first == nil {
		return nil
	}
	return &envelope.Error{Code: first.Code, Message: first.Message, Issues: issues}
}
