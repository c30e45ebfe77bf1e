package payloadcodec

import (
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"

	"go.temporal.io/sdk/converter"
)

// MaxRequestBytes bounds a codec-server request: a page of history's payloads.
const MaxRequestBytes = 16 << 20

// ServerOptions protect the codec server.
type ServerOptions struct {
	// Origins are the browser origins (the Temporal Web UI's, like http://127.0.0.1:8233)
	// answered with CORS headers; a browser request from any other origin is refused.
	Origins []string
	// Token, when set, must come as "Authorization: Bearer <Token>" on every request but the
	// browser's CORS preflight.
	Token string
}

// Handler serves Temporal's codec-server protocol (POST …/encode and …/decode with a JSON
// list of payloads, as the Temporal Web UI and `temporal --codec-endpoint` call it) for c: it
// is what lets an operator read the encrypted payloads of a history. Whoever reaches it reads
// every envelope's names and addresses, so it listens on loopback, or behind a proxy that
// authenticates operators.
func Handler(c *Codec, o ServerOptions) http.Handler {
	codec := converter.NewPayloadCodecHTTPHandler(c)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Add("Vary", "Origin")
		if origin := r.Header.Get("Origin"); origin != "" {
			if !slices.Contains(o.Origins, origin) {
				http.Error(w, "origin not allowed", http.StatusForbidden)
				return
			}
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Credentials", "true")
			if r.Method == http.MethodOptions {
				h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Content-Type, X-Namespace, Authorization")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if o.Token != "" && !bearer(r, o.Token) {
			h.Set("WWW-Authenticate", `Bearer realm="sobre codec-server"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodPost {
			h.Set("Allow", "POST, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxRequestBytes)
		codec.ServeHTTP(w, r)
	})
}

func bearer(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}
