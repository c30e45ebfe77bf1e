package config

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
)

// MaxEmbedOrigins is the most origins SOBRE_EMBED_ORIGINS, or one team's setting, may list.
const MaxEmbedOrigins = 20

// ParseEmbedOrigin reads one origin that may frame the embedded signing page
// ({SOBRE_PUBLIC_URL}/embed/sign/{token}): scheme, host and port only (no path, query,
// fragment or user), lower-cased, the default port left out. It must be https; http only for a
// loopback host (localhost, 127.0.0.0/8, ::1) and only when allowLoopbackHTTP (development).
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
	if host == "" || strings.ContainsAny(host, "*%") {
		return "", fmt.Errorf("%q is not an origin: the host is missing or not a plain name", raw)
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
