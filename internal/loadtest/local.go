package loadtest

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// CheckLocal refuses a base URL whose host is not this machine (localhost or a loopback
// address): the load creates thousands of envelopes and mails their recipients, which a
// deployment that serves people must never receive by a mistyped flag.
func CheckLocal(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("%q: %w", base, err)
	}
	host := u.Hostname()
	if u.Scheme != "http" && u.Scheme != "https" || host == "" {
		return fmt.Errorf("%q: want an http:// URL with a host", base)
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%q is not on this machine (localhost or a loopback address): the load is for a test stack", base)
}
