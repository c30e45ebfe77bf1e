package workflows

import (
	"errors"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/envelope"
)

// An Update that reaches the workflow once its ending is decided (while it seals, say) or done is
// refused with the ending's code and the message callers have always been shown.
func TestActingRefusedOnceEnded(t *testing.T) {
	tests := []struct {
		name     string
		r        run
		wantCode envelope.Code
		wantMsg  string
	}{
		{"running", run{initialized: true, snap: envelope.Progress{Status: envelope.StatusPending}}, "", ""},
		{"completion decided, sealing", run{initialized: true, snap: envelope.Progress{Status: envelope.StatusPending},
			end: &ending{status: envelope.StatusCompleted}}, envelope.CodeEnvelopeCompleted, "The envelope is COMPLETED"},
		{"rejection decided", run{initialized: true, snap: envelope.Progress{Status: envelope.StatusPending},
			end: &ending{status: envelope.StatusRejected}}, envelope.CodeEnvelopeRejected, "The envelope is REJECTED"},
		{"deleted", run{initialized: true, snap: envelope.Progress{Status: envelope.StatusPending},
			end: &ending{status: envelope.StatusCancelled, deleted: true}}, envelope.CodeEnvelopeCancelled, "The envelope is CANCELLED"},
		{"finished", run{initialized: true, finished: true, snap: envelope.Progress{Status: envelope.StatusCancelled}},
			envelope.CodeEnvelopeCancelled, "The envelope is CANCELLED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.r.acting()
			if tt.wantCode == "" {
				if err != nil {
					t.Fatalf("acting() = %v, want nil", err)
				}
				return
			}
			var app *temporal.ApplicationError
			if !errors.As(err, &app) {
				t.Fatalf("acting() = %v, want an application error", err)
			}
			if app.Type() != string(tt.wantCode) || app.Message() != tt.wantMsg {
				t.Errorf("acting() = %s %q, want %s %q", app.Type(), app.Message(), tt.wantCode, tt.wantMsg)
			}
		})
	}
}
