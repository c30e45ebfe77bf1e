package envelope

import (
	"testing"
	"time"
)

func TestCodeBackoff(t *testing.T) {
	tests := []struct {
		failures int
		want     time.Duration
	}{
		{0, 0}, {1, 0}, {2, 0}, {3, 0},
		{4, time.Second}, {5, 2 * time.Second}, {6, 4 * time.Second}, {7, 8 * time.Second},
		{11, 128 * time.Second}, {12, 256 * time.Second},
		{13, 5 * time.Minute}, {19, 5 * time.Minute}, {20, 5 * time.Minute}, {1000, 5 * time.Minute},
	}
	for _, tt := range tests {
		if got := CodeBackoff(tt.failures); got != tt.want {
			t.Errorf("CodeBackoff(%d) = %v, want %v", tt.failures, got, tt.want)
		}
	}
	var total time.Duration
	for n := 1; n < DefaultMaxCodeFailures; n++ {
		total += CodeBackoff(n)
	}
	if total < 43*time.Minute {
		t.Errorf("20 wrong codes take at least %v, want 43 minutes or more", total)
	}
}

func TestCheckCodeEntry(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		entry CodeEntry
		max   int
		code  Code
		retry time.Duration
	}{
		{"nothing typed yet", CodeEntry{}, 20, "", 0},
		{"three wrong codes, no wait", CodeEntry{Failures: 3, LastFailed: now}, 20, "", 0},
		{"fourth wrong code a moment ago", CodeEntry{Failures: 4, LastFailed: now.Add(-100 * time.Millisecond)}, 20, CodeTooManyRequests, time.Second},
		{"fourth wrong code a second ago", CodeEntry{Failures: 4, LastFailed: now.Add(-time.Second)}, 20, "", 0},
		{"tenth wrong code 10 s ago", CodeEntry{Failures: 10, LastFailed: now.Add(-10 * time.Second)}, 20, CodeTooManyRequests, 54 * time.Second},
		{"nineteenth wrong code just now", CodeEntry{Failures: 19, LastFailed: now}, 20, CodeTooManyRequests, 5 * time.Minute},
		{"nineteenth wrong code 5 minutes ago", CodeEntry{Failures: 19, LastFailed: now.Add(-5 * time.Minute)}, 20, "", 0},
		{"twentieth wrong code: locked", CodeEntry{Failures: 20, LastFailed: now.Add(-24 * time.Hour)}, 20, CodeAccessCodeLocked, 0},
		{"locked past the ceiling", CodeEntry{Failures: 25, LastFailed: now.Add(-24 * time.Hour)}, 20, CodeAccessCodeLocked, 0},
		{"a lower ceiling", CodeEntry{Failures: 5, LastFailed: now.Add(-time.Hour)}, 5, CodeAccessCodeLocked, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckCodeEntry(tt.entry, tt.max, now)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e, ok := err.(*Error)
			if !ok || e.Code != tt.code || e.RetryAfter != tt.retry {
				t.Fatalf("got %v (retry after %v), want %s (retry after %v)", err, e.RetryAfter, tt.code, tt.retry)
			}
		})
	}
}

func TestLinkShowsDocument(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	days := func(n int) time.Time { return now.Add(time.Duration(n) * 24 * time.Hour) }
	at := func(t time.Time) *time.Time { return &t }
	readFor := 30 * 24 * time.Hour
	tests := []struct {
		name      string
		status    Status
		completed *time.Time
		updated   time.Time
		rec       Recipient
		shows     bool
		until     time.Time
	}{
		{"pending, no deadline", StatusPending, nil, days(-100), Recipient{SigningStatus: SigningStatusNotSigned}, true, time.Time{}},
		{"pending, deadline ahead", StatusPending, nil, days(-100), Recipient{SigningStatus: SigningStatusNotSigned, ExpiresAt: at(days(1))}, true, time.Time{}},
		{"pending, expired 29 days ago", StatusPending, nil, days(-100), Recipient{SigningStatus: SigningStatusNotSigned, ExpiresAt: at(days(-29))}, true, days(1)},
		{"pending, expired 31 days ago", StatusPending, nil, days(-100), Recipient{SigningStatus: SigningStatusNotSigned, ExpiresAt: at(days(-31))}, false, days(-1)},
		{"pending, signed before the deadline passed", StatusPending, nil, days(-100), Recipient{SigningStatus: SigningStatusSigned, ExpiresAt: at(days(-31))}, true, time.Time{}},
		{"completed 10 days ago", StatusCompleted, at(days(-10)), days(-10), Recipient{SigningStatus: SigningStatusSigned}, true, days(20)},
		{"completed 30 days ago to the second", StatusCompleted, at(days(-30)), days(-10), Recipient{SigningStatus: SigningStatusSigned}, false, now},
		{"rejected 40 days ago", StatusRejected, at(days(-40)), days(-40), Recipient{SigningStatus: SigningStatusNotSigned}, false, days(-10)},
		{"cancelled 2 days ago", StatusCancelled, at(days(-2)), days(-2), Recipient{SigningStatus: SigningStatusNotSigned}, true, days(28)},
		{"cancelled without completedAt: its last update", StatusCancelled, nil, days(-31), Recipient{}, false, days(-1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Envelope{Status: tt.status, CompletedAt: tt.completed, UpdatedAt: tt.updated}
			shows, until := LinkShowsDocument(e, tt.rec, now, readFor)
			if shows != tt.shows || !until.Equal(tt.until) {
				t.Fatalf("shows %v until %v, want %v until %v", shows, until, tt.shows, tt.until)
			}
		})
	}
}
