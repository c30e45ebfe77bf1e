package workflows

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"go.temporal.io/api/serviceerror"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sobre-sign/sobre/envelope"
)

// DefaultCallTimeout is the deadline of one call to Temporal when Client.CallTimeout is zero. An
// Update answers once the workflow's step is done, its mails included, so it leaves room for a
// slow mail relay.
const DefaultCallTimeout = 30 * time.Second

// AwayRetryAfter is how long a caller is told to wait (Retry-After) when Temporal is away.
const AwayRetryAfter = 5 * time.Second

// temporalAway reports whether err means Temporal could not take or finish the call now: the
// server is unavailable or refuses the connection, it is out of resources, or the call's deadline
// passed. A call refused for what it asks (a domain error, an unknown workflow) is not.
func temporalAway(err error) bool {
	if err == nil {
		return false
	}
	var (
		unavailable *serviceerror.Unavailable
		exhausted   *serviceerror.ResourceExhausted
		deadline    *serviceerror.DeadlineExceeded
	)
	switch {
	case errors.As(err, &unavailable), errors.As(err, &exhausted), errors.As(err, &deadline),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, syscall.ECONNREFUSED):
		return true
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.ResourceExhausted, codes.DeadlineExceeded:
		return true
	}
	return false
}

// awayError is what a caller is shown when Temporal is away (temporalAway): SERVICE_UNAVAILABLE
// with Retry-After, the cause kept in the chain for the log. The call may still have taken
// effect (Temporal may have accepted it before the deadline passed); repeating a call of Client
// never does its work twice, so the message says to try again.
func awayError(err error) error {
	shown := &envelope.Error{Code: envelope.CodeUnavailable, RetryAfter: AwayRetryAfter,
		Message: "The workflow service is unavailable or busy: try again"}
	return fmt.Errorf("%w: %w", shown, err)
}
