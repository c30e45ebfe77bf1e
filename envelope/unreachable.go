package envelope

import (
	"errors"
	"io"
	"net"
	"strings"
	"time"
)

// UnreachableRetryAfter is the Retry-After of an answer Shown gives when a service the call needs
// cannot be reached.
const UnreachableRetryAfter = 5 * time.Second

// Unreachable reports whether err says that a service the call needs (PostgreSQL, any peer on
// the network) could not be reached or went away mid-call: a network operation that failed
// (*net.OpError, as a refused connection), a connection cut short (io.ErrUnexpectedEOF), or a
// PostgreSQL error of SQLSTATE class 08 (connection exception) or 57P01–57P03 (the server
// shutting down, crashed, or not yet accepting connections). The caller may try again.
func Unreachable(err error) bool {
	var opErr *net.OpError
	if errors.As(err, &opErr) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		state := pg.SQLState()
		return strings.HasPrefix(state, "08") || state == "57P01" || state == "57P02" || state == "57P03"
	}
	return false
}
