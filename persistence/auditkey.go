package persistence

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"os"

	"github.com/sobre-sign/sobre/internal/keyring"
)

// AuditKeys are the keys of the audit chain's HMAC (SOBRE_AUDIT_KEY_FILE). Every entry appended
// while a Store holds keys carries
//
//	HMAC-SHA256(key, "sobre-audit-v1\n" || envelopeId || "\n" || entry hash)
//
// and the id of the key. The entry hash chains over every entry before it, so an entry's HMAC
// vouches for the whole log up to it, and the last entry's for the head: a database writer who
// changes, removes or reorders entries and recomputes the hashes cannot recompute the HMACs
// without the key, which is kept outside the database.
//
// The key file is that of SOBRE_PAYLOAD_KEYS_FILE: one "<id> <base64 of 32 bytes>" per line
// (`sobre keygen` prints one), blank lines and '#' comments skipped. The first key signs new
// entries; every key verifies (rotation adds a new first line and keeps the old ones).
type AuditKeys struct {
	primary string
	secrets map[string][]byte
}

// LoadAuditKeys reads an audit key file.
func LoadAuditKeys(path string) (*AuditKeys, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("audit key file: %w", err)
	}
	k, err := ParseAuditKeys(data)
	if err != nil {
		return nil, fmt.Errorf("audit key file %s: %w", path, err)
	}
	return k, nil
}

// ParseAuditKeys reads the contents of an audit key file.
func ParseAuditKeys(data []byte) (*AuditKeys, error) {
	keys, err := keyring.ParseKeys(data)
	if err != nil {
		return nil, err
	}
	k := &AuditKeys{primary: keys[0].ID, secrets: make(map[string][]byte, len(keys))}
	for _, key := range keys {
		k.secrets[key.ID] = key.Secret
	}
	return k, nil
}

// PrimaryID is the id of the key that signs new entries.
func (k *AuditKeys) PrimaryID() string { return k.primary }

// mac returns the HMAC of an entry's hash under the key keyID, false when the key is unknown.
func (k *AuditKeys) mac(keyID, envelopeID string, hash []byte) ([]byte, bool) {
	secret, ok := k.secrets[keyID]
	if !ok {
		return nil, false
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("sobre-audit-v1\n"))
	m.Write([]byte(envelopeID))
	m.Write([]byte("\n"))
	m.Write(hash)
	return m.Sum(nil), true
}

// SetAuditKeys makes the store sign the audit entries it appends, and check the signatures of
// those it verifies, with keys. Call it before the store is used. A store without keys appends
// unkeyed entries and verifies only the hash chain.
func (s *Store) SetAuditKeys(keys *AuditKeys) { s.audit = keys }

// SetAuditKeyedFrom sets the first audit entry, by seq, that must carry a hash and an HMAC
// (SOBRE_AUDIT_KEYED_FROM; see auditEntryRule): entries before it may be unkeyed, or predate the
// hash chain. The default, 0, holds every entry to both. The value comes from configuration,
// never from the database, which a writer the chain guards against could change. Call it before
// the store is used.
func (s *Store) SetAuditKeyedFrom(seq int64) { s.keyedFrom = seq }
