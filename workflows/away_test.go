package workflows

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sobre-sign/sobre/envelope"
)

func TestTemporalAway(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"unavailable", serviceerror.NewUnavailable("connection refused"), true},
		{"resource exhausted", wrap(&serviceerror.ResourceExhausted{Message: "busy"}), true},
		{"server deadline", serviceerror.NewDeadlineExceeded("deadline"), true},
		{"the call's deadline", wrap(context.DeadlineExceeded), true},
		{"connection refused", wrap(refused), true},
		{"grpc unavailable", wrap(status.Error(codes.Unavailable, "no connection")), true},
		{"grpc resource exhausted", status.Error(codes.ResourceExhausted, "busy"), true},
		{"namespace unavailable", wrap(serviceerror.NewNamespaceUnavailable("default")), true},
		{"caller went away", wrap(context.Canceled), false},
		{"workflow not found", wrap(serviceerror.NewNotFound("no workflow")), false},
		{"already started", serviceerror.NewWorkflowExecutionAlreadyStarted("done", "", ""), false},
		{"domain refusal", temporal.NewApplicationError("turn", string(envelope.CodeRecipientOutOfTurn)), false},
		{"grpc invalid argument", status.Error(codes.InvalidArgument, "bad"), false},
		{"anything else", errors.New("boom"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := temporalAway(tt.err); got != tt.want {
				t.Errorf("temporalAway(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func wrap(err error) error { return fmt.Errorf("distribute env_1: %w", err) }

func TestFromErrorAway(t *testing.T) {
	err := fromError(wrap(serviceerror.NewUnavailable("connection refused")))
	shown, internal := envelope.Shown(err)
	if internal || shown.Code != envelope.CodeUnavailable || shown.RetryAfter != AwayRetryAfter {
		t.Fatalf("shown %+v (internal %v), want SERVICE_UNAVAILABLE with RetryAfter %v", shown, internal, AwayRetryAfter)
	}
	var cause *serviceerror.Unavailable
	if !errors.As(err, &cause) {
		t.Errorf("cause lost from %v", err)
	}
}

// While the last health check found Temporal away, every call of the client but Refresh answers
// SERVICE_UNAVAILABLE with Retry-After at once, without reaching Temporal (the client here has
// none: a call that tried would panic). Refresh tells of a change already committed: it tries
// within its deadline whatever the check says.
func TestCallsRefusedAtOnceWhileAway(t *testing.T) {
	c := &Client{Away: func() bool { return true }}
	ctx := context.Background()
	calls := map[string]func() error{
		"distribute": func() error { return c.Distribute(ctx, "envelope_x", 1) },
		"complete":   func() error { return c.Complete(ctx, "envelope_x", CompleteRequest{RecipientID: 1}) },
		"cancel":     func() error { return c.Cancel(ctx, "envelope_x", CancelRequest{}) },
		"state":      func() error { _, err := c.State(ctx, "envelope_x"); return err },
		"run":        func() error { _, err := c.RunOf(ctx, "envelope_x"); return err },
	}
	for name, call := range calls {
		err := call()
		var de *envelope.Error
		if !errors.As(err, &de) || de.Code != envelope.CodeUnavailable || de.RetryAfter != AwayRetryAfter {
			t.Errorf("%s while away: %v, want SERVICE_UNAVAILABLE with Retry-After", name, err)
		}
	}
}
