package persistence

import (
	"crypto/rand"
	"math/big"
)

// Alphabets of generated identifiers. Envelope ids use Documenso's alphabet (letters that are
// hard to confuse); tokens use base62.
const (
	idAlphabet    = "abcdefhiklmnorstuvwxyz"
	tokenAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

func randomString(alphabet string, n int) string {
	b := make([]byte, n)
	max := big.NewInt(int64(len(alphabet)))
	for i := range b {
		k, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic("crypto/rand failed: " + err.Error())
		}
		b[i] = alphabet[k.Int64()]
	}
	return string(b)
}

// NewEnvelopeID returns "envelope_" and 16 random letters, as Documenso's.
func NewEnvelopeID() string { return "envelope_" + randomString(idAlphabet, 16) }

// NewItemID returns "envelope_item_" and 16 random letters.
func NewItemID() string { return "envelope_item_" + randomString(idAlphabet, 16) }

// NewRecipientToken returns a signing token: 32 base62 characters, about 190 random bits.
func NewRecipientToken() string { return randomString(tokenAlphabet, 32) }

// newCUID returns a 25-character lower-case identifier for fields, audit entries, attachments and
// meta rows (the length and look of Documenso's cuids; random, not time-ordered).
func newCUID() string { return "c" + randomString("abcdefghijklmnopqrstuvwxyz0123456789", 24) }
