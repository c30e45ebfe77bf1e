package auth_test

import (
	"context"
	"encoding/base32"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/auth"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

func TestNewKeyFormatAndEntropy(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		k, err := auth.NewKey()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(k, "api_") {
			t.Fatalf("key %q lacks the api_ prefix", k)
		}
		raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(k[4:]))
		if err != nil {
			t.Fatalf("key %q is not base32: %v", k, err)
		}
		if bits := len(raw) * 8; bits < 128 {
			t.Fatalf("key carries %d random bits, want at least 128", bits)
		}
		if seen[k] {
			t.Fatalf("key %q repeated", k)
		}
		seen[k] = true
	}
}

func TestHashKeyIsStableAndNotTheKey(t *testing.T) {
	k, _ := auth.NewKey()
	h1, h2 := auth.HashKey(k), auth.HashKey(k)
	if string(h1) != string(h2) || len(h1) != 32 {
		t.Fatalf("hash not stable or not SHA-256 sized: %x %x", h1, h2)
	}
	if strings.Contains(string(h1), k[4:]) {
		t.Fatal("hash contains the key")
	}
}

func TestKeyFromHeader(t *testing.T) {
	for in, want := range map[string]string{
		"api_abc":           "api_abc",
		"Bearer api_abc":    "api_abc",
		"bearer api_abc":    "api_abc",
		"  BEARER api_abc ": "api_abc",
		"":                  "",
	} {
		if got := auth.KeyFromHeader(in); got != want {
			t.Errorf("KeyFromHeader(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIssueAndResolve(t *testing.T) {
	store := pgtest.New(t)
	ctx := context.Background()
	now := time.Now()
	keys := &auth.Keys{Store: store, Now: func() time.Time { return now }}

	key, stored, err := keys.Issue(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleManager, "ci", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := keys.Resolve(ctx, key)
	if err != nil {
		t.Fatalf("resolve fresh key: %v", err)
	}
	if got.ID != stored.ID || got.Member.UserEmail != "ana@acme.cl" || got.Member.Role != envelope.TeamRoleManager || got.Member.TeamName != "Acme" {
		t.Errorf("resolved %+v", got)
	}

	// The same user and team again: one member, a second key.
	key2, stored2, err := keys.Issue(ctx, "Acme", "ANA@acme.cl", "", "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if stored2.Member.UserID != stored.Member.UserID || stored2.Member.TeamID != stored.Member.TeamID || stored2.Member.Role != envelope.TeamRoleManager {
		t.Errorf("second issue made a new member or changed the role: %+v vs %+v", stored2.Member, stored.Member)
	}

	expiry := now.Add(time.Hour)
	expiring, _, err := keys.Issue(ctx, "Acme", "bo@acme.cl", "", envelope.TeamRoleMember, "", &expiry)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.RevokeAPIKey(ctx, stored2.Member.TeamID, stored2.ID); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		key  string
		at   time.Time
		want error
	}{
		{"valid", key, now, nil},
		{"empty", "", now, auth.ErrNoKey},
		{"unknown", "api_" + strings.Repeat("a", 32), now, auth.ErrUnknownKey},
		{"not a key", "hello", now, auth.ErrUnknownKey},
		{"revoked", key2, now, auth.ErrRevokedKey},
		{"before expiry", expiring, now.Add(59 * time.Minute), nil},
		{"expired", expiring, now.Add(time.Hour), auth.ErrExpiredKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys.Now = func() time.Time { return tt.at }
			_, err := keys.Resolve(ctx, tt.key)
			if !errors.Is(err, tt.want) {
				t.Errorf("Resolve = %v, want %v", err, tt.want)
			}
		})
	}
}
