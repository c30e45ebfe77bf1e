package envelope

import (
	"errors"
	"net/http"
	"time"
)

// Shown is the error a caller is shown for err, on the API and on the pages alike: a domain
// error as it is; a body read past its limit (BodyTooLarge) as PAYLOAD_TOO_LARGE naming the
// limit; a service the call needs that cannot be reached (Unreachable) as SERVICE_UNAVAILABLE
// with Retry-After; anything else as INTERNAL_SERVER_ERROR with a plain message. Both of the
// last are internal: their cause is for the log, never for the caller.
func Shown(err error) (shown *Error, internal bool) {
	if errors.As(err, &shown) {
		return shown, false
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return Errorf(CodePayloadTooLarge, "Request body larger than %d bytes", tooLarge.Limit), false
	}
	if Unreachable(err) {
		return &Error{Code: CodeUnavailable, Message: "A service this needs cannot be reached right now: try again in a moment",
			RetryAfter: UnreachableRetryAfter}, true
	}
	return Errorf(CodeInternal, "Internal server error"), true
}

// BodyTooLarge reports whether err is a request body read past its limit
// (http.MaxBytesReader), which Shown answers PAYLOAD_TOO_LARGE.
func BodyTooLarge(err error) bool {
	var tooLarge *http.MaxBytesError
	return errors.As(err, &tooLarge)
}

// RetryAfterSeconds is the Retry-After header of e, in whole seconds rounded up; 0 when e does
// not say when to try again.
func (e *Error) RetryAfterSeconds() int {
	if e.RetryAfter <= 0 {
		return 0
	}
	return int((e.RetryAfter + time.Second - 1) / time.Second)
}
