package envelope

// The notification plan: which mails each of an envelope's events sends, to whom, under
// documentMeta's emailSettings. Mails to recipients go only to an envelope sent by email
// (distributionMethod EMAIL); the owner's mails go whatever the distribution.

// Mail is the kind of a mail: the mail package writes one text of each kind in every language.
type Mail string

// The kinds of mail the envelope's events send.
const (
	MailSigningRequest     = Mail("signing_request")         // to a recipient whose turn it is (recipientSigningRequest)
	MailReminder           = Mail("reminder")                // to a recipient who has not acted (reminderSettings)
	MailRecipientSigned    = Mail("recipient_signed")        // to the owner (recipientSigned)
	MailDocumentPending    = Mail("document_pending")        // to a recipient who acted while others have not (documentPending)
	MailDocumentCompleted  = Mail("document_completed")      // to every recipient, with the PDFs (documentCompleted)
	MailOwnerCompleted     = Mail("owner_completed")         // to the owner, with the PDFs (ownerDocumentCompleted)
	MailRejectionConfirmed = Mail("rejection_confirmed")     // to the recipient who rejected
	MailOwnerRejected      = Mail("owner_rejected")          // to the owner
	MailEnvelopeCancelled  = Mail("envelope_cancelled")      // to recipients waiting to act (documentDeleted, or a rejection)
	MailOwnerExpired       = Mail("owner_recipient_expired") // to the owner (ownerRecipientExpired)
	MailRecipientRemoved   = Mail("recipient_removed")       // to a recipient taken off a sent envelope (recipientRemoved)
	// The owner's mails about trouble, sent whatever emailSettings say.
	MailOwnerSealFailed = Mail("owner_seal_failed")      // the envelope could not be sealed
	MailOwnerCodeLocked = Mail("owner_code_locked")      // a recipient's access-code entry locked
	MailOwnerIdentity   = Mail("owner_identity_refused") // a RUN other than the expected one was refused
)

// Mails lists every Mail.
func Mails() []Mail {
	return []Mail{MailSigningRequest, MailReminder, MailRecipientSigned, MailDocumentPending, MailDocumentCompleted,
		MailOwnerCompleted, MailRejectionConfirmed, MailOwnerRejected, MailEnvelopeCancelled, MailOwnerExpired,
		MailRecipientRemoved, MailOwnerSealFailed, MailOwnerCodeLocked, MailOwnerIdentity, MailOwnerDirectCreated}
}

// Notice is one mail of a plan: its kind, whom it goes to (a recipient's id, or 0 for the
// envelope's owner) and whom it is about (the recipient who acted, rejected or expired; 0 for
// none).
type Notice struct {
	Mail        Mail
	RecipientID int64
	About       int64
	Attach      bool // with the envelope's PDFs
}

func byEmail(m Meta) bool { return m.DistributionMethod == DistributionEmail }

// waiting reports whether r was sent the envelope and has yet to act: those are told when it
// is cancelled, rejected by another or deleted.
func waiting(r ProgressRecipient) bool {
	return r.Role != RoleCC && r.SendStatus == SendStatusSent && r.SigningStatus == SigningStatusNotSigned
}

// RequestMailed reports whether a recipient whose turn it is gets their signing request by mail
// (recipientSigningRequest, and they have an address); otherwise they are only marked sent and
// get their link from the caller.
func RequestMailed(m Meta, r ProgressRecipient) bool {
	return byEmail(m) && m.EmailSettings.RecipientSigningRequest && r.Email != ""
}

// ResendMailed reports whether a recipient the envelope is sent again to is mailed their request:
// whenever they have an address (a resend is asked for; recipientSigningRequest does not apply).
func ResendMailed(m Meta, r ProgressRecipient) bool {
	return byEmail(m) && r.Email != ""
}

// ReplacedLinkMailed reports whether a recipient whose signing link was replaced (their email or
// authentication changed) is mailed the new one: when they were requested before, have not
// acted and recipientSigningRequest is on.
func ReplacedLinkMailed(m Meta, r ProgressRecipient, requested bool) bool {
	return requested && r.SigningStatus == SigningStatusNotSigned && RequestMailed(m, r)
}

// RemovedMailed reports whether a recipient taken off the envelope is told (recipientRemoved):
// when they were requested before and had not acted.
func RemovedMailed(m Meta, r ProgressRecipient, requested bool) bool {
	return byEmail(m) && m.EmailSettings.RecipientRemoved && requested && r.SigningStatus == SigningStatusNotSigned && r.Email != ""
}

// Notices is the notification plan of event ev on an envelope with meta m and recipients:
// RecipientCompletedNotices for a recipient's completion (with ev.AllDone), ExpiredNotices for a
// recipient's deadline, CompletedNotices, RejectedNotices (by ev.RejectedBy) and
// CancelledNotices for the envelope's ending, DeletedNotices when it is removed while PENDING.
// Every other event sends no mail of the plan (the signing requests and reminders are sent as
// the signing order and the reminder schedule decide, and a recipient's rejection is told when
// it ends the envelope).
func Notices(ev Event, m Meta, recipients []ProgressRecipient) []Notice {
	switch {
	case ev.Kind == EventRecipientCompleted && ev.Recipient != nil:
		return RecipientCompletedNotices(m, ev.Recipient.ID, ev.AllDone)
	case ev.Kind == EventRecipientExpired && ev.Recipient != nil:
		return ExpiredNotices(m, []int64{ev.Recipient.ID})
	case ev.Kind == EventCompleted:
		return CompletedNotices(m, recipients)
	case ev.Kind == EventRejected:
		return RejectedNotices(m, ev.RejectedBy, recipients)
	case ev.Kind == EventCancelled:
		return CancelledNotices(m, recipients)
	case ev.Kind == EventRemoved:
		return DeletedNotices(m, recipients)
	}
	return nil
}

// RecipientCompletedNotices is the plan when recipient id signs, approves or views: the owner
// is told (recipientSigned) and, while others have still to act (allDone false), the recipient
// is told the envelope waits for them (documentPending).
func RecipientCompletedNotices(m Meta, id int64, allDone bool) []Notice {
	var out []Notice
	if m.EmailSettings.RecipientSigned {
		out = append(out, Notice{Mail: MailRecipientSigned, About: id})
	}
	if byEmail(m) && m.EmailSettings.DocumentPending && !allDone {
		out = append(out, Notice{Mail: MailDocumentPending, RecipientID: id})
	}
	return out
}

// CompletedNotices is the plan when the envelope is completed: every recipient gets the sealed
// PDFs (documentCompleted), and the owner too (ownerDocumentCompleted).
func CompletedNotices(m Meta, recipients []ProgressRecipient) []Notice {
	var out []Notice
	if byEmail(m) && m.EmailSettings.DocumentCompleted {
		for _, r := range recipients {
			out = append(out, Notice{Mail: MailDocumentCompleted, RecipientID: r.ID, Attach: true})
		}
	}
	if m.EmailSettings.OwnerDocumentCompleted {
		out = append(out, Notice{Mail: MailOwnerCompleted, Attach: true})
	}
	return out
}

// RejectedNotices is the plan when recipient id rejects the envelope, whatever the
// emailSettings: the recipient gets a confirmation and every other recipient waiting to act is
// told the envelope is cancelled; the owner is told in any case.
func RejectedNotices(m Meta, id int64, recipients []ProgressRecipient) []Notice {
	var out []Notice
	if byEmail(m) {
		out = append(out, Notice{Mail: MailRejectionConfirmed, RecipientID: id, About: id})
		for _, r := range recipients {
			if r.ID != id && waiting(r) {
				out = append(out, Notice{Mail: MailEnvelopeCancelled, RecipientID: r.ID, About: id})
			}
		}
	}
	return append(out, Notice{Mail: MailOwnerRejected, About: id})
}

// CancelledNotices is the plan when the owner cancels the envelope: every recipient waiting to
// act is told (documentDeleted).
func CancelledNotices(m Meta, recipients []ProgressRecipient) []Notice {
	var out []Notice
	if byEmail(m) && m.EmailSettings.DocumentDeleted {
		for _, r := range recipients {
			if waiting(r) {
				out = append(out, Notice{Mail: MailEnvelopeCancelled, RecipientID: r.ID})
			}
		}
	}
	return out
}

// DeletedNotices is the plan when the owner deletes a PENDING envelope: every recipient waiting
// to act who has an address is told (documentDeleted).
func DeletedNotices(m Meta, recipients []ProgressRecipient) []Notice {
	var out []Notice
	for _, n := range CancelledNotices(m, recipients) {
		for _, r := range recipients {
			if r.ID == n.RecipientID && r.Email != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

// ExpiredNotices is the plan when recipients' time to act runs out: the owner is told of each
// (ownerRecipientExpired).
func ExpiredNotices(m Meta, expired []int64) []Notice {
	if !m.EmailSettings.OwnerRecipientExpired {
		return nil
	}
	out := make([]Notice, 0, len(expired))
	for _, id := range expired {
		out = append(out, Notice{Mail: MailOwnerExpired, About: id})
	}
	return out
}

// RequestEmailType names a signing request (and its resends) in the audit log, by the
// recipient's role, as Documenso.
func RequestEmailType(role Role) string {
	switch role {
	case RoleApprover:
		return "APPROVE_REQUEST"
	case RoleViewer:
		return "VIEW_REQUEST"
	case RoleAssistant:
		return "ASSISTING_REQUEST"
	}
	return "SIGNING_REQUEST"
}
