package envelope

import "time"

// MailQuotaWindow is the window of a team's mail quota (SOBRE_MAIL_QUOTA): the mails it sent in
// the last 24 hours count.
const MailQuotaWindow = 24 * time.Hour

// RequestsOnDistribute is the recipients distributing e mails a signing request now: each one
// with an email address who may act now and was not sent it yet (the workflow's sendRequests),
// none when the envelope is sent by link.
func RequestsOnDistribute(e *Envelope) []int64 {
	m := e.Meta
	if m.DistributionMethod != DistributionEmail || !m.EmailSettings.RecipientSigningRequest {
		return nil
	}
	var ids []int64
	for _, id := range MayActNow(m.SigningOrder, Participants(e.Recipients)) {
		if r := e.Recipient(id); r != nil && r.Email != "" && r.SendStatus != SendStatusSent {
			ids = append(ids, id)
		}
	}
	return ids
}
