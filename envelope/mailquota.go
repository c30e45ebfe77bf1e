package envelope

import "time"

// MailQuotaWindow is the window of a team's mail quota (SOBRE_MAIL_QUOTA): the mails it sent in
// the last 24 hours count.
const MailQuotaWindow = 24 * time.Hour

// MailsOnDistribute is how many signing requests distributing e mails now: one to each
// recipient with an email address who may act now and was not sent it yet (the workflow's
// sendRequests), none when the envelope is sent by link.
func MailsOnDistribute(e *Envelope) int {
	m := e.Meta
	if m.DistributionMethod != DistributionEmail || !m.EmailSettings.RecipientSigningRequest {
		return 0
	}
	n := 0
	for _, id := range MayActNow(m.SigningOrder, Participants(e.Recipients)) {
		if r := e.Recipient(id); r != nil && r.Email != "" && r.SendStatus != SendStatusSent {
			n++
		}
	}
	return n
}
