package envelope

import (
	"slices"
)

// WebhookEvent is the name of an event a webhook may subscribe to: exactly Documenso's names.
type WebhookEvent string

// Webhook events.
const (
	WebhookDocumentCreated            = WebhookEvent("DOCUMENT_CREATED")
	WebhookDocumentSent               = WebhookEvent("DOCUMENT_SENT")
	WebhookDocumentOpened             = WebhookEvent("DOCUMENT_OPENED")
	WebhookDocumentSigned             = WebhookEvent("DOCUMENT_SIGNED")
	WebhookDocumentRecipientCompleted = WebhookEvent("DOCUMENT_RECIPIENT_COMPLETED")
	WebhookDocumentCompleted          = WebhookEvent("DOCUMENT_COMPLETED")
	WebhookDocumentRejected           = WebhookEvent("DOCUMENT_REJECTED")
	WebhookDocumentCancelled          = WebhookEvent("DOCUMENT_CANCELLED")
	WebhookRecipientExpired           = WebhookEvent("RECIPIENT_EXPIRED")
	WebhookDocumentReminderSent       = WebhookEvent("DOCUMENT_REMINDER_SENT")
	WebhookTemplateCreated            = WebhookEvent("TEMPLATE_CREATED")
	WebhookTemplateUpdated            = WebhookEvent("TEMPLATE_UPDATED")
	WebhookTemplateDeleted            = WebhookEvent("TEMPLATE_DELETED")
	WebhookTemplateUsed               = WebhookEvent("TEMPLATE_USED")
)

// WebhookEvents lists every webhook event, in Documenso's order.
func WebhookEvents() []WebhookEvent {
	return []WebhookEvent{WebhookDocumentCreated, WebhookDocumentSent, WebhookDocumentOpened, WebhookDocumentSigned,
		WebhookDocumentRecipientCompleted, WebhookDocumentCompleted, WebhookDocumentRejected, WebhookDocumentCancelled,
		WebhookRecipientExpired, WebhookDocumentReminderSent, WebhookTemplateCreated, WebhookTemplateUpdated,
		WebhookTemplateDeleted, WebhookTemplateUsed}
}

// Valid reports whether w is one of WebhookEvents.
func (w WebhookEvent) Valid() bool { return slices.Contains(WebhookEvents(), w) }

// MaxWebhooks is how many webhooks one team may have.
const MaxWebhooks = 25

// CheckWebhookTriggers records at path the problems of a webhook's event triggers: at least one,
// each one of WebhookEvents, none twice. A list longer than WebhookEvents cannot be right and is
// one problem at path, not one per item: a 400 is never much larger than the body it refuses.
func CheckWebhookTriggers(p *Problems, path string, triggers []WebhookEvent) {
	switch {
	case len(triggers) == 0:
		p.Add(path, "must name at least one event")
		return
	case len(triggers) > len(WebhookEvents()):
		p.Add(path, "must name at most %d events, each once; got %d", len(WebhookEvents()), len(triggers))
		return
	}
	for i, t := range triggers {
		switch {
		case !t.Valid():
			p.Add(Join(path, i), "must be one of %v, got %q", WebhookEvents(), t)
		case slices.Index(triggers, t) < i:
			p.Add(Join(path, i), "names %s twice", t)
		}
	}
}

// CheckWebhookUpdate records the problems of changing a webhook, documensoCompatible now when
// compatible, to documensoCompatible setCompatible (nil: unchanged) and to another URL when
// urlChanged. A documensoCompatible webhook sends its secret in clear (X-Documenso-Secret) to its
// URL, so that whoever may change a webhook could otherwise read its secret without rotating it
// (the integrator's consumer would go on trusting it): documensoCompatible is turned on only when
// a webhook is created, and a documensoCompatible webhook's URL does not change (a new webhook is
// made for another URL).
func CheckWebhookUpdate(p *Problems, compatible bool, setCompatible *bool, urlChanged bool) {
	if !compatible && setCompatible != nil && *setCompatible {
		p.Add("documensoCompatible", "is turned on only when a webhook is created: it sends the secret in clear to the URL")
	}
	if compatible && urlChanged {
		p.Add("webhookUrl", "cannot change on a documensoCompatible webhook, which sends its secret in clear to its URL: create a new webhook")
	}
}

// MayManageWebhooks decides whether member m may create, read, change, test or delete its team's
// webhooks and see their calls: a MANAGER or an ADMIN may; a MEMBER may not (FORBIDDEN). A
// webhook of another team is never reached: the store looks webhooks up in m's team only, so it
// is NOT_FOUND.
func MayManageWebhooks(m Member) error {
	if m.Role == TeamRoleManager || m.Role == TeamRoleAdmin {
		return nil
	}
	return Errorf(CodeForbidden, "Only a MANAGER or an ADMIN may manage the team's webhooks; your team role is %s", m.Role)
}

// WebhookEvents are the webhook events that event e sends, in the order they are delivered:
//
//   - SENT: DOCUMENT_SENT; OPENED (a recipient's first open): DOCUMENT_OPENED;
//   - RECIPIENT_COMPLETED: DOCUMENT_SIGNED when the recipient is a SIGNER, then
//     DOCUMENT_RECIPIENT_COMPLETED for every role;
//   - COMPLETED, REJECTED, CANCELLED (the envelope's ending): DOCUMENT_COMPLETED,
//     DOCUMENT_REJECTED, DOCUMENT_CANCELLED;
//   - RECIPIENT_EXPIRED: RECIPIENT_EXPIRED; REMINDER_SENT: DOCUMENT_REMINDER_SENT;
//   - every other event (a mail, a field filled, a recipient's rejection before the ending, a
//     soft delete, a refused mail): none; REMOVED (deleted by its owner while PENDING) sends
//     DOCUMENT_CANCELLED when the store removes it (DeletedWebhookEvent).
//
// Creating, changing, deleting and using templates and creating documents are not domain
// events; the store sends their webhook events (DOCUMENT_CREATED, TEMPLATE_*) where it writes
// them.
func (e Event) WebhookEvents() []WebhookEvent {
	switch e.Kind {
	case EventSent:
		return []WebhookEvent{WebhookDocumentSent}
	case EventOpened:
		return []WebhookEvent{WebhookDocumentOpened}
	case EventRecipientCompleted:
		if e.Recipient != nil && e.Recipient.Role == RoleSigner {
			return []WebhookEvent{WebhookDocumentSigned, WebhookDocumentRecipientCompleted}
		}
		return []WebhookEvent{WebhookDocumentRecipientCompleted}
	case EventCompleted:
		return []WebhookEvent{WebhookDocumentCompleted}
	case EventRejected:
		return []WebhookEvent{WebhookDocumentRejected}
	case EventCancelled:
		return []WebhookEvent{WebhookDocumentCancelled}
	case EventRecipientExpired:
		return []WebhookEvent{WebhookRecipientExpired}
	case EventReminderSent:
		return []WebhookEvent{WebhookDocumentReminderSent}
	}
	return nil
}

// CreatedWebhookEvent is the webhook event of creating an envelope of type t: DOCUMENT_CREATED
// or TEMPLATE_CREATED.
func CreatedWebhookEvent(t Type) WebhookEvent {
	if t == TypeTemplate {
		return WebhookTemplateCreated
	}
	return WebhookDocumentCreated
}

// DeletedWebhookEvent is the webhook event of deleting for good an envelope of type t in status
// s, if any: TEMPLATE_DELETED for a template; DOCUMENT_CANCELLED for a PENDING document (its
// owner deleted it while it was out); none for a draft.
func DeletedWebhookEvent(t Type, s Status) (WebhookEvent, bool) {
	switch {
	case t == TypeTemplate:
		return WebhookTemplateDeleted, true
	case s == StatusPending:
		return WebhookDocumentCancelled, true
	}
	return "", false
}

// WebhookRoute is a line of delivery: the calls of one envelope (EnvelopeID, of team TeamID) to
// one webhook (WebhookID), delivered in the order their events happened. One workflow delivers
// every line of an envelope (its route names the envelope only: WebhookID empty), each line
// after its own retries, so that a failing endpoint holds back only its own line.
type WebhookRoute struct {
	WebhookID  string
	EnvelopeID string
	TeamID     int64
}
