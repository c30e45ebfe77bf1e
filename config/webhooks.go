package config

import (
	"errors"
	"net/url"
)

// parseWebhookProxy reads SOBRE_WEBHOOK_PROXY: empty is no proxy (webhook deliveries never take
// one from the environment), otherwise an http:// or https:// URL with a host and no path. The
// value is never quoted in the error: it may hold the proxy's password.
func parseWebhookProxy(v string) (*url.URL, error) {
	if v == "" {
		return nil, nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("SOBRE_WEBHOOK_PROXY: want an http:// or https:// proxy URL like http://proxy.example.cl:3128, without a path")
	}
	return u, nil
}
