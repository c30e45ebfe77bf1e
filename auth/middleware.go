package auth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"

	"github.com/sobre-sign/sobre/envelope"
)

type memberKey struct{}

// WithMember returns ctx carrying m as the authenticated caller.
func WithMember(ctx context.Context, m envelope.Member) context.Context {
	return context.WithValue(ctx, memberKey{}, m)
}

// MemberFrom returns the authenticated caller of ctx.
func MemberFrom(ctx context.Context) (envelope.Member, bool) {
	m, ok := ctx.Value(memberKey{}).(envelope.Member)
	return m, ok
}

// ErrorWriter writes an error response; the api package supplies it so that every failure has
// the same body.
type ErrorWriter func(w http.ResponseWriter, r *http.Request, err error)

// Middleware authenticates every request with an API key. A missing, unknown, expired or
// revoked key is answered 401 with code UNAUTHORIZED; the last three with the same body.
func (k *Keys) Middleware(writeError ErrorWriter, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key, err := k.Resolve(r.Context(), KeyFromHeader(r.Header.Get("Authorization")))
			if err != nil {
				switch {
				case errors.Is(err, ErrNoKey):
					writeError(w, r, envelope.Errorf(envelope.CodeUnauthorized, "Invalid session or API token."))
				case errors.Is(err, ErrUnknownKey):
					writeError(w, r, envelope.Errorf(envelope.CodeUnauthorized, "%s", capitalise(ErrUnknownKey.Error())))
				case errors.Is(err, ErrExpiredKey), errors.Is(err, ErrRevokedKey):
					// The same answer as an unknown key: the caller learns nothing of which keys
					// exist; the log says which key it was.
					log.InfoContext(r.Context(), "api key refused", "key_id", key.ID, "reason", err.Error())
					writeError(w, r, envelope.Errorf(envelope.CodeUnauthorized, "%s", capitalise(ErrUnknownKey.Error())))
				default:
					writeError(w, r, err)
				}
				return
			}
			if err := k.Store.TouchAPIKey(r.Context(), key); err != nil {
				log.WarnContext(r.Context(), "record api key use", "err", err)
			}
			next.ServeHTTP(w, r.WithContext(WithMember(r.Context(), key.Member)))
		})
	}
}

// RequireRole lets through only callers whose team role is one of roles; others get 403.
func RequireRole(writeError ErrorWriter, roles ...envelope.TeamRole) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			m, ok := MemberFrom(r.Context())
			if !ok {
				writeError(w, r, envelope.Errorf(envelope.CodeUnauthorized, "Invalid session or API token."))
				return
			}
			if !slices.Contains(roles, m.Role) {
				writeError(w, r, envelope.Errorf(envelope.CodeForbidden, "Your team role %s may not do this", m.Role))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func capitalise(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
