package workflows

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"go.temporal.io/api/serviceerror"
	"google.golang.org/grpc/codes"

	"github.com/sobre-sign/sobre/envelope"
)

// DefaultCallTimeout is the deadline of one call to Temporal when Client.CallTimeout is zero. An
// Update answers within handlerWaitLimit of reaching the workflow (no mail is waited for beyond
// it), so the deadline leaves it room.
const DefaultCallTimeout = 10 * time.Second

// AwayRetryAfter is how long a caller is told to wait (Retry-After) when Temporal is away.
const AwayRetryAfter = 5 * time.Second

// temporalAway reports whether err means Temporal could not take or finish the call now: the
// connection is refused, or the call ended with gRPC code Unavailable (the server or its
// namespace is away), ResourceExhausted (it is busy) or DeadlineExceeded (the call's deadline
// passed). The code is read as the Temporal client reports it (serviceerror.ToStatus), so every
// service error of those codes counts. A call refused for what it asks (a domain error, an
// unknown workflow) or given up by its caller (Canceled) is not.
func temporalAway(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	switch serviceerror.ToStatus(err).Code() {
	case codes.Unavailable, codes.ResourceExhausted, codes.DeadlineExceeded:
		return true
	}
	return false
}

// awayError is what a caller is shown when Temporal is away (temporalAway): SERVICE_UNAVAILABLE
// with Retry-After, the cause kept in the chain for the log. The call may still have taken
// effect (Temporal may have accepted it before the deadline passed). A repeated distribute finds
// the running workflow; a repeated completion, rejection or cancel is refused as done already;
// a repeated resend that took effect mails its recipients again.
func awayError(err error) error {
	shown := &envelope.Error{Code: envelope.CodeUnavailable, RetryAfter: AwayRetryAfter,
		Message: "The workflow service is unavailable or busy: try again"}
	return fmt.Errorf("%w: %w", shown, err)
}
