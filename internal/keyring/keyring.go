// Package keyring holds the server's symmetric keys and seals small secrets with them
// (AES-256-GCM). It is what keeps a secret readable by Sobre only: Temporal payloads, and signing
// tokens kept for their owner's reads.
//
// A key file has one key per line, "<id> <base64 of 32 bytes>"; blank lines and lines starting
// with '#' are skipped. The first key seals; every key opens. Rotation adds a new first line and
// keeps the old ones until nothing sealed with them is left.
package keyring

import (
	"bufio"
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
)

// KeySize is the size of a key: AES-256.
const KeySize = 32

// ErrUnknownKey is returned by Open for a sealed value whose key is not in the ring.
var ErrUnknownKey = errors.New("keyring: no key with that id")

// Ring is a set of keys, the first of which seals. Its methods are safe for concurrent use.
type Ring struct {
	primary string
	aeads   map[string]cipher.AEAD
}

// Key is one key of a ring.
type Key struct {
	ID     string
	Secret []byte // KeySize bytes
}

// New makes a ring of keys; the first seals. Ids are unique, non-empty and have no spaces.
func New(keys ...Key) (*Ring, error) {
	if len(keys) == 0 {
		return nil, errors.New("keyring: no key")
	}
	r := &Ring{primary: keys[0].ID, aeads: make(map[string]cipher.AEAD, len(keys))}
	for _, k := range keys {
		if k.ID == "" || strings.ContainsAny(k.ID, " \t\r\n") {
			return nil, fmt.Errorf("keyring: key id %q: empty or with spaces", k.ID)
		}
		if _, dup := r.aeads[k.ID]; dup {
			return nil, fmt.Errorf("keyring: key id %q twice", k.ID)
		}
		if len(k.Secret) != KeySize {
			return nil, fmt.Errorf("keyring: key %q has %d bytes, want %d", k.ID, len(k.Secret), KeySize)
		}
		block, err := aes.NewCipher(k.Secret)
		if err != nil {
			return nil, fmt.Errorf("keyring: key %q: %w", k.ID, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("keyring: key %q: %w", k.ID, err)
		}
		r.aeads[k.ID] = aead
	}
	return r, nil
}

// Load reads a key file (see the package comment).
func Load(path string) (*Ring, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	ring, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("keyring: %s: %w", path, err)
	}
	return ring, nil
}

// Parse reads the contents of a key file.
func Parse(data []byte) (*Ring, error) {
	keys, err := ParseKeys(data)
	if err != nil {
		return nil, err
	}
	return New(keys...)
}

// ParseKeys reads the keys of a key file, in order, each KeySize bytes with a unique id: the
// file format, for rings and for other uses of the same keys (an HMAC).
func ParseKeys(data []byte) ([]Key, error) {
	var keys []Key
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, b64, ok := strings.Cut(line, " ")
		if !ok || id == "" {
			return nil, fmt.Errorf("line %d: want \"<id> <base64 key>\"", n)
		}
		secret, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
		if err != nil || len(secret) != KeySize {
			return nil, fmt.Errorf("line %d: key %q is not the base64 of %d bytes", n, id, KeySize)
		}
		if seen[id] {
			return nil, fmt.Errorf("line %d: key id %q twice", n, id)
		}
		seen[id] = true
		keys = append(keys, Key{ID: id, Secret: secret})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, errors.New("keyring: no key")
	}
	return keys, nil
}

// NewKeyLine makes a fresh random key as a key-file line, for `sobre keygen` and development.
func NewKeyLine(id string) string {
	secret := make([]byte, KeySize)
	rand.Read(secret)
	return id + " " + base64.StdEncoding.EncodeToString(secret)
}

// PrimaryID is the id of the key that seals.
func (r *Ring) PrimaryID() string { return r.primary }

// Seal encrypts plain with the primary key, binding it to context (which Open must be given
// again: a value sealed for one column or recipient does not open as another's). It returns
// the id of the key and nonce‖ciphertext.
func (r *Ring) Seal(plain, context []byte) (keyID string, sealed []byte) {
	aead := r.aeads[r.primary]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	rand.Read(nonce)
	return r.primary, aead.Seal(nonce, nonce, plain, context)
}

// Open decrypts what Seal returned, with the key named keyID and the same context.
func (r *Ring) Open(keyID string, sealed, context []byte) ([]byte, error) {
	aead, ok := r.aeads[keyID]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownKey, keyID)
	}
	if len(sealed) < aead.NonceSize()+aead.Overhead() {
		return nil, errors.New("keyring: sealed value too short")
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], context)
	if err != nil {
		return nil, fmt.Errorf("keyring: open with key %q: %w", keyID, err)
	}
	return plain, nil
}
