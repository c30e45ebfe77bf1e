package envelope

import (
	"testing"
	"time"
)

func TestWebhookRetryDelay(t *testing.T) {
	tests := []struct {
		attempt int
		delay   time.Duration
		ok      bool
	}{
		{0, 0, false},
		{1, 0, true},
		{2, 5 * time.Second, true},
		{3, 5 * time.Minute, true},
		{4, 30 * time.Minute, true},
		{5, 2 * time.Hour, true},
		{6, 5 * time.Hour, true},
		{7, 10 * time.Hour, true},
		{8, 10 * time.Hour, true},
		{9, 10 * time.Hour, true},
		{10, 0, false},
		{-1, 0, false},
	}
	for _, tt := range tests {
		delay, ok := WebhookRetryDelay(tt.attempt)
		if delay != tt.delay || ok != tt.ok {
			t.Errorf("WebhookRetryDelay(%d) = %v, %v; want %v, %v", tt.attempt, delay, ok, tt.delay, tt.ok)
		}
	}
}

// The whole schedule spans 37 h 35 min 5 s from the first attempt to the last.
func TestWebhookScheduleSpan(t *testing.T) {
	var total time.Duration
	for n := 1; ; n++ {
		d, ok := WebhookRetryDelay(n)
		if !ok {
			if n-1 != WebhookAttempts {
				t.Errorf("%d attempts, want %d", n-1, WebhookAttempts)
			}
			break
		}
		total += d
	}
	if want := 37*time.Hour + 35*time.Minute + 5*time.Second; total != want {
		t.Errorf("the schedule spans %v, want %v", total, want)
	}
}
