package workflows

import (
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

func TestStuck(t *testing.T) {
	const pending, completed, draft = envelope.StatusPending, envelope.StatusCompleted, envelope.StatusDraft
	tests := []struct {
		name      string
		status    envelope.Status
		run       Run
		abandoned bool
		want      bool
	}{
		{"pending, running", pending, RunRunning, false, false},
		{"pending, running, abandoned (about to end)", pending, RunRunning, true, false},
		{"pending, terminated or failed", pending, RunFailed, false, true},
		{"pending, failed while abandoned: its expiries may be unnoted", pending, RunFailed, true, true},
		{"pending, no workflow at all", pending, RunMissing, false, true},
		{"pending, runs deleted after it was abandoned", pending, RunMissing, true, false},
		{"pending, ended abandoned", pending, RunEnded, true, false},
		{"pending, ended, someone may act again (a recipient added since)", pending, RunEnded, false, true},
		{"completed, its run ended", completed, RunEnded, false, false},
		{"completed, its runs deleted", completed, RunMissing, false, false},
		{"completed, its last run terminated after finishing", completed, RunFailed, false, false},
		{"a draft never ran", draft, RunMissing, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Stuck(tt.status, tt.run, tt.abandoned); got != tt.want {
				t.Errorf("Stuck(%s, %s, %v) = %v, want %v", tt.status, tt.run, tt.abandoned, got, tt.want)
			}
		})
	}
}
