package envelope

import (
	"reflect"
	"testing"
	"time"
)

func TestEventEnding(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	r := Recipient{ID: 7, EnvelopeID: "envelope_1"}
	cases := []struct {
		name   string
		event  Event
		status Status
		ends   bool
	}{
		{"completed", CompletedEvent("envelope_1", "run", now), StatusCompleted, true},
		{"rejected", RejectedEvent("envelope_1", "run", 7, "no", now), StatusRejected, true},
		{"cancelled", CancelledEvent("envelope_1", "no", now), StatusCancelled, true},
		{"a recipient's rejection ends nothing by itself", RecipientRejectedEvent(r, "no", Rejection{}, now), "", false},
		{"sent", SentEvent("envelope_1", now), "", false},
		{"deleted", DeletedEvent("envelope_1", now), "", false},
		{"removed (it ends, but there is no envelope left to be in a status)", RemovedEvent("envelope_1", now), "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, ends := c.event.Ending()
			if status != c.status || ends != c.ends {
				t.Errorf("Ending() = %q, %v; want %q, %v", status, ends, c.status, c.ends)
			}
		})
	}
}

func TestEventKinds(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	r := Recipient{ID: 7, EnvelopeID: "envelope_1", Token: "secret"}
	cases := []struct {
		name  string
		event Event
		kind  EventKind
	}{
		{"a signing request", MailedEvent(r, "SIGNING_REQUEST", false, now), EventRecipientMailed},
		{"a resent request", MailedEvent(r, "SIGNING_REQUEST", true, now), EventRecipientMailed},
		{"a reminder", MailedEvent(r, EmailTypeReminder, true, now), EventReminderSent},
		{"a refused mail", MailRefusedEvent(r.EnvelopeID, &r, "SIGNING_REQUEST", false, "550 no", now), EventMailRefused},
		{"opened", OpenedEvent(r, now), EventOpened},
		{"field inserted", FieldInsertedEvent(r, Field{}, "", now), EventFieldInserted},
		{"completed", RecipientCompletedEvent(r, Completion{}, false, now), EventRecipientCompleted},
		{"rejected", RecipientRejectedEvent(r, "no", Rejection{}, now), EventRecipientRejected},
		{"expired", RecipientExpiredEvent(r, now), EventRecipientExpired},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.event.Kind != c.kind {
				t.Errorf("kind = %s, want %s", c.event.Kind, c.kind)
			}
			if c.event.EnvelopeID != "envelope_1" || c.event.Recipient == nil || c.event.Recipient.ID != 7 || !c.event.At.Equal(now) {
				t.Errorf("event = %+v, want recipient 7 of envelope_1 at %s", c.event, now)
			}
			if c.event.Recipient.Token != "" {
				t.Error("the event carries the recipient's signing token")
			}
		})
	}
}

// An event that lacks what its kind records writes nothing (Tx.Record refuses an entry without
// a type) rather than a partial entry.
func TestEventAuditIncomplete(t *testing.T) {
	cases := []struct {
		name  string
		event Event
	}{
		{"unknown kind", Event{Kind: "SOMETHING", EnvelopeID: "envelope_1"}},
		{"opened without a recipient", Event{Kind: EventOpened, EnvelopeID: "envelope_1"}},
		{"field inserted without a field", Event{Kind: EventFieldInserted, Recipient: &Recipient{}}},
		{"completed without a completion", Event{Kind: EventRecipientCompleted, Recipient: &Recipient{}}},
		{"rejected without how", Event{Kind: EventRecipientRejected, Recipient: &Recipient{}}},
		{"removed: no log is left to write to", RemovedEvent("envelope_1", time.Time{})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if a := c.event.Audit(); a.Type != "" || a.Data != nil {
				t.Errorf("Audit() = %+v, want none", a)
			}
		})
	}
}

// An ending event handed on to the store is the same event.
func TestEndingRoundTrip(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, ev := range []Event{CompletedEvent("envelope_1", "run", now), RejectedEvent("envelope_1", "run", 7, "no", now), CancelledEvent("envelope_1", "ya no", now)} {
		t.Run(string(ev.Kind), func(t *testing.T) {
			got := EndingOf(ev, SystemActor()).Event()
			if !reflect.DeepEqual(got, ev) {
				t.Errorf("Event() = %+v, want %+v", got, ev)
			}
			if g, w := got.Audit(), ev.Audit(); g.Type != w.Type || !reflect.DeepEqual(g.Data, w.Data) {
				t.Errorf("Audit() = %+v, want %+v", g, w)
			}
		})
	}
}
