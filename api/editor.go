package api

import (
	"context"
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// editor is the caller as the store's changes of an envelope name them: the member, and the
// actor of their audit entries.
func (s *Server) editor(r *http.Request) persistence.Editor {
	return persistence.Editor{Member: member(r), Actor: s.actor(r)}
}

// editChecks are this server's refusals of a change of an envelope: a recipient whose proofs
// the ceremony cannot take (ceremony.CheckSignable) and recipients' or a send's mails past the
// team's quota.
func (s *Server) editChecks() persistence.EditChecks {
	return persistence.EditChecks{Signable: s.ceremony.CheckSignable, Quota: s.recipientsQuota, SendQuota: s.sendQuota}
}

// recipientsQuota refuses a change of recipients whose workflow's mails (mailsOnRecipientChange)
// pass the team's mail quota.
func (s *Server) recipientsQuota(ctx context.Context, tx *persistence.Tx, c persistence.RecipientsChange) error {
	return s.checkMailQuota(ctx, tx, c.After.TeamID, mailsOnRecipientChange(c.Before, c.After, c.Replaced, c.Removed))
}

// sendQuota refuses sending e whose signing requests (envelope.RequestsOnDistribute) pass the
// team's mail quota, and otherwise reserves them in tx until their mails are claimed.
func (s *Server) sendQuota(ctx context.Context, tx *persistence.Tx, e *envelope.Envelope) error {
	return tx.ReserveMailQuota(ctx, e, s.cfg.MailQuota)
}
