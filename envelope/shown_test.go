package envelope

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

func TestShown(t *testing.T) {
	tooLarge := fmt.Errorf("read body: %w", &http.MaxBytesError{Limit: 1024})
	cases := []struct {
		name     string
		err      error
		code     Code
		message  string
		internal bool
	}{
		{"a domain error as it is", fmt.Errorf("wrapped: %w", Errorf(CodeNotFound, "Envelope not found")), CodeNotFound, "Envelope not found", false},
		{"a body past its limit", tooLarge, CodePayloadTooLarge, "Request body larger than 1024 bytes", false},
		{"anything else, plainly", errors.New("connection refused by 10.0.0.7"), CodeInternal, "Internal server error", true},
		{"a database that cannot be reached", fmt.Errorf("load Envelope: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}),
			CodeUnavailable, "A service this needs cannot be reached right now: try again in a moment", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, internal := Shown(c.err)
			if got.Code != c.code || got.Message != c.message || internal != c.internal {
				t.Fatalf("Shown = %s %q internal=%v, want %s %q internal=%v", got.Code, got.Message, internal, c.code, c.message, c.internal)
			}
		})
	}
	if !BodyTooLarge(tooLarge) || BodyTooLarge(errors.New("x")) {
		t.Fatal("BodyTooLarge does not tell a body past its limit apart")
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	cases := []struct {
		wait time.Duration
		want int
	}{{0, 0}, {-time.Second, 0}, {time.Millisecond, 1}, {time.Second, 1}, {1500 * time.Millisecond, 2}, {5 * time.Minute, 300}}
	for _, c := range cases {
		e := &Error{Code: CodeTooManyRequests, RetryAfter: c.wait}
		if got := e.RetryAfterSeconds(); got != c.want {
			t.Errorf("RetryAfter %v: %d seconds, want %d", c.wait, got, c.want)
		}
	}
}
