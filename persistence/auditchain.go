package persistence

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// The audit log of an envelope is a hash chain. An entry's hash is
//
//	SHA-256( previous entry's hash || canonical content )
//
// where the first entry's previous hash is 32 zero bytes, entries follow in the order they were
// written (seq), and the canonical content is the JSON object
//
//	{"createdAt", "data", "email", "envelopeId", "id", "ipAddress", "name", "type", "userAgent", "userId"}
//
// with keys in that (sorted) order at every depth, no insignificant white space, strings as
// UTF-8 without HTML escaping, createdAt in UTC as RFC 3339 with microseconds
// ("2026-11-22T19:56:58.123456Z"), absent values as null, and numbers as JSON writes them. Anyone
// with the rows can recompute it; `sobre audit verify ENVELOPE_ID` does. Since migration 00015
// each entry also carries an HMAC of its hash under a key outside the database (auditkey.go),
// which only the key's holders can recompute.

var zeroHash = make([]byte, sha256.Size)

// auditContent is the canonical content of an entry.
type auditContent struct {
	CreatedAt  string  `json:"createdAt"`
	Data       any     `json:"data"`
	Email      *string `json:"email"`
	EnvelopeID string  `json:"envelopeId"`
	ID         string  `json:"id"`
	IPAddress  *string `json:"ipAddress"`
	Name       *string `json:"name"`
	Type       string  `json:"type"`
	UserAgent  *string `json:"userAgent"`
	UserID     *int64  `json:"userId"`
}

// canonicalTime is createdAt as the chain writes it; PostgreSQL keeps microseconds.
func canonicalTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

// canonical returns the canonical JSON of an entry. data is re-read from its JSON so that what
// PostgreSQL stores (jsonb) and what was written hash alike.
func canonical(c auditContent, data []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("read audit data: %w", err)
	}
	c.Data = v
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("encode audit entry: %w", err)
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func chainHash(prev, content []byte) []byte {
	h := sha256.New()
	h.Write(prev)
	h.Write(content)
	return h.Sum(nil)
}

// ChainBreak says where an audit chain stops holding.
type ChainBreak struct {
	Entry  int // position in the envelope's log, from 1
	Seq    int64
	ID     string
	Type   string
	Reason string
}

func (b *ChainBreak) Error() string {
	return fmt.Sprintf("audit entry %d (%s, id %s, seq %d) breaks the chain: %s", b.Entry, b.Type, b.ID, b.Seq, b.Reason)
}

// AuditReport is what VerifyAuditChain found of a log that holds.
type AuditReport struct {
	Entries   int    // entries in the log
	FinalHash string // hex SHA-256 of the last entry: the chain's head
	// Legacy is how many entries, at the start, were written before the hash chain existed
	// (migration 00004): counted, not verifiable.
	Legacy int
	// MACChecked says whether the store holds audit keys, so that HMACs were checked. Without
	// them only the hash chain was.
	MACChecked bool
	// UnkeyedUpTo is the last entry, counted from 1, written without an HMAC (before audit keys
	// existed, migration 00015): 0 when every entry is keyed. Entries after it are keyed, and the
	// first of those vouches for every entry before it from the time it was written.
	UnkeyedUpTo int
	// HeadKey is the id of the key whose HMAC vouches for the head; empty when the head is
	// unkeyed.
	HeadKey string
}

// unkeyedGrace is how long after migration 00015 an entry may still lack an HMAC: processes of
// the previous release keep writing while a rollout replaces them.
const unkeyedGrace = time.Hour

// VerifyAudit recomputes the audit chain of an envelope and returns the number of entries and the
// final hash, or a *ChainBreak naming the first entry that does not hold (see VerifyAuditChain).
func (s *Store) VerifyAudit(ctx context.Context, envelopeID string) (int, string, error) {
	r, err := s.VerifyAuditChain(ctx, envelopeID)
	return r.Entries, r.FinalHash, err
}

// VerifyAuditChain recomputes the audit chain of an envelope from the rows and, when the store
// holds audit keys, checks each entry's HMAC. It returns a *ChainBreak naming the first entry
// that does not hold:
//
//   - an entry without a hash after the chain began (entries written before the chain existed,
//     at the start of the log, are counted but cannot be verified);
//   - a previous hash that is not the hash of the entry before (removed or reordered entries), or
//     a hash that is not that of the entry's content (a changed entry);
//   - with keys: an HMAC that does not match (the chain was rewritten, hashes and all, without
//     the key), an HMAC by a key the store does not hold, an entry without an HMAC after one
//     with it, or written more than an hour after migration 00015 (HMACs stripped).
//
// Existing unkeyed chains still verify: their unkeyed start is reported in UnkeyedUpTo.
func (s *Store) VerifyAuditChain(ctx context.Context, envelopeID string) (AuditReport, error) {
	// Entries written before the chain existed are those older than the migration that began
	// it (00004 in goose's table); a newer entry without a hash was tampered with. Likewise for
	// HMACs and 00015. Read before the entries: a query while their rows hold a connection would
	// need a second one, and as many concurrent calls as the pool has connections would wait for
	// each other forever.
	var chainStart, keyStart time.Time
	// goose keeps a timestamp without time zone, written as now() in the session's zone.
	if err := s.pool.QueryRow(ctx, `SELECT
		(SELECT tstamp AT TIME ZONE current_setting('TimeZone') FROM goose_db_version WHERE version_id = 4 AND is_applied ORDER BY id DESC LIMIT 1),
		(SELECT tstamp AT TIME ZONE current_setting('TimeZone') FROM goose_db_version WHERE version_id = 15 AND is_applied ORDER BY id DESC LIMIT 1)`).Scan(&chainStart, &keyStart); err != nil {
		return AuditReport{}, fmt.Errorf("read when the audit chain began: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT seq, id, created_at, envelope_id, type, data, name, email, user_id, user_agent, ip_address,
		prev_hash, hash, mac, mac_key FROM audit_logs WHERE envelope_id = $1 ORDER BY seq`, envelopeID)
	if err != nil {
		return AuditReport{}, fmt.Errorf("load audit log of %s: %w", envelopeID, err)
	}
	defer rows.Close()
	rep := AuditReport{MACChecked: s.audit != nil}
	prev, chained := zeroHash, false
	for rows.Next() {
		var seq int64
		var c auditContent
		var created time.Time
		var data, prevHash, hash, mac []byte
		var macKey *string
		if err := rows.Scan(&seq, &c.ID, &created, &c.EnvelopeID, &c.Type, &data, &c.Name, &c.Email, &c.UserID, &c.UserAgent, &c.IPAddress,
			&prevHash, &hash, &mac, &macKey); err != nil {
			return rep, fmt.Errorf("read audit entry: %w", err)
		}
		entry := rep.Entries + 1
		broken := func(reason string, args ...any) error {
			return &ChainBreak{Entry: entry, Seq: seq, ID: c.ID, Type: c.Type, Reason: fmt.Sprintf(reason, args...)}
		}
		c.CreatedAt = canonicalTime(created)
		content, err := canonical(c, data)
		if err != nil {
			return rep, err
		}
		switch {
		case hash == nil && !chained && prevHash == nil && mac == nil && created.Before(chainStart):
			// Written before the chain existed (migration 00004): a legacy prefix, which cannot
			// be verified; the chain starts after it, from the zero hash.
			rep.Entries, rep.Legacy, rep.UnkeyedUpTo = entry, entry, entry
			continue
		case hash == nil:
			return rep, broken("it has no hash")
		case !bytes.Equal(prevHash, prev):
			return rep, broken("its previous hash is not the hash of the entry before it (an entry was removed or reordered)")
		case !bytes.Equal(hash, chainHash(prev, content)):
			return rep, broken("its content does not match its hash (it was changed)")
		}
		if s.audit != nil {
			switch {
			case mac == nil && rep.HeadKey != "":
				return rep, broken("it has no HMAC, though entry %d before it has one (HMACs were stripped)", entry-1)
			case mac == nil && !created.Before(keyStart.Add(unkeyedGrace)):
				return rep, broken("it has no HMAC, though it was written after the audit key was introduced (migration 00015, %s)", keyStart.UTC().Format(time.RFC3339))
			case mac == nil:
				rep.UnkeyedUpTo = entry
			default:
				want, ok := s.audit.mac(*macKey, c.EnvelopeID, hash)
				if !ok {
					return rep, broken("its HMAC is by the key %q, which the audit key file does not hold", *macKey)
				}
				if !hmac.Equal(mac, want) {
					return rep, broken("its HMAC does not match its hash (the chain was rewritten by someone without the audit key)")
				}
				rep.HeadKey = *macKey
			}
		}
		prev, chained = hash, true
		rep.Entries = entry
	}
	if err := rows.Err(); err != nil {
		return rep, fmt.Errorf("read audit log of %s: %w", envelopeID, err)
	}
	rep.FinalHash = hex.EncodeToString(prev)
	return rep, nil
}
