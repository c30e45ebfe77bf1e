package activities

import (
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

func TestNextSealStep(t *testing.T) {
	required := TSAPolicy{RetryFor: time.Hour}
	optional := TSAPolicy{RetryFor: time.Hour, Optional: true}
	tests := []struct {
		name    string
		f       envelope.SealFailure
		attempt int32
		since   time.Duration
		p       TSAPolicy
		want    sealStep
	}{
		{"TSA down, within its retry time", envelope.SealTSAUnavailable, 20, 59 * time.Minute, required, retrySeal},
		{"TSA down, within its retry time, past the other failures' attempts", envelope.SealTSAUnavailable, 30, time.Minute, optional, retrySeal},
		{"TSA down for its retry time, required: given up", envelope.SealTSAUnavailable, 12, time.Hour, required, giveUpSeal},
		{"TSA down for its retry time, optional: sealed without", envelope.SealTSAUnavailable, 12, time.Hour, optional, sealUnstamped},
		{"TSA down, no retry time, optional: sealed without at once", envelope.SealTSAUnavailable, 1, 0, TSAPolicy{Optional: true}, sealUnstamped},
		{"not configured: given up at once", envelope.SealNotConfigured, 1, 0, optional, giveUpSeal},
		{"chain broken: given up at once", envelope.SealChainBroken, 1, 0, optional, giveUpSeal},
		{"not shown: given up at once", envelope.SealNotShown, 1, 0, optional, giveUpSeal},
		{"unreadable: given up at once", envelope.SealUnreadable, 1, 0, optional, giveUpSeal},
		{"panic: given up at once", envelope.SealPanic, 1, 0, optional, giveUpSeal},
		{"a failure that may pass, first attempt", "", 1, 0, required, retrySeal},
		{"a failure that may pass, seventh attempt", "", 7, 10 * time.Minute, required, retrySeal},
		{"a failure that may pass, eighth attempt: given up", "", 8, 20 * time.Minute, required, giveUpSeal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextSealStep(tt.f, tt.attempt, tt.since, tt.p); got != tt.want {
				t.Errorf("nextSealStep(%q, %d, %v, %+v) = %v, want %v", tt.f, tt.attempt, tt.since, tt.p, got, tt.want)
			}
		})
	}
}

func TestRefusalReason(t *testing.T) {
	for f, want := range map[envelope.SealFailure]string{envelope.SealNotConfigured: "not_configured", envelope.SealChainBroken: "chain",
		envelope.SealNotShown: "not_shown", envelope.SealUnreadable: "unreadable", envelope.SealSignatureLayout: "signature_layout", envelope.SealPanic: "panic"} {
		if got := refusalReason(f); got != want {
			t.Errorf("refusalReason(%q) = %q, want %q", f, got, want)
		}
	}
}
