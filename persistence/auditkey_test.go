package persistence_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/keyring"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// auditKeys parses key-file lines, as `sobre keygen` prints them.
func auditKeys(t *testing.T, lines ...string) *persistence.AuditKeys {
	t.Helper()
	k, err := persistence.ParseAuditKeys([]byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// chainFixture is a database with one envelope, and a store on it for each key file.
type chainFixture struct {
	t    *testing.T
	ctx  context.Context
	url  string
	conn *pgx.Conn // the database writer's connection: plain SQL, no key
	m    envelope.Member
	id   string
	ring *keyring.Ring // every store of the fixture seals and opens signing tokens alike
}

func newChainFixture(t *testing.T) *chainFixture {
	f := &chainFixture{t: t, ctx: context.Background(), url: pgtest.NewURL(t), ring: pgtest.Keyring(t)}
	var err error
	if f.conn, err = pgx.Connect(f.ctx, f.url); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.conn.Close(context.Background()) })
	return f
}

// store opens a store signing and checking with keys (nil: none), strict: every entry must be
// keyed (SOBRE_AUDIT_KEYED_FROM's default, 0).
func (f *chainFixture) store(keys *persistence.AuditKeys) *persistence.Store {
	f.t.Helper()
	return f.storeFrom(keys, 0)
}

// storeFrom opens a store with keys whose entries from seq keyedFrom on must be keyed.
func (f *chainFixture) storeFrom(keys *persistence.AuditKeys, keyedFrom int64) *persistence.Store {
	f.t.Helper()
	s, err := persistence.Open(f.ctx, f.url, persistence.WithKeyring(f.ring))
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(s.Close)
	if keys != nil {
		s.SetAuditKeys(keys)
	}
	s.SetAuditKeyedFrom(keyedFrom)
	return s
}

// nextSeq is the seq the next audit entry will get: the cut-over an operator configures once
// the last process that writes unkeyed entries is gone.
func (f *chainFixture) nextSeq() int64 {
	f.t.Helper()
	var n int64
	if err := f.conn.QueryRow(f.ctx, `SELECT coalesce(max(seq), 0) + 1 FROM audit_logs`).Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// create makes the envelope through s (4 entries, DOCUMENT_CREATED first).
func (f *chainFixture) create(s *persistence.Store) {
	f.t.Helper()
	var err error
	if f.m, err = s.EnsureMember(f.ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin); err != nil {
		f.t.Fatal(err)
	}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Contrato", Meta: envelope.DefaultMeta("")},
		Items:      []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF keyed"), Pages: []persistence.PageSize{{Width: 1, Height: 1}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "zoe@example.com", Name: "Zoë", Role: envelope.RoleSigner}}},
	}
	if err := s.InTx(f.ctx, func(tx *persistence.Tx) error {
		if f.id, err = tx.CreateEnvelope(f.ctx, f.m, in, envelope.MemberActor(f.m, "203.0.113.7", "test")); err != nil {
			return err
		}
		return tx.AppendAudit(f.ctx, f.id, envelope.Audit{Type: envelope.AuditMetaUpdated, Data: map[string]any{"changes": []any{"<b>x</b>"}}}, envelope.Actor{})
	}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *chainFixture) appendEntry(s *persistence.Store, typ string) {
	f.t.Helper()
	if err := s.InTx(f.ctx, func(tx *persistence.Tx) error {
		return tx.AppendAudit(f.ctx, f.id, envelope.Audit{Type: envelope.AuditType(typ), Data: map[string]any{"n": 1}}, envelope.Actor{})
	}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *chainFixture) exec(sql string, args ...any) {
	f.t.Helper()
	if _, err := f.conn.Exec(f.ctx, sql, args...); err != nil {
		f.t.Fatal(err)
	}
}

// rewrite is what a database writer who knows the published algorithm (auditchain.go) but not
// the key does: change one entry's data in SQL, then recompute the hash chain from that entry
// to the head so that it holds again. The HMACs it cannot recompute are left as they were.
func (f *chainFixture) rewrite(typ, title string) {
	f.t.Helper()
	f.exec(`UPDATE audit_logs SET data = jsonb_set(data, '{title}', to_jsonb($2::text)) WHERE envelope_id = $1 AND type = $3`, f.id, title, typ)
	rows, err := f.conn.Query(f.ctx, `SELECT seq, id, created_at, envelope_id, type, data, name, email, user_id, user_agent, ip_address
		FROM audit_logs WHERE envelope_id = $1 ORDER BY seq`, f.id)
	if err != nil {
		f.t.Fatal(err)
	}
	type row struct {
		seq     int64
		content []byte
	}
	var all []row
	for rows.Next() {
		var seq int64
		var id, env, typ string
		var created time.Time
		var data json.RawMessage
		var name, email, ua, ip *string
		var userID *int64
		if err := rows.Scan(&seq, &id, &created, &env, &typ, &data, &name, &email, &userID, &ua, &ip); err != nil {
			f.t.Fatal(err)
		}
		var d any
		if err := json.Unmarshal(data, &d); err != nil {
			f.t.Fatal(err)
		}
		// The canonical content: these keys, sorted (a Go map is encoded sorted), no HTML escaping.
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]any{"createdAt": created.UTC().Format("2006-01-02T15:04:05.000000Z"), "data": d, "email": email,
			"envelopeId": env, "id": id, "ipAddress": ip, "name": name, "type": typ, "userAgent": ua, "userId": userID}); err != nil {
			f.t.Fatal(err)
		}
		all = append(all, row{seq, bytes.TrimRight(b.Bytes(), "\n")})
	}
	if err := rows.Err(); err != nil {
		f.t.Fatal(err)
	}
	prev := make([]byte, sha256.Size)
	for _, r := range all {
		h := sha256.New()
		h.Write(prev)
		h.Write(r.content)
		hash := h.Sum(nil)
		f.exec(`UPDATE audit_logs SET prev_hash = $2, hash = $3 WHERE seq = $1`, r.seq, prev, hash)
		prev = hash
	}
}

// A database writer rewrites the chain consistently, hashes and all: the hash chain alone holds
// again, but the HMACs, which need the key, do not, and verify names the entry.
func TestAuditHMACCatchesAConsistentRewrite(t *testing.T) {
	t.Parallel()
	f := newChainFixture(t)
	keys := auditKeys(t, keyring.NewKeyLine("a1"))
	keyed, keyless := f.store(keys), f.store(nil)
	f.create(keyed)
	f.appendEntry(keyed, "DOCUMENT_SENT")

	rep, err := keyed.VerifyAuditChain(f.ctx, f.id)
	if err != nil || rep.Entries != 5 || !rep.MACChecked || rep.UnkeyedUpTo != 0 || rep.HeadKey != "a1" {
		t.Fatalf("fresh keyed log: %+v, %v", rep, err)
	}

	f.rewrite("DOCUMENT_CREATED", "Contrato falso")
	// The rewrite is consistent: what the hash chain alone can say, it says holds.
	if rep, err := keyless.VerifyAuditChain(f.ctx, f.id); err != nil || rep.MACChecked {
		t.Fatalf("the rewritten chain, without the key: %+v, %v; want it to hold (hash chain only)", rep, err)
	}
	var br *persistence.ChainBreak
	_, err = keyed.VerifyAuditChain(f.ctx, f.id)
	if !errors.As(err, &br) || br.Entry != 1 || br.Type != "DOCUMENT_CREATED" || !strings.Contains(br.Reason, "HMAC does not match") {
		t.Fatalf("the rewritten chain, with the key: %v", err)
	}
	if _, _, err := keyed.VerifyAudit(f.ctx, f.id); !errors.As(err, &br) {
		t.Errorf("VerifyAudit does not check HMACs: %v", err)
	}

	// Stripping the HMACs instead: an entry at or above the cut-over (0 here) has none.
	f.exec(`UPDATE audit_logs SET mac = NULL, mac_key = NULL WHERE envelope_id = $1`, f.id)
	if _, err := keyed.VerifyAuditChain(f.ctx, f.id); !errors.As(err, &br) || br.Entry != 1 || !strings.Contains(br.Reason, "no HMAC") {
		t.Fatalf("stripped HMACs: %v", err)
	}
}

// Only the tail stripped of its HMAC, or an HMAC by a key the verifier lacks, is a break; a
// rotated key file (a new first key, the old one kept) verifies old entries and signs new ones.
func TestAuditHMACStrippedTailAndRotation(t *testing.T) {
	t.Parallel()
	f := newChainFixture(t)
	old := keyring.NewKeyLine("old")
	keyed := f.store(auditKeys(t, old))
	f.create(keyed)

	rotated := f.store(auditKeys(t, keyring.NewKeyLine("new"), old))
	f.appendEntry(rotated, "DOCUMENT_SENT")
	rep, err := rotated.VerifyAuditChain(f.ctx, f.id)
	if err != nil || rep.HeadKey != "new" || rep.Entries != 5 {
		t.Fatalf("rotated key file: %+v, %v", rep, err)
	}
	var br *persistence.ChainBreak
	if _, err := keyed.VerifyAuditChain(f.ctx, f.id); !errors.As(err, &br) || br.Entry != 5 || !strings.Contains(br.Reason, `key "new"`) {
		t.Fatalf("a verifier without the new key: %v", err)
	}
	if _, err := f.store(auditKeys(t, keyring.NewKeyLine("old"))).VerifyAuditChain(f.ctx, f.id); !errors.As(err, &br) || br.Entry != 1 || !strings.Contains(br.Reason, "does not match") {
		t.Fatalf("a verifier with another key of the same id: %v", err)
	}

	f.exec(`UPDATE audit_logs SET mac = NULL, mac_key = NULL WHERE envelope_id = $1 AND type = 'DOCUMENT_SENT'`, f.id)
	if _, err := rotated.VerifyAuditChain(f.ctx, f.id); !errors.As(err, &br) || br.Entry != 5 || !strings.Contains(br.Reason, "an entry before it has one") {
		t.Fatalf("the head stripped of its HMAC: %v", err)
	}
}

// A chain written before audit keys existed, below the configured cut-over, still verifies,
// reported unkeyed; once a keyed entry follows, its HMAC vouches for the unkeyed entries before
// it, so rewriting them is caught at that entry. A strict verifier (the default cut-over, 0)
// refuses the unkeyed chain.
func TestAuditHMACUnkeyedChains(t *testing.T) {
	t.Parallel()
	f := newChainFixture(t)
	keys := auditKeys(t, keyring.NewKeyLine("a1"))
	f.create(f.store(nil))
	keyed := f.storeFrom(keys, f.nextSeq())
	rep, err := keyed.VerifyAuditChain(f.ctx, f.id)
	if err != nil || rep.Entries != 4 || rep.UnkeyedUpTo != 4 || rep.HeadKey != "" || !rep.MACChecked {
		t.Fatalf("an unkeyed chain: %+v, %v", rep, err)
	}
	var br *persistence.ChainBreak
	if _, err := f.store(keys).VerifyAuditChain(f.ctx, f.id); !errors.As(err, &br) || br.Entry != 1 || !strings.Contains(br.Reason, "no HMAC") {
		t.Fatalf("an unkeyed chain, verified strictly: %v", err)
	}

	f.appendEntry(keyed, "DOCUMENT_SENT")
	f.appendEntry(keyed, "DOCUMENT_OPENED")
	rep, err = keyed.VerifyAuditChain(f.ctx, f.id)
	if err != nil || rep.Entries != 6 || rep.UnkeyedUpTo != 4 || rep.HeadKey != "a1" {
		t.Fatalf("keyed from entry 5 on: %+v, %v", rep, err)
	}

	f.rewrite("DOCUMENT_CREATED", "Otro")
	if _, err := keyed.VerifyAuditChain(f.ctx, f.id); !errors.As(err, &br) || br.Entry != 5 || !strings.Contains(br.Reason, "HMAC does not match") {
		t.Fatalf("an unkeyed entry rewritten under a keyed one: %v", err)
	}
}

// The attack that a cut-over read from the database allowed: a database writer strips every
// HMAC, changes an entry, recomputes the hashes, and moves goose's record of migrations 00015
// and 00004 into the future, so that a verifier taking its cut-over from there would call every
// entry unkeyed, or older than the hash chain. The cut-over is configuration: the log breaks.
func TestAuditCutOverIsNotInTheDatabase(t *testing.T) {
	t.Parallel()
	f := newChainFixture(t)
	keys := auditKeys(t, keyring.NewKeyLine("a1"))
	keyed := f.store(keys)
	f.create(keyed)
	f.appendEntry(keyed, "DOCUMENT_SENT")
	if rep, err := keyed.VerifyAuditChain(f.ctx, f.id); err != nil || rep.UnkeyedUpTo != 0 || rep.HeadKey != "a1" {
		t.Fatalf("fresh keyed log: %+v, %v", rep, err)
	}

	f.exec(`UPDATE audit_logs SET mac = NULL, mac_key = NULL WHERE envelope_id = $1`, f.id)
	f.rewrite("DOCUMENT_CREATED", "Contrato falso")
	f.exec(`UPDATE goose_db_version SET tstamp = '2100-01-01' WHERE version_id IN (4, 15)`)
	var br *persistence.ChainBreak
	_, err := keyed.VerifyAuditChain(f.ctx, f.id)
	if !errors.As(err, &br) || br.Entry != 1 || !strings.Contains(br.Reason, "no HMAC") {
		t.Fatalf("HMACs stripped, an entry changed, migration 00015 moved: %v", err)
	}

	// Hashes stripped too, as if the log predated the chain.
	f.exec(`UPDATE audit_logs SET hash = NULL, prev_hash = NULL WHERE envelope_id = $1`, f.id)
	for name, s := range map[string]*persistence.Store{"with keys": keyed, "without keys": f.store(nil)} {
		if _, err := s.VerifyAuditChain(f.ctx, f.id); !errors.As(err, &br) || br.Entry != 1 || !strings.Contains(br.Reason, "no hash") {
			t.Fatalf("%s: hashes stripped, migration 00004 moved: %v", name, err)
		}
	}
}

func TestParseAuditKeysRefuses(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"empty":     "# nothing\n",
		"short key": "k1 c2hvcnQ=",
		"no key":    "k1",
		"twice":     keyring.NewKeyLine("k1") + "\n" + keyring.NewKeyLine("k1"),
	} {
		if _, err := persistence.ParseAuditKeys([]byte(text)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
