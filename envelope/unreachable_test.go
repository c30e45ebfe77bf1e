package envelope

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
)

// sqlStateError is an error with a SQLSTATE, as PostgreSQL's driver reports one.
type sqlStateError string

func (e sqlStateError) Error() string    { return "postgres: " + string(e) }
func (e sqlStateError) SQLState() string { return string(e) }

func TestUnreachable(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"a refused connection", fmt.Errorf("failed to connect: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), true},
		{"a connection cut short", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"a connection exception", sqlStateError("08006"), true},
		{"the server shutting down", fmt.Errorf("query: %w", sqlStateError("57P01")), true},
		{"the server starting up", sqlStateError("57P03"), true},
		{"a query cancelled", sqlStateError("57014"), false},
		{"a unique violation", sqlStateError("23505"), false},
		{"a deadline", context.DeadlineExceeded, false},
		{"anything else", errors.New("boom"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Unreachable(c.err); got != c.want {
				t.Fatalf("Unreachable(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
}
