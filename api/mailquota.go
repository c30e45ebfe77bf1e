package api

import (
	"context"
	"slices"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// The team's mail quota (SOBRE_MAIL_QUOTA). A request a member makes that would mail recipients
// (distribute, redistribute, use with distributeDocument, and on a PENDING envelope a change of
// its recipients that its workflow answers with mail: mailsOnRecipientChange) is refused with a 429 and nothing
// done when the team's mails of the last 24 hours and the ones it would send pass the quota:
// the caller is told at once and can try again once Retry-After has passed. Mails the
// envelopes' workflows send on their own (the next signer's request, reminders, completion and
// owner notices) are counted but never held back, so no envelope already sent stops half-way.
// A send's signing requests (distribute, use with distributeDocument) are reserved in its
// transaction (sendQuota): they count from then on, before their workflow claims and sends them.

// checkMailQuota refuses a request that would send need mails for team teamID past the quota.
// A request inside a transaction passes it as tx, and the count runs in it: a handler holding a
// connection must never wait for a second one (a few at once would take the whole pool and wait
// for each other); tx is nil outside one.
func (s *Server) checkMailQuota(ctx context.Context, tx *persistence.Tx, teamID int64, need int) error {
	if s.cfg.MailQuota == 0 || need == 0 {
		return nil
	}
	if tx != nil {
		return tx.CheckMailQuota(ctx, teamID, s.cfg.MailQuota, need, envelope.MailQuotaWindow)
	}
	return s.store.CheckMailQuota(ctx, teamID, s.cfg.MailQuota, need, envelope.MailQuotaWindow)
}

// mailsOnRedistribute is how many mails sending e again to the recipients ids mails: one to each
// listed recipient with an email address who has not acted.
func mailsOnRedistribute(e *envelope.Envelope, ids []int64) int {
	if e.Meta.DistributionMethod != envelope.DistributionEmail {
		return 0
	}
	var seen []int64
	for _, id := range ids {
		r := e.Recipient(id)
		if r == nil || slices.Contains(seen, id) || r.Email == "" || r.SigningStatus != envelope.SigningStatusNotSigned {
			continue
		}
		seen = append(seen, id)
	}
	return len(seen)
}

// mailsOnRecipientChange is how many mails the workflow of e, PENDING and now holding after (its
// recipients changed, not yet committed), sends when it reads the change: a signing request to
// each recipient who may act now and was not sent one (an added recipient, or one whose turn a
// change of order or a removal brought: in envelope.RequestsOnDistribute of after, not of e, whose
// requests the send reserved or the workflow sent already), the request again with its new link
// to each listed replaced recipient who was requested (sent one, or due one before the change)
// and has not acted (their email or authentication changed), and the "removed" mail to the
// removed recipient if it was so requested and had not acted. None for an envelope that is not PENDING: nothing was sent yet.
func mailsOnRecipientChange(e, after *envelope.Envelope, replaced []envelope.Recipient, removed *envelope.Recipient) int {
	if e.Status != envelope.StatusPending || after.Meta.DistributionMethod != envelope.DistributionEmail {
		return 0
	}
	// The requests due before the change were reserved by the send, or sent: only those the
	// change brings count.
	due := envelope.RequestsOnDistribute(e)
	n := 0
	for _, id := range envelope.RequestsOnDistribute(after) {
		if !slices.Contains(due, id) {
			n++
		}
	}
	// Requested: sent, or due before the change (its request may still be on its way).
	requested := func(r envelope.Recipient) bool {
		return (r.SendStatus == envelope.SendStatusSent || slices.Contains(due, r.ID)) &&
			r.SigningStatus == envelope.SigningStatusNotSigned && r.Email != ""
	}
	if after.Meta.EmailSettings.RecipientSigningRequest {
		for _, r := range replaced {
			if requested(r) {
				n++
			}
		}
	}
	if r := removed; r != nil && after.Meta.EmailSettings.RecipientRemoved && requested(*r) {
		n++
	}
	return n
}
