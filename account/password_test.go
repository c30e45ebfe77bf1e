package account

import (
	"context"
	"encoding/base64"
	"errors"
	"regexp"
	"strings"
	"testing"
)

var phcFormat = regexp.MustCompile(`^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$`)

func TestHashPasswordParams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, err := HashPassword(ctx, "kq7-vrt-zw-ok")
	if err != nil {
		t.Fatal(err)
	}
	m := phcFormat.FindStringSubmatch(h)
	if m == nil {
		t.Fatalf("hash %q is not an argon2id PHC string", h)
	}
	if m[1] != "19456" || m[2] != "2" || m[3] != "1" {
		t.Errorf("parameters m=%s t=%s p=%s, want OWASP's m=19456 t=2 p=1", m[1], m[2], m[3])
	}
	salt, err := base64.RawStdEncoding.DecodeString(m[4])
	if err != nil || len(salt) != 16 {
		t.Errorf("salt %q: %d bytes (%v), want 16", m[4], len(salt), err)
	}
	key, err := base64.RawStdEncoding.DecodeString(m[5])
	if err != nil || len(key) != 32 {
		t.Errorf("key %q: %d bytes (%v), want 32", m[5], len(key), err)
	}
	again, err := HashPassword(ctx, "kq7-vrt-zw-ok")
	if err != nil {
		t.Fatal(err)
	}
	if again == h {
		t.Error("two hashes of one password are equal: the salt is not fresh")
	}
}

func TestVerifyPasswordRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, err := HashPassword(ctx, "mañana-temprano")
	if err != nil {
		t.Fatal(err)
	}
	for pw, want := range map[string]bool{
		"mañana-temprano":       true,
		"man\u0303ana-temprano": true, // the same characters, decomposed
		"Mañana-temprano":       false,
		"mañana-temprano ":      false,
		"":                      false,
	} {
		ok, err := VerifyPassword(ctx, h, pw)
		if err != nil || ok != want {
			t.Errorf("VerifyPassword(%q) = %v, %v; want %v", pw, ok, err, want)
		}
	}
}

// A stored hash carries its parameters: one made with others than today's still verifies, and
// is marked for rehashing.
func TestVerifyReadsStoredParams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	weak := Argon2Params{Memory: 8 * 1024, Time: 1, Threads: 2, SaltLen: 16, KeyLen: 32}
	h, err := hashPassword(ctx, "older-password-1", weak)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h, "$m=8192,t=1,p=2$") {
		t.Fatalf("hash %q does not carry its parameters", h)
	}
	if ok, err := VerifyPassword(ctx, h, "older-password-1"); err != nil || !ok {
		t.Fatalf("verify under stored parameters: %v, %v", ok, err)
	}
	if ok, _ := VerifyPassword(ctx, h, "older-password-2"); ok {
		t.Fatal("a wrong password verified")
	}
	if !needsRehash(h) {
		t.Error("a hash weaker than today's is not marked for rehashing")
	}
	strong, _ := HashPassword(ctx, "older-password-1")
	if needsRehash(strong) {
		t.Error("today's hash is marked for rehashing")
	}
}

func TestVerifyMalformedHash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	good, err := HashPassword(ctx, "kq7-vrt-zw-ok")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, "$")
	replace := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, "$")
	}
	for name, stored := range map[string]string{
		"empty":              "",
		"bcrypt":             "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
		"argon2i":            replace(1, "argon2i"),
		"other version":      replace(2, "v=16"),
		"missing part":       strings.Join(parts[:5], "$"),
		"unknown parameter":  replace(3, "m=19456,t=2,p=1,x=3"),
		"memory too large":   replace(3, "m=99999999,t=2,p=1"),
		"no passes":          replace(3, "m=19456,t=0,p=1"),
		"too many passes":    replace(3, "m=19456,t=1000,p=1"),
		"no lanes":           replace(3, "m=19456,t=2,p=0"),
		"not a number":       replace(3, "m=lots,t=2,p=1"),
		"salt not base64":    replace(4, "!!!!"),
		"salt too short":     replace(4, "AAAA"),
		"key not base64":     replace(5, "%%%%"),
		"key too short":      replace(5, "AAAAAAAA"),
		"padded base64 salt": replace(4, parts[4]+"=="),
	} {
		ok, err := VerifyPassword(ctx, stored, "kq7-vrt-zw-ok")
		if ok || !errors.Is(err, errMalformedHash) {
			t.Errorf("%s: VerifyPassword = %v, %v; want false, errMalformedHash", name, ok, err)
		}
	}
}
