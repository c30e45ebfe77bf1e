package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// maxReason bounds the text of a reason nothing else names.
const maxReason = 200

// reason is the short text of why an attempt got no answer (Result.Err): "timeout after 15s",
// "cancelled: context canceled" (the caller's context ended first), "address 10.0.0.1 is not
// public", "host x does not resolve", "connection refused", "connection reset", "connection
// closed before an answer", a TLS failure, or else the error without the request's method and
// URL, cut to maxReason bytes. ctx is the attempt's. Neither
// the request's headers nor its body are in any error, so no secret is.
func (s *Sender) reason(ctx context.Context, err error) string {
	var (
		refused  notPublic
		dns      *net.DNSError
		cert     *tls.CertificateVerificationError
		alert    tls.AlertError
		urlError *url.Error
		netError net.Error
	)
	switch {
	case errors.Is(context.Cause(ctx), errTimedOut):
		return fmt.Sprintf("timeout after %s", s.timeout)
	case ctx.Err() != nil:
		return "cancelled: " + context.Cause(ctx).Error()
	case errors.As(err, &refused):
		return refused.Error()
	case errors.As(err, &dns) && dns.IsNotFound:
		return fmt.Sprintf("host %s does not resolve", dns.Name)
	case errors.As(err, &dns):
		return fmt.Sprintf("host %s: DNS lookup failed", dns.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	case errors.As(err, &cert):
		return "TLS: " + cut(cert.Err.Error())
	case errors.As(err, &alert):
		return "TLS: " + alert.Error()
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before an answer"
	case errors.As(err, &netError) && netError.Timeout():
		return "connection timed out"
	case errors.As(err, &urlError):
		return cut(urlError.Err.Error())
	}
	return cut(err.Error())
}

// cut is s cut to maxReason bytes, at a rune boundary.
func cut(s string) string {
	if len(s) > maxReason {
		return strings.ToValidUTF8(s[:maxReason], "") + "…"
	}
	return s
}
