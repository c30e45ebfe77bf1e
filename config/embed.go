package config

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// MaxEmbedOrigins is the most origins SOBRE_EMBED_ORIGINS, or one team's setting, may list.
const MaxEmbedOrigins = 20

// ParseEmbedOrigin reads one origin that may frame the embedded signing page
// ({SOBRE_PUBLIC_URL}/embed/sign/{token}): scheme, host and port only (no path, query,
// fragment or user), lower-cased, the default port left out. It must be https; http only for a
// loopback host (localhost, 127.0.0.0/8, ::1) and only when allowLoopbackHTTP (development).
// The origin is written into a Content-Security-Policy header, so its host must be an IP address
// or a DNS name of ASCII letters, digits and hyphens (an internationalised name in its xn--
// form; no trailing dot), and its port a number from 1 to 65535: nothing that could end the
// directive (";", ",", quotes) or name another source gets through.
func ParseEmbedOrigin(raw string, allowLoopbackHTTP bool) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("%q is not an origin like https://app.example.com", raw)
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(raw, "?") || strings.HasSuffix(raw, "#") {
		return "", fmt.Errorf("%q is not an origin: only scheme, host and port, like https://app.example.com", raw)
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if !plainHost(host) {
		return "", fmt.Errorf("%q is not an origin: the host must be a DNS name of letters, digits and hyphens (an internationalised one in its xn-- form) or an IP address", raw)
	}
	if n, err := strconv.Atoi(port); port != "" && (err != nil || n < 1 || n > 65535) {
		return "", fmt.Errorf("%q is not an origin: the port must be from 1 to 65535", raw)
	}
	switch scheme {
	case "https":
	case "http":
		if !allowLoopbackHTTP || !loopbackHost(host) {
			return "", fmt.Errorf("%q: an origin must be https (http only for a loopback host in development)", raw)
		}
	default:
		return "", fmt.Errorf("%q: an origin must be https", raw)
	}
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	out := scheme + "://"
	if strings.Contains(host, ":") {
		out += "[" + host + "]"
	} else {
		out += host
	}
	if port != "" {
		out += ":" + port
	}
	return out, nil
}

// ParseEmbedOrigins reads a list of origins (ParseEmbedOrigin each), without repeats, at most
// MaxEmbedOrigins.
func ParseEmbedOrigins(list []string, allowLoopbackHTTP bool) ([]string, error) {
	out := []string{}
	for _, raw := range list {
		o, err := ParseEmbedOrigin(raw, allowLoopbackHTTP)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	if len(out) > MaxEmbedOrigins {
		return nil, fmt.Errorf("at most %d origins, got %d", MaxEmbedOrigins, len(out))
	}
	return out, nil
}

// plainHost reports whether host (lower-cased) is an IP address or a DNS name: dot-separated
// labels of 1 to 63 letters, digits and hyphens, not starting or ending with a hyphen, 253
// characters at most.
func plainHost(host string) bool {
	if net.ParseIP(host) != nil {
		return true
	}
	if host == "" || len(host) > 253 {
		return false
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
				return false
			}
		}
	}
	return true
}

func loopbackHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// parseEmbedOrigins reads SOBRE_EMBED_ORIGINS: comma-separated origins (ParseEmbedOrigins).
func parseEmbedOrigins(v, env string) ([]string, error) {
	var list []string
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			list = append(list, part)
		}
	}
	out, err := ParseEmbedOrigins(list, env == EnvDevelopment)
	if err != nil {
		return nil, fmt.Errorf("SOBRE_EMBED_ORIGINS: %w", err)
	}
	return out, nil
}
