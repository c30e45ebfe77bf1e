package persistence

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// The signing ceremony's records: sessions bound to a browser, mailed access codes, Clave Única
// logins under way and the identity a recipient proved. Secrets never reach the database: a
// session is kept by the SHA-256 of its cookie, a code by an HMAC keyed by the session's secret,
// a Clave Única state by its SHA-256.

// Ceremony is one browser's session with one recipient.
type Ceremony struct {
	IDHash           []byte
	RecipientID      int64
	ExpiresAt        time.Time
	AccessVerifiedAt *time.Time
	ClaveUnicaRUN    string
	ClaveUnicaName   string
	ClaveUnicaAt     *time.Time
}

// StartCeremony records a new session for recipientID.
func (s *Store) StartCeremony(ctx context.Context, idHash []byte, recipientID int64, expiresAt time.Time) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO ceremony_sessions (id_hash, recipient_id, expires_at) VALUES ($1, $2, $3)`,
		idHash, recipientID, expiresAt); err != nil {
		return fmt.Errorf("start ceremony for recipient %d: %w", recipientID, err)
	}
	return nil
}

// CeremonyByHash returns the unexpired session whose cookie hashes to idHash.
func (s *Store) CeremonyByHash(ctx context.Context, idHash []byte) (Ceremony, error) {
	var c Ceremony
	var run, name *string
	err := s.pool.QueryRow(ctx, `SELECT id_hash, recipient_id, expires_at, access_verified_at, claveunica_run, claveunica_name, claveunica_at
		FROM ceremony_sessions WHERE id_hash = $1 AND expires_at > now()`, idHash).
		Scan(&c.IDHash, &c.RecipientID, &c.ExpiresAt, &c.AccessVerifiedAt, &run, &name, &c.ClaveUnicaAt)
	if err != nil {
		return c, notFound(err, "Signing session")
	}
	c.ClaveUnicaRUN, c.ClaveUnicaName = deref(run), deref(name)
	return c, nil
}

// AccessCodePolicy bounds mailed access codes.
type AccessCodePolicy struct {
	TTL         time.Duration // how long a code is valid
	MaxRequests int           // codes a recipient may ask for within Window
	Window      time.Duration
	MaxAttempts int // wrong guesses before a code is spent
}

// RequestAccessCode stores a new code (as codeHMAC) for the session's recipient, unless the
// recipient asked for too many codes lately (TOO_MANY_REQUESTS), and appends
// DOCUMENT_ACCESS_AUTH_2FA_REQUESTED. Earlier codes of the session stop working.
func (s *Store) RequestAccessCode(ctx context.Context, c Ceremony, r envelope.Recipient, codeHMAC []byte, p AccessCodePolicy, a Actor) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockEnvelopeRow(ctx, r.EnvelopeID); err != nil {
			return err
		}
		var recent int
		if err := tx.q.QueryRow(ctx, `SELECT count(*) FROM access_codes WHERE recipient_id = $1 AND created_at > now() - $2::interval`,
			r.ID, p.Window.String()).Scan(&recent); err != nil {
			return fmt.Errorf("count access codes of recipient %d: %w", r.ID, err)
		}
		if recent >= p.MaxRequests {
			return envelope.Errorf(envelope.CodeTooManyRequests, "Too many codes were requested; wait a few minutes and try again")
		}
		if _, err := tx.q.Exec(ctx, `UPDATE access_codes SET used_at = now() WHERE session_hash = $1 AND used_at IS NULL`, c.IDHash); err != nil {
			return fmt.Errorf("retire earlier access codes: %w", err)
		}
		if _, err := tx.q.Exec(ctx, `INSERT INTO access_codes (recipient_id, session_hash, code_hmac, expires_at) VALUES ($1, $2, $3, now() + $4::interval)`,
			r.ID, c.IDHash, codeHMAC, p.TTL.String()); err != nil {
			return fmt.Errorf("store access code: %w", err)
		}
		return tx.AppendAudit(ctx, r.EnvelopeID, "DOCUMENT_ACCESS_AUTH_2FA_REQUESTED", accessData(r), a)
	})
}

func accessData(r envelope.Recipient) map[string]any {
	return map[string]any{"recipientEmail": r.Email, "recipientName": r.Name, "recipientId": r.ID}
}

// Results of VerifyAccessCode.
var (
	ErrCodeWrong   = errors.New("the code is wrong")
	ErrCodeExpired = errors.New("the code has expired or was used; ask for a new one")
)

// VerifyAccessCode checks codeHMAC against the session's current code. A match marks the session
// verified (DOCUMENT_ACCESS_AUTH_2FA_VALIDATED); a miss counts an attempt and is recorded
// (DOCUMENT_ACCESS_AUTH_2FA_FAILED), and the code is spent after p.MaxAttempts misses. The
// failure is committed before ErrCodeWrong or ErrCodeExpired is returned.
func (s *Store) VerifyAccessCode(ctx context.Context, c Ceremony, r envelope.Recipient, codeHMAC []byte, p AccessCodePolicy, a Actor) error {
	var result error
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockEnvelopeRow(ctx, r.EnvelopeID); err != nil {
			return err
		}
		var id int64
		var stored []byte
		var attempts int
		err := tx.q.QueryRow(ctx, `SELECT id, code_hmac, attempts FROM access_codes
			WHERE session_hash = $1 AND used_at IS NULL AND expires_at > now() ORDER BY id DESC LIMIT 1 FOR UPDATE`, c.IDHash).
			Scan(&id, &stored, &attempts)
		if errors.Is(err, pgx.ErrNoRows) {
			result = ErrCodeExpired
			return tx.AppendAudit(ctx, r.EnvelopeID, "DOCUMENT_ACCESS_AUTH_2FA_FAILED", accessData(r), a)
		}
		if err != nil {
			return fmt.Errorf("read access code: %w", err)
		}
		if subtle.ConstantTimeCompare(stored, codeHMAC) == 1 {
			if _, err := tx.q.Exec(ctx, `UPDATE access_codes SET used_at = now() WHERE id = $1`, id); err != nil {
				return fmt.Errorf("spend access code: %w", err)
			}
			if _, err := tx.q.Exec(ctx, `UPDATE ceremony_sessions SET access_verified_at = now() WHERE id_hash = $1`, c.IDHash); err != nil {
				return fmt.Errorf("mark session verified: %w", err)
			}
			return tx.AppendAudit(ctx, r.EnvelopeID, "DOCUMENT_ACCESS_AUTH_2FA_VALIDATED", accessData(r), a)
		}
		result = ErrCodeWrong
		if _, err := tx.q.Exec(ctx, `UPDATE access_codes SET attempts = attempts + 1,
			used_at = CASE WHEN attempts + 1 >= $2 THEN now() END WHERE id = $1`, id, p.MaxAttempts); err != nil {
			return fmt.Errorf("count a wrong access code: %w", err)
		}
		return tx.AppendAudit(ctx, r.EnvelopeID, "DOCUMENT_ACCESS_AUTH_2FA_FAILED", accessData(r), a)
	})
	if err != nil {
		return err
	}
	return result
}

// BeginClaveUnica records an authorization request: its state (as stateHash) and nonce, bound to
// the session and its recipient, valid until expiresAt.
func (s *Store) BeginClaveUnica(ctx context.Context, c Ceremony, stateHash []byte, nonce string, expiresAt time.Time) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO claveunica_logins (state_hash, session_hash, recipient_id, nonce, expires_at) VALUES ($1, $2, $3, $4, $5)`,
		stateHash, c.IDHash, c.RecipientID, nonce, expiresAt); err != nil {
		return fmt.Errorf("record Clave Única login: %w", err)
	}
	return nil
}

// ClaveUnicaLogin is an authorization request taken back at the callback.
type ClaveUnicaLogin struct {
	RecipientID int64
	Nonce       string
}

// ErrStateUnknown is a callback whose state is unknown, used, expired or begun in another browser.
var ErrStateUnknown = errors.New("this Clave Única login is unknown, was already used or has expired")

// TakeClaveUnica spends the login with stateHash, begun by session sessionHash: it works once.
func (s *Store) TakeClaveUnica(ctx context.Context, stateHash, sessionHash []byte) (ClaveUnicaLogin, error) {
	var l ClaveUnicaLogin
	err := s.pool.QueryRow(ctx, `UPDATE claveunica_logins SET used_at = now()
		WHERE state_hash = $1 AND session_hash = $2 AND used_at IS NULL AND expires_at > now()
		RETURNING recipient_id, nonce`, stateHash, sessionHash).Scan(&l.RecipientID, &l.Nonce)
	if errors.Is(err, pgx.ErrNoRows) {
		return l, ErrStateUnknown
	}
	if err != nil {
		return l, fmt.Errorf("take Clave Única login: %w", err)
	}
	return l, nil
}

// RecordClaveUnica keeps the RUN and name that Clave Única verified for the session's recipient,
// and fills the recipient's RUT_FIRMADO fields with the RUN (DOCUMENT_FIELD_INSERTED each), while
// the envelope is PENDING and the recipient has not acted. When the recipient already proved a
// RUT with an advanced-signature certificate, the two must agree.
func (s *Store) RecordClaveUnica(ctx context.Context, c Ceremony, run, name string, a Actor) error {
	return s.InTx(ctx, func(tx *Tx) error {
		var envelopeID string
		if err := tx.q.QueryRow(ctx, `SELECT envelope_id FROM recipients WHERE id = $1`, c.RecipientID).Scan(&envelopeID); err != nil {
			return notFound(err, "Recipient")
		}
		snap, err := tx.lockSnapshot(ctx, envelopeID)
		if err != nil {
			return err
		}
		if err := pendingOrError(snap.Status); err != nil {
			return err
		}
		r := snap.Recipient(c.RecipientID)
		if r == nil {
			return envelope.NotFound("Recipient")
		}
		if r.SigningStatus != envelope.SigningStatusNotSigned {
			return envelope.Errorf(envelope.CodeRecipientAlreadySigned, "Recipient has already acted on this envelope")
		}
		var feaRUT *string
		if err := tx.q.QueryRow(ctx, `SELECT fea_rut FROM recipient_identities WHERE recipient_id = $1`, r.ID).Scan(&feaRUT); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("read identity of recipient %d: %w", r.ID, err)
		}
		if feaRUT != nil && *feaRUT != run {
			return envelope.Errorf(envelope.CodeRUTMismatch, "The RUN verified by Clave Única (%s) is not the RUT of the signing certificate (%s)", run, *feaRUT)
		}
		if _, err := tx.q.Exec(ctx, `UPDATE ceremony_sessions SET claveunica_run = $2, claveunica_name = $3, claveunica_at = now() WHERE id_hash = $1`,
			c.IDHash, run, name); err != nil {
			return fmt.Errorf("record Clave Única on the session: %w", err)
		}
		if _, err := tx.q.Exec(ctx, `INSERT INTO recipient_identities (recipient_id, claveunica_run, claveunica_name, claveunica_at)
			VALUES ($1, $2, $3, now()) ON CONFLICT (recipient_id) DO UPDATE
			SET claveunica_run = EXCLUDED.claveunica_run, claveunica_name = EXCLUDED.claveunica_name, claveunica_at = EXCLUDED.claveunica_at`,
			r.ID, run, name); err != nil {
			return fmt.Errorf("record identity of recipient %d: %w", r.ID, err)
		}
		rows, err := tx.q.Query(ctx, `UPDATE fields SET custom_text = $2, inserted = true, updated_at = now()
			WHERE recipient_id = $1 AND type = 'RUT_FIRMADO' RETURNING secondary_id`, r.ID, run)
		if err != nil {
			return fmt.Errorf("fill RUT_FIRMADO fields of recipient %d: %w", r.ID, err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("fill RUT_FIRMADO fields of recipient %d: %w", r.ID, err)
		}
		for _, id := range ids {
			entry := merge(RecipientData(*r), map[string]any{"fieldId": id,
				"field": map[string]any{"type": envelope.FieldRUTFirmado, "data": run}})
			if err := tx.AppendAudit(ctx, envelopeID, "DOCUMENT_FIELD_INSERTED", entry, a); err != nil {
				return err
			}
		}
		return nil
	})
}

// Identity is what a recipient proved: the RUN and name verified by Clave Única and the
// advanced-signature certificate of a FAO_HASH signature.
type Identity struct {
	ClaveUnicaRUN  string     `json:"claveUnicaRun,omitempty"`
	ClaveUnicaName string     `json:"claveUnicaName,omitempty"`
	ClaveUnicaAt   *time.Time `json:"claveUnicaAt,omitempty"`
	FEARUT         string     `json:"feaRut,omitempty"`
	FEASubject     string     `json:"feaSubject,omitempty"`
	FEAIssuer      string     `json:"feaIssuer,omitempty"`
	FEASerial      string     `json:"feaSerial,omitempty"`
	FEADigest      string     `json:"feaDigest,omitempty"`
	FEACMS         []byte     `json:"-"`
	FEAAt          *time.Time `json:"feaAt,omitempty"`
}

// RecipientIdentity returns what recipientID proved (the zero Identity when nothing).
func (s *Store) RecipientIdentity(ctx context.Context, recipientID int64) (Identity, error) {
	return readIdentity(ctx, s.pool, recipientID)
}

func readIdentity(ctx context.Context, q querier, recipientID int64) (Identity, error) {
	var id Identity
	var run, name, rut, subject, issuer, serial, digest *string
	err := q.QueryRow(ctx, `SELECT claveunica_run, claveunica_name, claveunica_at, fea_rut, fea_subject, fea_issuer, fea_serial, fea_digest, fea_cms, fea_at
		FROM recipient_identities WHERE recipient_id = $1`, recipientID).
		Scan(&run, &name, &id.ClaveUnicaAt, &rut, &subject, &issuer, &serial, &digest, &id.FEACMS, &id.FEAAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return id, nil
	}
	if err != nil {
		return id, fmt.Errorf("read identity of recipient %d: %w", recipientID, err)
	}
	id.ClaveUnicaRUN, id.ClaveUnicaName = deref(run), deref(name)
	id.FEARUT, id.FEASubject, id.FEAIssuer, id.FEASerial, id.FEADigest = deref(rut), deref(subject), deref(issuer), deref(serial), deref(digest)
	return id, nil
}

// FEASignature is a verified FAO_HASH signature of a recipient.
type FEASignature struct {
	RUT, Subject, Issuer, Serial string
	Digest                       string // the hex SHA-256 the signature covers
	CMS                          []byte
}

// RecordFEA keeps a verified FAO_HASH signature with the recipient's identity, while the envelope
// is PENDING and the recipient has not acted. When the recipient proved a RUN with Clave Única,
// the certificate's RUT must be the same.
func (s *Store) RecordFEA(ctx context.Context, r envelope.Recipient, sig FEASignature) error {
	return s.InTx(ctx, func(tx *Tx) error {
		snap, err := tx.lockSnapshot(ctx, r.EnvelopeID)
		if err != nil {
			return err
		}
		if err := pendingOrError(snap.Status); err != nil {
			return err
		}
		cur := snap.Recipient(r.ID)
		if cur == nil {
			return envelope.NotFound("Recipient")
		}
		if cur.SigningStatus != envelope.SigningStatusNotSigned {
			return envelope.Errorf(envelope.CodeRecipientAlreadySigned, "Recipient has already acted on this envelope")
		}
		id, err := readIdentity(ctx, tx.q, r.ID)
		if err != nil {
			return err
		}
		if id.ClaveUnicaRUN != "" && id.ClaveUnicaRUN != sig.RUT {
			return envelope.Errorf(envelope.CodeRUTMismatch, "The certificate's RUT (%s) is not the RUN verified by Clave Única (%s)", sig.RUT, id.ClaveUnicaRUN)
		}
		if _, err := tx.q.Exec(ctx, `INSERT INTO recipient_identities (recipient_id, fea_rut, fea_subject, fea_issuer, fea_serial, fea_digest, fea_cms, fea_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, now()) ON CONFLICT (recipient_id) DO UPDATE
			SET fea_rut = EXCLUDED.fea_rut, fea_subject = EXCLUDED.fea_subject, fea_issuer = EXCLUDED.fea_issuer, fea_serial = EXCLUDED.fea_serial,
			    fea_digest = EXCLUDED.fea_digest, fea_cms = EXCLUDED.fea_cms, fea_at = EXCLUDED.fea_at`,
			r.ID, sig.RUT, sig.Subject, sig.Issuer, sig.Serial, sig.Digest, sig.CMS); err != nil {
			return fmt.Errorf("record FAO_HASH signature of recipient %d: %w", r.ID, err)
		}
		return nil
	})
}

// ItemDigests returns the SHA-256 (hex) of each item's document as distributed, in item order.
func (s *Store) ItemDigests(ctx context.Context, envelopeID string) ([]ItemDigest, error) {
	rows, err := s.pool.Query(ctx, `SELECT i.id, encode(d.sha256, 'hex') FROM envelope_items i JOIN document_data d ON d.id = i.document_data_id
		WHERE i.envelope_id = $1 ORDER BY i.item_order, i.id`, envelopeID)
	if err != nil {
		return nil, fmt.Errorf("digest items of %s: %w", envelopeID, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (ItemDigest, error) {
		var d ItemDigest
		err := row.Scan(&d.ItemID, &d.SHA256)
		return d, err
	})
}

// ItemDigest is an item's id and the hex SHA-256 of its document.
type ItemDigest struct {
	ItemID string
	SHA256 string
}

// RecipientByID returns recipient id (the Clave Única callback knows the recipient, not the token).
func (s *Store) RecipientByID(ctx context.Context, id int64) (envelope.Recipient, error) {
	r, err := scanRecipient(s.pool.QueryRow(ctx, `SELECT `+recipientColumns+` FROM recipients r WHERE r.id = $1`, id))
	if err != nil {
		return r, notFound(err, "Recipient")
	}
	return r, nil
}

// FieldSignature is the signature stored for a field: typed text or a PNG image.
type FieldSignature struct {
	Typed *string
	PNG   []byte
}

// RecipientSignatures returns the signatures recipientID put in its fields, by field id.
func (s *Store) RecipientSignatures(ctx context.Context, recipientID int64) (map[int64]FieldSignature, error) {
	rows, err := s.pool.Query(ctx, `SELECT field_id, typed, image_png FROM signatures WHERE recipient_id = $1`, recipientID)
	if err != nil {
		return nil, fmt.Errorf("read signatures of recipient %d: %w", recipientID, err)
	}
	defer rows.Close()
	out := map[int64]FieldSignature{}
	for rows.Next() {
		var id int64
		var sig FieldSignature
		if err := rows.Scan(&id, &sig.Typed, &sig.PNG); err != nil {
			return nil, fmt.Errorf("read signatures of recipient %d: %w", recipientID, err)
		}
		out[id] = sig
	}
	return out, rows.Err()
}

// AuditTypes returns the types of an envelope's audit entries, oldest first.
func (s *Store) AuditTypes(ctx context.Context, envelopeID string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT type FROM audit_logs WHERE envelope_id = $1 ORDER BY seq`, envelopeID)
	if err != nil {
		return nil, fmt.Errorf("audit types of %s: %w", envelopeID, err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// completionAuth is what DOCUMENT_RECIPIENT_COMPLETED records of how the recipient proved who
// they are: the action auth that applied (its own list, else the envelope's) and, when the
// recipient proved it, the identity: the RUN and name verified by Clave Única, the subject and RUT
// of the advanced-signature certificate.
func (tx *Tx) completionAuth(ctx context.Context, snap Snapshot, r envelope.Recipient) (map[string]any, error) {
	action := []string{}
	for _, a := range r.AuthOptions.ActionAuth {
		action = append(action, string(a))
	}
	if len(action) == 0 {
		if err := tx.q.QueryRow(ctx, `SELECT global_action_auth FROM envelopes WHERE id = $1`, snap.EnvelopeID).Scan(&action); err != nil {
			return nil, fmt.Errorf("read action auth of %s: %w", snap.EnvelopeID, err)
		}
	}
	if slices.Contains(action, string(envelope.ActionAuthExplicitNone)) {
		action = []string{}
	}
	out := map[string]any{"actionAuth": action}
	id, err := readIdentity(ctx, tx.q, r.ID)
	if err != nil {
		return nil, err
	}
	identity := map[string]any{}
	if id.ClaveUnicaRUN != "" {
		identity["claveUnica"] = map[string]any{"run": id.ClaveUnicaRUN, "name": id.ClaveUnicaName, "verifiedAt": id.ClaveUnicaAt}
	}
	if id.FEARUT != "" {
		identity["certificate"] = map[string]any{"rut": id.FEARUT, "subject": id.FEASubject, "issuer": id.FEAIssuer,
			"serialNumber": id.FEASerial, "digest": id.FEADigest, "verifiedAt": id.FEAAt}
	}
	if len(identity) > 0 {
		out["identity"] = identity
	}
	return out, nil
}
