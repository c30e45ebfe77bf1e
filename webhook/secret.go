package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
)

// SecretPrefix starts every Standard Webhooks secret: "whsec_" and then the standard base64 of
// its key.
const SecretPrefix = "whsec_"

// Bounds of a secret (CheckSecret).
const (
	newSecretBytes = 32  // the key of a generated secret
	minKeyBytes    = 24  // the shortest key of a whsec_ secret (Standard Webhooks)
	maxKeyBytes    = 64  // the longest
	minTextSecret  = 16  // the shortest Documenso-style secret, in characters
	maxTextSecret  = 256 // the longest
)

// NewSecret is a new secret: "whsec_" followed by the standard base64 (with padding) of 32
// random bytes.
func NewSecret() string {
	key := make([]byte, newSecretBytes)
	rand.Read(key) // never fails: crypto/rand crashes the program rather than return an error
	return SecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// CheckSecret says whether s may be a webhook's secret. Any webhook may have a Standard Webhooks
// secret: "whsec_" followed by the standard base64 (with padding) of 24 to 64 bytes. Only a
// documensoCompatible webhook may instead have any other text of 16 to 256 printable ASCII
// characters without spaces (0x21 to 0x7e), what an existing Documenso consumer compares; a text
// starting with "whsec_" is never such a text, since every Standard Webhooks verifier decodes it.
//
// The error's message follows the word "secret" (as in a 400 naming the field) and never
// repeats the secret.
func CheckSecret(s string, documensoCompatible bool) error {
	if encoded, ok := strings.CutPrefix(s, SecretPrefix); ok {
		key, err := base64.StdEncoding.DecodeString(encoded)
		if err != nil {
			return fmt.Errorf("must be %s followed by standard base64 (with padding): %w", SecretPrefix, err)
		}
		if len(key) < minKeyBytes || len(key) > maxKeyBytes {
			return fmt.Errorf("must be %s followed by the base64 of %d to %d bytes, got %d bytes",
				SecretPrefix, minKeyBytes, maxKeyBytes, len(key))
		}
		return nil
	}
	if !documensoCompatible {
		return fmt.Errorf("must be %s followed by the base64 of %d to %d bytes (any other text only with documensoCompatible)",
			SecretPrefix, minKeyBytes, maxKeyBytes)
	}
	if len(s) < minTextSecret || len(s) > maxTextSecret {
		return fmt.Errorf("must be %s followed by base64, or %d to %d printable characters, got %d bytes",
			SecretPrefix, minTextSecret, maxTextSecret, len(s))
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return fmt.Errorf("must be printable ASCII without spaces: byte %d is not", i+1)
		}
	}
	return nil
}

// SigningKey is the HMAC key of a secret: the decoded bytes of a "whsec_" secret, the text's own
// bytes for any other (a Documenso-style secret, whose Standard Webhooks form is thus "whsec_" +
// base64 of the text). A "whsec_" text that is not base64 (which CheckSecret refuses) is taken
// as text.
func SigningKey(secret string) []byte {
	if encoded, ok := strings.CutPrefix(secret, SecretPrefix); ok {
		if key, err := base64.StdEncoding.DecodeString(encoded); err == nil {
			return key
		}
	}
	return []byte(secret)
}
