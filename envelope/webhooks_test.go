package envelope

import (
	"slices"
	"testing"
	"time"
)

func TestEventWebhookEvents(t *testing.T) {
	signer := Recipient{ID: 1, EnvelopeID: "envelope_a", Role: RoleSigner}
	approver := Recipient{ID: 2, EnvelopeID: "envelope_a", Role: RoleApprover}
	at := time.Now()
	tests := []struct {
		name string
		ev   Event
		want []WebhookEvent
	}{
		{"sent", SentEvent("envelope_a", at), []WebhookEvent{WebhookDocumentSent}},
		{"opened", OpenedEvent(signer, at), []WebhookEvent{WebhookDocumentOpened}},
		{"signer completed: signed, then completed", RecipientCompletedEvent(signer, Completion{}, false, at),
			[]WebhookEvent{WebhookDocumentSigned, WebhookDocumentRecipientCompleted}},
		{"approver completed: completed only", RecipientCompletedEvent(approver, Completion{}, false, at),
			[]WebhookEvent{WebhookDocumentRecipientCompleted}},
		{"completed", CompletedEvent("envelope_a", "run", at), []WebhookEvent{WebhookDocumentCompleted}},
		{"rejected", RejectedEvent("envelope_a", "run", 1, "no", at), []WebhookEvent{WebhookDocumentRejected}},
		{"cancelled", CancelledEvent("envelope_a", "why", at), []WebhookEvent{WebhookDocumentCancelled}},
		{"expired", RecipientExpiredEvent(signer, at), []WebhookEvent{WebhookRecipientExpired}},
		{"reminder", MailedEvent(signer, EmailTypeReminder, false, at), []WebhookEvent{WebhookDocumentReminderSent}},
		{"request mail: none", MailedEvent(signer, "SIGNING_REQUEST", false, at), nil},
		{"recipient rejected: none until the ending", RecipientRejectedEvent(signer, "no", Rejection{}, at), nil},
		{"field inserted: none", FieldInsertedEvent(signer, Field{}, "x", at), nil},
		{"soft delete: none", DeletedEvent("envelope_a", at), nil},
		{"removed: the store's deletion sends it", RemovedEvent("envelope_a", at), nil},
		{"mail refused: none", MailRefusedEvent("envelope_a", &signer, "REMINDER", false, "550", at), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ev.WebhookEvents(); !slices.Equal(got, tt.want) {
				t.Fatalf("WebhookEvents() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDeletedWebhookEvent(t *testing.T) {
	tests := []struct {
		typ    Type
		status Status
		want   WebhookEvent
		ok     bool
	}{
		{TypeTemplate, StatusDraft, WebhookTemplateDeleted, true},
		{TypeDocument, StatusPending, WebhookDocumentCancelled, true},
		{TypeDocument, StatusDraft, "", false},
		{TypeDocument, StatusCompleted, "", false},
	}
	for _, tt := range tests {
		got, ok := DeletedWebhookEvent(tt.typ, tt.status)
		if got != tt.want || ok != tt.ok {
			t.Errorf("DeletedWebhookEvent(%s, %s) = %s, %v; want %s, %v", tt.typ, tt.status, got, ok, tt.want, tt.ok)
		}
	}
	if CreatedWebhookEvent(TypeTemplate) != WebhookTemplateCreated || CreatedWebhookEvent(TypeDocument) != WebhookDocumentCreated {
		t.Fatal("CreatedWebhookEvent names the wrong event")
	}
}

func TestCheckWebhookTriggers(t *testing.T) {
	tests := []struct {
		name     string
		triggers []WebhookEvent
		paths    []string
	}{
		{"one known", []WebhookEvent{WebhookDocumentSigned}, nil},
		{"all", WebhookEvents(), nil},
		{"none", nil, []string{"eventTriggers"}},
		{"unknown", []WebhookEvent{WebhookDocumentSent, "DOCUMENT_EXPLODED"}, []string{"eventTriggers[1]"}},
		{"twice", []WebhookEvent{WebhookDocumentSent, WebhookDocumentSent}, []string{"eventTriggers[1]"}},
		{"more than there are", slices.Repeat([]WebhookEvent{"DOCUMENT_EXPLODED"}, 10000), []string{"eventTriggers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Problems
			CheckWebhookTriggers(&p, "eventTriggers", tt.triggers)
			var got []string
			for _, i := range p.issues {
				got = append(got, i.Path)
			}
			if !slices.Equal(got, tt.paths) {
				t.Fatalf("problems at %v, want %v", got, tt.paths)
			}
		})
	}
	if len(WebhookEvents()) != 14 {
		t.Fatalf("%d webhook events, Documenso has 14", len(WebhookEvents()))
	}
}

func TestMayManageWebhooks(t *testing.T) {
	for role, ok := range map[TeamRole]bool{TeamRoleAdmin: true, TeamRoleManager: true, TeamRoleMember: false} {
		err := MayManageWebhooks(Member{TeamID: 1, UserID: 2, Role: role})
		if (err == nil) != ok {
			t.Errorf("%s: err = %v", role, err)
		}
		if err != nil && ErrorCode(err) != CodeForbidden {
			t.Errorf("%s: code %s, want FORBIDDEN", role, ErrorCode(err))
		}
	}
}

func TestCheckWebhookUpdate(t *testing.T) {
	on, off := true, false
	tests := []struct {
		name       string
		compatible bool
		set        *bool
		urlChanged bool
		paths      []string
	}{
		{"a standard webhook changes its URL", false, nil, true, nil},
		{"a standard webhook stays standard", false, &off, true, nil},
		{"compatibility turned on by update", false, &on, false, []string{"documensoCompatible"}},
		{"a compatible webhook keeps its URL", true, nil, false, nil},
		{"a compatible webhook turned off", true, &off, false, nil},
		{"a compatible webhook's URL changed", true, nil, true, []string{"webhookUrl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Problems
			CheckWebhookUpdate(&p, tt.compatible, tt.set, tt.urlChanged)
			var got []string
			for _, i := range p.issues {
				got = append(got, i.Path)
			}
			if !slices.Equal(got, tt.paths) {
				t.Fatalf("problems at %v, want %v", got, tt.paths)
			}
		})
	}
}
