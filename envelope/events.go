package envelope

import "time"

// EventKind is what happened to an envelope.
type EventKind string

// Event kinds.
const (
	EventSent               = EventKind("SENT")                // the envelope left DRAFT
	EventRecipientMailed    = EventKind("RECIPIENT_MAILED")    // a recipient was mailed the envelope
	EventReminderSent       = EventKind("REMINDER_SENT")       // a recipient was mailed a reminder
	EventOpened             = EventKind("OPENED")              // a recipient opened it the first time
	EventFieldInserted      = EventKind("FIELD_INSERTED")      // a recipient filled (signed) a field
	EventRecipientCompleted = EventKind("RECIPIENT_COMPLETED") // a recipient signed, approved or viewed
	EventRecipientRejected  = EventKind("RECIPIENT_REJECTED")  // a recipient rejected it
	EventRecipientExpired   = EventKind("RECIPIENT_EXPIRED")   // a recipient's deadline passed
	EventCompleted          = EventKind("COMPLETED")           // every recipient acted
	EventRejected           = EventKind("REJECTED")            // it ended because a recipient rejected it
	EventCancelled          = EventKind("CANCELLED")           // its owner cancelled it
	EventDeleted            = EventKind("DELETED")             // a finished envelope was hidden (soft delete)
	EventRemoved            = EventKind("REMOVED")             // its owner deleted it while PENDING: it ended and was removed
	EventMailRefused        = EventKind("MAIL_REFUSED")        // the relay refused a mail for good (beyond Documenso)
)

// EmailTypeReminder is the EMAIL_SENT emailType of a reminder.
const EmailTypeReminder = "REMINDER"

// Event is one thing that happened to an envelope. The domain produces it; the audit entry
// (Audit), and whatever else follows from the happening, derive from this one value. It
// carries no secret: a recipient's token is cleared.
type Event struct {
	Kind       EventKind
	EnvelopeID string
	// Recipient is whom it happened to; nil for what happened to the envelope as a whole.
	Recipient *Recipient
	At        time.Time
	// Reason is why: a rejection's or a cancellation's reason.
	Reason string
	// Field and Value are the field a recipient filled and its value as the log shows it
	// (EventFieldInserted).
	Field *Field
	Value string
	// EmailType and Resending are the mail a recipient was sent (EventRecipientMailed,
	// EventReminderSent), as EMAIL_SENT names it.
	EmailType string
	Resending bool
	// Completion is how a recipient completed (EventRecipientCompleted), and AllDone whether,
	// with that, nobody who must act is left (AllDone).
	Completion *Completion
	AllDone    bool
	// Rejection is who recorded a recipient's rejection (EventRecipientRejected).
	Rejection *Rejection
	// TransactionID names the run that ended the envelope (EventCompleted, EventRejected).
	TransactionID string
	// RejectedBy is the recipient whose rejection ended the envelope (EventRejected).
	RejectedBy int64
	// Answer is the relay's answer to a mail it refused (EventMailRefused).
	Answer string
}

// Rejection is how a rejection was recorded: External when through the API on the recipient's
// behalf, by the team member OnBehalfOf (nil when none is named).
type Rejection struct {
	External   bool
	OnBehalfOf *Person
}

// Person is someone named in an entry by name and address.
type Person struct {
	Name  string
	Email string
}

// withoutToken is r without its signing token, for an event.
func withoutToken(r Recipient) *Recipient {
	r.Token = ""
	return &r
}

// SentEvent is envelope id leaving DRAFT at at.
func SentEvent(id string, at time.Time) Event { return Event{Kind: EventSent, EnvelopeID: id, At: at} }

// MailedEvent is recipient r being sent a mail of emailType (EMAIL_SENT's emailType; a
// EmailTypeReminder is EventReminderSent, any other EventRecipientMailed), resending when it was
// sent before.
func MailedEvent(r Recipient, emailType string, resending bool, at time.Time) Event {
	kind := EventRecipientMailed
	if emailType == EmailTypeReminder {
		kind = EventReminderSent
	}
	return Event{Kind: kind, EnvelopeID: r.EnvelopeID, Recipient: withoutToken(r), At: at, EmailType: emailType, Resending: resending}
}

// MailRefusedEvent is the relay refusing for good a mail of emailType (EMAIL_SENT's emailType
// for a request or a reminder, the mail's kind for any other) with answer. r is the recipient it
// was for, nil for a mail to the owner or to someone no longer a recipient.
func MailRefusedEvent(envelopeID string, r *Recipient, emailType string, resending bool, answer string, at time.Time) Event {
	e := Event{Kind: EventMailRefused, EnvelopeID: envelopeID, At: at, EmailType: emailType, Resending: resending, Answer: answer}
	if r != nil {
		e.Recipient = withoutToken(*r)
	}
	return e
}

// OpenedEvent is recipient r opening the envelope for the first time.
func OpenedEvent(r Recipient, at time.Time) Event {
	return Event{Kind: EventOpened, EnvelopeID: r.EnvelopeID, Recipient: withoutToken(r), At: at}
}

// FieldInsertedEvent is recipient r filling field f with value, as the log shows it: a
// signature's image or typed name is not shown (value "").
func FieldInsertedEvent(r Recipient, f Field, value string, at time.Time) Event {
	return Event{Kind: EventFieldInserted, EnvelopeID: r.EnvelopeID, Recipient: withoutToken(r), At: at, Field: &f, Value: value}
}

// RecipientCompletedEvent is recipient r completing as c tells; allDone when, with that, nobody
// who must act is left.
func RecipientCompletedEvent(r Recipient, c Completion, allDone bool, at time.Time) Event {
	return Event{Kind: EventRecipientCompleted, EnvelopeID: r.EnvelopeID, Recipient: withoutToken(r), At: at, Completion: &c, AllDone: allDone}
}

// RecipientRejectedEvent is recipient r rejecting the envelope for reason, recorded as how tells.
func RecipientRejectedEvent(r Recipient, reason string, how Rejection, at time.Time) Event {
	return Event{Kind: EventRecipientRejected, EnvelopeID: r.EnvelopeID, Recipient: withoutToken(r), At: at, Reason: reason, Rejection: &how}
}

// RecipientExpiredEvent is recipient r's deadline passing, noted at at.
func RecipientExpiredEvent(r Recipient, at time.Time) Event {
	return Event{Kind: EventRecipientExpired, EnvelopeID: r.EnvelopeID, Recipient: withoutToken(r), At: at}
}

// CompletedEvent is envelope id ending COMPLETED, by run transactionID.
func CompletedEvent(id, transactionID string, at time.Time) Event {
	return Event{Kind: EventCompleted, EnvelopeID: id, At: at, TransactionID: transactionID}
}

// RejectedEvent is envelope id ending REJECTED, by run transactionID, because recipient by
// rejected it for reason.
func RejectedEvent(id, transactionID string, by int64, reason string, at time.Time) Event {
	return Event{Kind: EventRejected, EnvelopeID: id, At: at, TransactionID: transactionID, RejectedBy: by, Reason: reason}
}

// CancelledEvent is envelope id ending CANCELLED for reason.
func CancelledEvent(id, reason string, at time.Time) Event {
	return Event{Kind: EventCancelled, EnvelopeID: id, At: at, Reason: reason}
}

// DeletedEvent is finished envelope id being hidden from searches.
func DeletedEvent(id string, at time.Time) Event {
	return Event{Kind: EventDeleted, EnvelopeID: id, At: at}
}

// RemovedEvent is PENDING envelope id being deleted by its owner: it ends and is removed with
// its audit log, so the event writes no entry (Audit has no Type).
func RemovedEvent(id string, at time.Time) Event {
	return Event{Kind: EventRemoved, EnvelopeID: id, At: at}
}

// Ending is the status an event ends its envelope in: COMPLETED, REJECTED or CANCELLED, and
// false for an event that ends nothing.
func (e Event) Ending() (Status, bool) {
	switch e.Kind {
	case EventCompleted:
		return StatusCompleted, true
	case EventRejected:
		return StatusRejected, true
	case EventCancelled:
		return StatusCancelled, true
	}
	return "", false
}

// Audit is the audit entry the event writes: DOCUMENT_SENT {}, EMAIL_SENT R+{emailType,
// isResending}, DOCUMENT_OPENED R+{accessAuth}, DOCUMENT_FIELD_INSERTED R+{fieldId, field:
// {type, data}}, DOCUMENT_RECIPIENT_COMPLETED (Completion), DOCUMENT_RECIPIENT_REJECTED
// R+{reason, isExternal?, onBehalfOfUserEmail?, onBehalfOfUserName?},
// DOCUMENT_RECIPIENT_EXPIRED {recipientEmail, recipientName, recipientId}, DOCUMENT_COMPLETED
// {transactionId} (with isRejected and rejectionReason when rejected), DOCUMENT_CANCELLED
// {reason} and DOCUMENT_DELETED {type: SOFT}. An event of an unknown kind, or lacking what its
// kind needs, gives an Audit with no Type.
func (e Event) Audit() Audit {
	r := e.Recipient
	switch {
	case e.Kind == EventSent:
		return Audit{AuditSent, map[string]any{}}
	case (e.Kind == EventRecipientMailed || e.Kind == EventReminderSent) && r != nil:
		return Audit{AuditEmailSent, with(recipientData(*r), map[string]any{"emailType": e.EmailType, "isResending": e.Resending})}
	case e.Kind == EventMailRefused:
		data := map[string]any{"emailType": e.EmailType, "isResending": e.Resending, "error": e.Answer}
		if r != nil {
			data = with(recipientData(*r), data)
		}
		return Audit{AuditEmailRefused, data}
	case e.Kind == EventOpened && r != nil:
		return Audit{AuditOpened, openedData(*r)}
	case e.Kind == EventFieldInserted && r != nil && e.Field != nil:
		return Audit{AuditFieldInserted, with(recipientData(*r), map[string]any{"fieldId": e.Field.SecondaryID,
			"field": map[string]any{"type": e.Field.Type, "data": e.Value}})}
	case e.Kind == EventRecipientCompleted && r != nil && e.Completion != nil:
		return Audit{AuditRecipientCompleted, with(recipientData(*r), e.Completion.auditData())}
	case e.Kind == EventRecipientRejected && r != nil && e.Rejection != nil:
		return Audit{AuditRecipientRejected, with(recipientData(*r), e.Rejection.auditData(e.Reason))}
	case e.Kind == EventRecipientExpired && r != nil:
		return Audit{AuditRecipientExpired, accessData(*r)}
	case e.Kind == EventCompleted:
		return Audit{AuditCompleted, map[string]any{"transactionId": e.TransactionID}}
	case e.Kind == EventRejected:
		return Audit{AuditCompleted, map[string]any{"transactionId": e.TransactionID, "isRejected": true, "rejectionReason": e.Reason}}
	case e.Kind == EventCancelled:
		return Audit{AuditCancelled, map[string]any{"reason": e.Reason}}
	case e.Kind == EventDeleted:
		return Audit{AuditDeleted, map[string]any{"type": "SOFT"}}
	}
	return Audit{}
}

// auditData is what DOCUMENT_RECIPIENT_REJECTED records besides R.
func (j Rejection) auditData(reason string) map[string]any {
	data := map[string]any{"reason": reason}
	if j.External {
		data["isExternal"] = true
	}
	if j.OnBehalfOf != nil {
		data["onBehalfOfUserEmail"], data["onBehalfOfUserName"] = j.OnBehalfOf.Email, j.OnBehalfOf.Name
	}
	return data
}
