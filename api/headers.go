package api

import (
	"net/http"
	"net/url"
)

// nosniff tells browsers to take every response for the type it declares (JSON, a PDF, an
// image), never for HTML or script they guess from its bytes.
func nosniff(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// origin is the scheme://host[:port] of an absolute http(s) URL, or "" (none, or not a URL).
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
