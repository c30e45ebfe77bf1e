package envelope

import (
	"slices"
	"testing"
	"time"
)

func TestNotificationPlan(t *testing.T) {
	on := Meta{DistributionMethod: DistributionEmail, EmailSettings: DefaultEmailSettings()}
	off := Meta{DistributionMethod: DistributionEmail}
	link := Meta{DistributionMethod: DistributionNone, EmailSettings: DefaultEmailSettings()}
	rs := []ProgressRecipient{
		{ID: 1, Email: "a@x", Role: RoleSigner, SendStatus: SendStatusSent, SigningStatus: SigningStatusNotSigned},
		{ID: 2, Email: "b@x", Role: RoleSigner, SendStatus: SendStatusSent, SigningStatus: SigningStatusSigned},
		{ID: 3, Email: "c@x", Role: RoleCC, SendStatus: SendStatusSent, SigningStatus: SigningStatusNotSigned},
		{ID: 4, Email: "d@x", Role: RoleApprover, SendStatus: SendStatusNotSent, SigningStatus: SigningStatusNotSigned},
		{ID: 5, Role: RoleViewer, SendStatus: SendStatusSent, SigningStatus: SigningStatusNotSigned},
	}
	tests := []struct {
		name string
		got  []Notice
		want []Notice
	}{
		{"recipient completed", RecipientCompletedNotices(on, 2, false), []Notice{{Mail: MailRecipientSigned, About: 2}, {Mail: MailDocumentPending, RecipientID: 2}}},
		{"last recipient completed", RecipientCompletedNotices(on, 2, true), []Notice{{Mail: MailRecipientSigned, About: 2}}},
		{"recipient completed, by link", RecipientCompletedNotices(link, 2, false), []Notice{{Mail: MailRecipientSigned, About: 2}}},
		{"recipient completed, all off", RecipientCompletedNotices(off, 2, false), nil},
		{"completed", CompletedNotices(on, rs[:2]), []Notice{{Mail: MailDocumentCompleted, RecipientID: 1, Attach: true}, {Mail: MailDocumentCompleted, RecipientID: 2, Attach: true}, {Mail: MailOwnerCompleted, Attach: true}}},
		{"completed, by link", CompletedNotices(link, rs[:2]), []Notice{{Mail: MailOwnerCompleted, Attach: true}}},
		{"completed, all off", CompletedNotices(off, rs[:2]), nil},
		{"rejected", RejectedNotices(on, 1, rs), []Notice{{Mail: MailRejectionConfirmed, RecipientID: 1, About: 1}, {Mail: MailEnvelopeCancelled, RecipientID: 5, About: 1}, {Mail: MailOwnerRejected, About: 1}}},
		{"rejected, all off: sent anyway", RejectedNotices(off, 5, rs), []Notice{{Mail: MailRejectionConfirmed, RecipientID: 5, About: 5}, {Mail: MailEnvelopeCancelled, RecipientID: 1, About: 5}, {Mail: MailOwnerRejected, About: 5}}},
		{"rejected, by link", RejectedNotices(link, 1, rs), []Notice{{Mail: MailOwnerRejected, About: 1}}},
		{"cancelled", CancelledNotices(on, rs), []Notice{{Mail: MailEnvelopeCancelled, RecipientID: 1}, {Mail: MailEnvelopeCancelled, RecipientID: 5}}},
		{"cancelled, all off", CancelledNotices(off, rs), nil},
		{"deleted: only recipients with an address", DeletedNotices(on, rs), []Notice{{Mail: MailEnvelopeCancelled, RecipientID: 1}}},
		{"deleted, by link", DeletedNotices(link, rs), nil},
		{"expired", ExpiredNotices(on, []int64{1, 4}), []Notice{{Mail: MailOwnerExpired, About: 1}, {Mail: MailOwnerExpired, About: 4}}},
		{"expired, by link", ExpiredNotices(link, []int64{1}), []Notice{{Mail: MailOwnerExpired, About: 1}}},
		{"expired, all off", ExpiredNotices(off, []int64{1}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.got, tt.want) {
				t.Errorf("got %+v, want %+v", tt.got, tt.want)
			}
		})
	}
}

func TestWhoIsMailed(t *testing.T) {
	on := Meta{DistributionMethod: DistributionEmail, EmailSettings: DefaultEmailSettings()}
	off := Meta{DistributionMethod: DistributionEmail}
	link := Meta{DistributionMethod: DistributionNone, EmailSettings: DefaultEmailSettings()}
	waiting := ProgressRecipient{ID: 1, Email: "a@x", Role: RoleSigner, SigningStatus: SigningStatusNotSigned}
	signed := ProgressRecipient{ID: 1, Email: "a@x", Role: RoleSigner, SigningStatus: SigningStatusSigned}
	noMail := ProgressRecipient{ID: 1, Role: RoleSigner, SigningStatus: SigningStatusNotSigned}
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"request", RequestMailed(on, waiting), true},
		{"request, switched off", RequestMailed(off, waiting), false},
		{"request, by link", RequestMailed(link, waiting), false},
		{"request, no address", RequestMailed(on, noMail), false},
		{"resend, switched off: mailed", ResendMailed(off, waiting), true},
		{"resend, by link", ResendMailed(link, waiting), false},
		{"resend, no address", ResendMailed(on, noMail), false},
		{"replaced link", ReplacedLinkMailed(on, waiting, true), true},
		{"replaced link, never requested", ReplacedLinkMailed(on, waiting, false), false},
		{"replaced link, signed", ReplacedLinkMailed(on, signed, true), false},
		{"replaced link, switched off", ReplacedLinkMailed(off, waiting, true), false},
		{"removed", RemovedMailed(on, waiting, true), true},
		{"removed, never requested", RemovedMailed(on, waiting, false), false},
		{"removed, signed", RemovedMailed(on, signed, true), false},
		{"removed, switched off", RemovedMailed(off, waiting, true), false},
		{"removed, by link", RemovedMailed(link, waiting, true), false},
		{"removed, no address", RemovedMailed(on, noMail, true), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

func TestRequestEmailType(t *testing.T) {
	for role, want := range map[Role]string{RoleSigner: "SIGNING_REQUEST", RoleApprover: "APPROVE_REQUEST", RoleViewer: "VIEW_REQUEST", RoleAssistant: "ASSISTING_REQUEST", RoleCC: "SIGNING_REQUEST"} {
		if got := RequestEmailType(role); got != want {
			t.Errorf("RequestEmailType(%s) = %s, want %s", role, got, want)
		}
	}
}

// Each event's mails are its kind's plan, read from the event.
func TestEventNotices(t *testing.T) {
	on := Meta{DistributionMethod: DistributionEmail, EmailSettings: DefaultEmailSettings()}
	rs := []ProgressRecipient{
		{ID: 1, Email: "a@x", Role: RoleSigner, SendStatus: SendStatusSent, SigningStatus: SigningStatusNotSigned},
		{ID: 2, Email: "b@x", Role: RoleSigner, SendStatus: SendStatusSent, SigningStatus: SigningStatusSigned},
		{ID: 5, Role: RoleViewer, SendStatus: SendStatusSent, SigningStatus: SigningStatusNotSigned},
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	r2 := Recipient{ID: 2, EnvelopeID: "envelope_1"}
	tests := []struct {
		name  string
		event Event
		want  []Notice
	}{
		{"recipient completed, others to act", RecipientCompletedEvent(r2, Completion{}, false, now), RecipientCompletedNotices(on, 2, false)},
		{"recipient completed, the last", RecipientCompletedEvent(r2, Completion{}, true, now), RecipientCompletedNotices(on, 2, true)},
		{"recipient expired", RecipientExpiredEvent(r2, now), ExpiredNotices(on, []int64{2})},
		{"completed", CompletedEvent("envelope_1", "run", now), CompletedNotices(on, rs)},
		{"rejected by recipient 1", RejectedEvent("envelope_1", "run", 1, "no", now), RejectedNotices(on, 1, rs)},
		{"cancelled", CancelledEvent("envelope_1", "no", now), CancelledNotices(on, rs)},
		{"removed while pending", RemovedEvent("envelope_1", now), DeletedNotices(on, rs)},
		{"a finished envelope hidden: nobody is told again", DeletedEvent("envelope_1", now), nil},
		{"a recipient's rejection: told when it ends the envelope", RecipientRejectedEvent(r2, "no", Rejection{}, now), nil},
		{"sent", SentEvent("envelope_1", now), nil},
		{"opened", OpenedEvent(r2, now), nil},
		{"a reminder", MailedEvent(r2, EmailTypeReminder, true, now), nil},
		{"a recipient's completion without its recipient", Event{Kind: EventRecipientCompleted}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Notices(tt.event, on, rs)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
