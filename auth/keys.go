package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// KeyPrefix starts every API key, as in Documenso.
const KeyPrefix = "api_"

// keyBytes is the randomness of a key: 160 bits.
const keyBytes = 20

var keyEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// Errors of key resolution. The middleware answers each with 401.
var (
	ErrNoKey      = errors.New("no API key in the Authorization header")
	ErrUnknownKey = errors.New("invalid API key")
	ErrExpiredKey = errors.New("API key expired")
	ErrRevokedKey = errors.New("API key revoked")
)

// NewKey returns a fresh random API key.
func NewKey() (string, error) {
	b := make([]byte, keyBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("read random bytes for api key: %w", err)
	}
	return KeyPrefix + strings.ToLower(keyEncoding.EncodeToString(b)), nil
}

// HashKey returns what is stored of a key: its SHA-256. Keys carry 160 random bits, so a fast
// hash is enough; a slow password hash would add nothing but latency to every request.
func HashKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

// displayPrefix is the part of a key kept in clear to tell keys apart in listings.
func displayPrefix(key string) string {
	if len(key) <= len(KeyPrefix)+6 {
		return key
	}
	return key[:len(KeyPrefix)+6]
}

// Keys issues and resolves API keys.
type Keys struct {
	Store *persistence.Store
	Now   func() time.Time
}

func (k *Keys) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

// Issue creates a key for the member of teamName with email (both created when missing) and
// returns the key in clear, the only time it is available.
func (k *Keys) Issue(ctx context.Context, teamName, email, userName string, role envelope.TeamRole, name string, expiresAt *time.Time) (string, persistence.APIKey, error) {
	m, err := k.Store.EnsureMember(ctx, teamName, email, userName, role)
	if err != nil {
		return "", persistence.APIKey{}, err
	}
	key, err := NewKey()
	if err != nil {
		return "", persistence.APIKey{}, err
	}
	stored, err := k.Store.CreateAPIKey(ctx, m, name, HashKey(key), displayPrefix(key), expiresAt)
	if err != nil {
		return "", persistence.APIKey{}, err
	}
	return key, stored, nil
}

// Resolve returns the stored key matching key if it may be used now.
func (k *Keys) Resolve(ctx context.Context, key string) (persistence.APIKey, error) {
	if key == "" {
		return persistence.APIKey{}, ErrNoKey
	}
	if !strings.HasPrefix(key, KeyPrefix) || len(key) > 200 {
		return persistence.APIKey{}, ErrUnknownKey
	}
	stored, err := k.Store.APIKeyByHash(ctx, HashKey(key))
	switch {
	case envelope.IsNotFound(err):
		return stored, ErrUnknownKey
	case err != nil:
		return stored, fmt.Errorf("resolve api key: %w", err)
	case stored.RevokedAt != nil:
		return stored, ErrRevokedKey
	case stored.ExpiresAt != nil && !k.now().Before(*stored.ExpiresAt):
		return stored, ErrExpiredKey
	}
	return stored, nil
}

// KeyFromHeader extracts the key from an Authorization header value: the raw key, or the key
// after the scheme "Bearer" (in any case).
func KeyFromHeader(value string) string {
	value = strings.TrimSpace(value)
	if len(value) > 7 && strings.EqualFold(value[:7], "bearer ") {
		return strings.TrimSpace(value[7:])
	}
	return value
}
