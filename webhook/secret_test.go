package webhook

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

func TestNewSecret(t *testing.T) {
	a, b := NewSecret(), NewSecret()
	if a == b {
		t.Fatal("two new secrets are equal")
	}
	for _, s := range []string{a, b} {
		if err := CheckSecret(s, false); err != nil {
			t.Errorf("new secret refused: %v", err)
		}
		if key := SigningKey(s); len(key) != 32 {
			t.Errorf("new secret's key has %d bytes, want 32", len(key))
		}
	}
}

func TestCheckSecret(t *testing.T) {
	b64 := func(n int) string {
		return SecretPrefix + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, n))
	}
	tests := []struct {
		name      string
		secret    string
		documenso bool
		want      string // part of the error; "" for none
	}{
		{"24 bytes", b64(24), false, ""},
		{"64 bytes", b64(64), false, ""},
		{"Standard Webhooks' example", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", false, ""},
		{"23 bytes", b64(23), false, "of 24 to 64 bytes, got 23 bytes"},
		{"65 bytes", b64(65), false, "got 65 bytes"},
		{"prefix only", SecretPrefix, false, "got 0 bytes"},
		{"not base64", SecretPrefix + "not base64 at all!!!!!!!!!!!!!!!", false, "standard base64"},
		{"URL base64 refused", SecretPrefix + "____________________________________", false, "standard base64"},
		{"padding missing", strings.TrimRight(b64(25), "="), false, "standard base64"},
		{"whsec_ rules hold with documensoCompatible too", b64(10), true, "got 10 bytes"},
		{"text without documensoCompatible", "a-plain-text-secret-of-some-length", false, "only with documensoCompatible"},
		{"text with documensoCompatible", "a-plain-text-secret-of-some-length", true, ""},
		{"16 characters", strings.Repeat("x", 16), true, ""},
		{"256 characters", strings.Repeat("~", 256), true, ""},
		{"15 characters", strings.Repeat("x", 15), true, "got 15 bytes"},
		{"257 characters", strings.Repeat("!", 257), true, "got 257 bytes"},
		{"empty", "", true, "got 0 bytes"},
		{"a space", "sixteen chars and a space", true, "byte 8 is not"},
		{"a tab", "tab\there-and-more-text", true, "byte 4 is not"},
		{"a non-ASCII character", "contraseña-muy-larga", true, "byte 9 is not"},
		{"a control character", "abcdefghijklmnop\x7f", true, "byte 17 is not"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSecret(tt.secret, tt.documenso)
			wantError(t, err, tt.want)
			if err != nil && len(tt.secret) >= 8 && strings.Contains(err.Error(), tt.secret) {
				t.Fatalf("error %q repeats the secret", err)
			}
		})
	}
}

func TestSigningKey(t *testing.T) {
	tests := []struct {
		secret string
		want   []byte
	}{
		{"whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
		{"a-plain-text-secret", []byte("a-plain-text-secret")},
		{"whsec_not*base64", []byte("whsec_not*base64")},
		{"AAECAwQFBgcICQoLDA0ODxAREhMUFRYX", []byte("AAECAwQFBgcICQoLDA0ODxAREhMUFRYX")},
	}
	for _, tt := range tests {
		if got := SigningKey(tt.secret); !bytes.Equal(got, tt.want) {
			t.Errorf("SigningKey(%q) = %v, want %v", tt.secret, got, tt.want)
		}
	}
}

// wantError fails t unless err is nil when want is empty, or an error whose message contains
// want.
func wantError(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("refused: %v", err)
	case want != "" && err == nil:
		t.Fatalf("accepted, want an error with %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("error %q, want it to contain %q", err, want)
	}
}
