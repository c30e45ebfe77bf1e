package persistence

import (
	"bytes"
	"context"
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
// with the rows can recompute it; `sobre audit verify ENVELOPE_ID` does.

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
	Seq    int64
	ID     string
	Type   string
	Reason string
}

func (b *ChainBreak) Error() string {
	return fmt.Sprintf("audit entry %s (%s, #%d) breaks the chain: %s", b.ID, b.Type, b.Seq, b.Reason)
}

// VerifyAudit recomputes the audit chain of an envelope from the rows and returns the number of
// entries and the final hash, or a *ChainBreak naming the first entry that does not hold. Entries
// written before the chain existed (no hash, at the start of the log) are counted but cannot be
// verified; an entry without a hash after the chain began is a break.
func (s *Store) VerifyAudit(ctx context.Context, envelopeID string) (int, string, error) {
	// Entries written before the chain existed are those older than the migration that began
	// it (00004 in goose's table); a newer entry without a hash was tampered with. Read before
	// the entries: a query while their rows hold a connection would need a second one, and as
	// many concurrent calls as the pool has connections would wait for each other forever.
	var chainStart time.Time
	if err := s.pool.QueryRow(ctx, `SELECT tstamp FROM goose_db_version WHERE version_id = 4 AND is_applied ORDER BY id DESC LIMIT 1`).Scan(&chainStart); err != nil {
		return 0, "", fmt.Errorf("read when the audit chain began: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT seq, id, created_at, envelope_id, type, data, name, email, user_id, user_agent, ip_address,
		prev_hash, hash FROM audit_logs WHERE envelope_id = $1 ORDER BY seq`, envelopeID)
	if err != nil {
		return 0, "", fmt.Errorf("load audit log of %s: %w", envelopeID, err)
	}
	defer rows.Close()
	prev, n, chained := zeroHash, 0, false
	for rows.Next() {
		var seq int64
		var c auditContent
		var created time.Time
		var data, prevHash, hash []byte
		if err := rows.Scan(&seq, &c.ID, &created, &c.EnvelopeID, &c.Type, &data, &c.Name, &c.Email, &c.UserID, &c.UserAgent, &c.IPAddress, &prevHash, &hash); err != nil {
			return n, "", fmt.Errorf("read audit entry: %w", err)
		}
		c.CreatedAt = canonicalTime(created)
		content, err := canonical(c, data)
		if err != nil {
			return n, "", err
		}
		switch {
		case hash == nil && !chained && prevHash == nil && created.Before(chainStart):
			// Written before the chain existed (migration 00004): a legacy prefix, which cannot
			// be verified; the chain starts after it, from the zero hash.
			n++
			continue
		case hash == nil:
			return n, "", &ChainBreak{seq, c.ID, c.Type, "it has no hash"}
		case !bytes.Equal(prevHash, prev):
			return n, "", &ChainBreak{seq, c.ID, c.Type, "its previous hash is not the hash of the entry before it (an entry was removed or reordered)"}
		case !bytes.Equal(hash, chainHash(prev, content)):
			return n, "", &ChainBreak{seq, c.ID, c.Type, "its content does not match its hash (it was changed)"}
		}
		prev, chained = hash, true
		n++
	}
	if err := rows.Err(); err != nil {
		return n, "", fmt.Errorf("read audit log of %s: %w", envelopeID, err)
	}
	return n, hex.EncodeToString(prev), nil
}
