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
// with the rows can recompute it; `sobre audit verify ENVELOPE_ID` does. Each entry also
// carries an HMAC of its hash under a key outside the database (auditkey.go), which only the
// key's holders can recompute; which entries may lack them is auditEntryRule's to say.

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
	// Legacy is how many entries, at the start, have no hash: written before the hash chain
	// existed, which the cut-over (SetAuditKeyedFrom) allows below it. Counted, not verifiable.
	Legacy int
	// MACChecked says whether the store holds audit keys, so that HMACs were checked. Without
	// them only the hash chain was.
	MACChecked bool
	// UnkeyedUpTo is the last entry, counted from 1, without an HMAC (below the cut-over): 0
	// when every entry is keyed. Entries after it are keyed, and the first of those vouches for
	// every entry before it from the time it was written.
	UnkeyedUpTo int
	// HeadKey is the id of the key whose HMAC vouches for the head; empty when the head is
	// unkeyed.
	HeadKey string
}

// entryKind is what the verifier makes of one audit entry.
type entryKind int

const (
	entryBroken  entryKind = iota // the chain does not hold at this entry
	entryLegacy                   // no hash, written before the chain: counted, not verifiable
	entryUnkeyed                  // a hash but no HMAC: only the hash chain vouches for it
	entryKeyed                    // a hash and an HMAC: both are checked
	entryHashed                   // a hash; the verifier holds no keys, so HMACs are not looked at
)

// entryMarks is what auditEntryRule looks at of an entry: its seq and which of its chain
// columns are set, and what the entries before it in the log carried.
type entryMarks struct {
	Seq         int64
	Hash        bool // hash is set
	PrevHash    bool // prev_hash is set
	MAC         bool // mac is set
	Chained     bool // an entry before it has a hash
	KeyedBefore bool // an entry before it has an HMAC
	CheckMAC    bool // the verifier holds audit keys
}

// auditEntryRule is the rule of what an audit entry must carry. keyedFrom is the first seq that
// must carry a hash and an HMAC (SOBRE_AUDIT_KEYED_FROM, 0 by default: every entry); it is
// configuration, never read from the database, so a database writer cannot move it.
//
//   - At or above keyedFrom, an entry without a hash is a break, and so is one without an HMAC
//     when the verifier holds keys.
//   - Below it, an entry may lack an HMAC (unkeyed), and may lack a hash too (legacy: written
//     before the chain existed) if no entry before it has one and it has no previous hash nor
//     HMAC: legacy entries are only a prefix of the log.
//   - Wherever it is, an entry without an HMAC after one with an HMAC is a break (HMACs were
//     stripped), and one without a hash after one with a hash too.
//   - A verifier without keys does not look at HMACs: it checks the hash chain only.
//
// It returns the entry's kind and, for a break, the reason.
func auditEntryRule(keyedFrom int64, m entryMarks) (entryKind, string) {
	below := m.Seq < keyedFrom
	switch {
	case !m.Hash && below && !m.Chained && !m.PrevHash && !m.MAC:
		return entryLegacy, ""
	case !m.Hash && m.Chained:
		return entryBroken, "it has no hash, though an entry before it has one (hashes were stripped)"
	case !m.Hash && below:
		return entryBroken, "it has no hash, though it has a previous hash or an HMAC"
	case !m.Hash:
		return entryBroken, fmt.Sprintf("it has no hash, though every entry from seq %d on must (SOBRE_AUDIT_KEYED_FROM)", keyedFrom)
	case !m.CheckMAC:
		return entryHashed, ""
	case m.MAC:
		return entryKeyed, ""
	case m.KeyedBefore:
		return entryBroken, "it has no HMAC, though an entry before it has one (HMACs were stripped)"
	case !below:
		return entryBroken, fmt.Sprintf("it has no HMAC, though every entry from seq %d on must (SOBRE_AUDIT_KEYED_FROM)", keyedFrom)
	default:
		return entryUnkeyed, ""
	}
}

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
//   - an entry without the hash or HMAC that auditEntryRule demands of it, given the store's
//     cut-over (SetAuditKeyedFrom);
//   - a previous hash that is not the hash of the entry before (removed or reordered entries), or
//     a hash that is not that of the entry's content (a changed entry);
//   - with keys: an HMAC that does not match (the chain was rewritten, hashes and all, without
//     the key), or an HMAC by a key the store does not hold.
//
// Entries below the cut-over may be unkeyed (reported in UnkeyedUpTo) or predate the chain
// (Legacy).
func (s *Store) VerifyAuditChain(ctx context.Context, envelopeID string) (AuditReport, error) {
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
		kind, reason := auditEntryRule(s.keyedFrom, entryMarks{Seq: seq, Hash: hash != nil, PrevHash: prevHash != nil, MAC: mac != nil,
			Chained: chained, KeyedBefore: rep.HeadKey != "", CheckMAC: s.audit != nil})
		switch kind {
		case entryBroken:
			return rep, broken("%s", reason)
		case entryLegacy:
			// A legacy prefix, which cannot be verified; the chain starts after it, from the
			// zero hash.
			rep.Entries, rep.Legacy, rep.UnkeyedUpTo = entry, entry, entry
			continue
		}
		c.CreatedAt = canonicalTime(created)
		content, err := canonical(c, data)
		if err != nil {
			return rep, err
		}
		switch {
		case !bytes.Equal(prevHash, prev):
			return rep, broken("its previous hash is not the hash of the entry before it (an entry was removed or reordered)")
		case !bytes.Equal(hash, chainHash(prev, content)):
			return rep, broken("its content does not match its hash (it was changed)")
		}
		switch kind {
		case entryUnkeyed:
			rep.UnkeyedUpTo = entry
		case entryKeyed:
			if macKey == nil {
				return rep, broken("its HMAC names no key")
			}
			want, ok := s.audit.mac(*macKey, c.EnvelopeID, hash)
			if !ok {
				return rep, broken("its HMAC is by the key %q, which the audit key file does not hold", *macKey)
			}
			if !hmac.Equal(mac, want) {
				return rep, broken("its HMAC does not match its hash (the chain was rewritten by someone without the audit key)")
			}
			rep.HeadKey = *macKey
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
