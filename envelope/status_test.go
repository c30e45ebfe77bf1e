package envelope

import (
	"testing"
	"time"
)

func TestStatusGuards(t *testing.T) {
	tests := []struct {
		status                   Status
		editable, pending, draft Code // "" for nil
	}{
		{StatusDraft, "", CodeEnvelopeDraft, ""},
		{StatusPending, "", "", CodeEnvelopeNotDraft},
		{StatusCompleted, CodeEnvelopeCompleted, CodeEnvelopeCompleted, CodeEnvelopeNotDraft},
		{StatusRejected, CodeEnvelopeRejected, CodeEnvelopeRejected, CodeEnvelopeNotDraft},
		{StatusCancelled, CodeEnvelopeCancelled, CodeEnvelopeCancelled, CodeEnvelopeNotDraft},
	}
	code := func(err error) Code {
		if err == nil {
			return ""
		}
		return ErrorCode(err)
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			if got := code(RequireEditable(tt.status)); got != tt.editable {
				t.Errorf("RequireEditable = %q, want %q", got, tt.editable)
			}
			if got := code(RequirePending(tt.status)); got != tt.pending {
				t.Errorf("RequirePending = %q, want %q", got, tt.pending)
			}
			if got := code(RequireDraft(tt.status, "Fields can only be updated")); got != tt.draft {
				t.Errorf("RequireDraft = %q, want %q", got, tt.draft)
			}
		})
	}
	if len(Statuses()) != len(tests) {
		t.Errorf("%d statuses, %d tested", len(Statuses()), len(tests))
	}
}

func TestStatusGuardMessages(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{RequireEditable(StatusCompleted), "ENVELOPE_COMPLETED: Envelope is COMPLETED and can no longer change"},
		{RequirePending(StatusCancelled), "ENVELOPE_CANCELLED: Envelope is CANCELLED and can no longer change"},
		{RequirePending(StatusDraft), "ENVELOPE_DRAFT: The envelope has not been sent"},
		{RequireDraft(StatusPending, "Documents can only change"), "ENVELOPE_NOT_DRAFT: Documents can only change while the envelope is DRAFT; it is PENDING"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestSigningLinksOpen(t *testing.T) {
	deleted := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		status  Status
		deleted *time.Time
		want    bool
	}{
		{StatusDraft, nil, false},
		{StatusPending, nil, true},
		{StatusCompleted, nil, true},
		{StatusRejected, nil, true},
		{StatusCancelled, nil, true},
		{StatusPending, &deleted, false},
		{StatusCompleted, &deleted, false},
	}
	for _, tt := range tests {
		e := &Envelope{Status: tt.status, DeletedAt: tt.deleted}
		if got := e.SigningLinksOpen(); got != tt.want {
			t.Errorf("%s deleted=%v: SigningLinksOpen = %v, want %v", tt.status, tt.deleted != nil, got, tt.want)
		}
	}
}
