package persistence

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/auth/fea"
	"github.com/sobre-sign/sobre/envelope"
)

// The signing ceremony's records: sessions bound to a browser, mailed access codes, Clave Única
// logins under way and the identity a recipient proved. Secrets never reach the database: a
// session is kept by the SHA-256 of its cookie, a code by an HMAC keyed by the session's secret,
// a Clave Única state by its SHA-256.

// Ceremony is one browser's session with one recipient, and what was proved in it.
type Ceremony struct {
	IDHash []byte
	// ID names the session without being its secret or its lookup key (hex SHA-256 of IDHash):
	// completion carries it through the workflow.
	ID               string
	RecipientID      int64
	ExpiresAt        time.Time
	AccessVerifiedAt *time.Time
	ClaveUnicaRUN    string
	ClaveUnicaName   string
	ClaveUnicaAt     *time.Time
	FEA              *FEASignature // the advanced electronic signature given in this session
	FEAAt            *time.Time
	// The signer account this browser was signed in to when it last acted on the link (its
	// session's public id), and the proofs that account gave here for this recipient.
	AccountID           int64
	AccountSessionID    string
	PasswordAt          *time.Time
	TOTPAt              *time.Time
	PasskeyAt           *time.Time
	PasskeyCredentialID string
}

// Proofs is what the session proved, for envelope.CheckCompletion.
func (c Ceremony) Proofs() envelope.SessionProofs {
	p := envelope.SessionProofs{RecipientID: c.RecipientID, AccessVerified: c.AccessVerifiedAt != nil,
		ClaveUnicaRUN: c.ClaveUnicaRUN, ClaveUnicaAt: c.ClaveUnicaAt}
	if c.FEA != nil {
		p.FEARUT, p.FEADigest, p.FEAAt = c.FEA.RUT, c.FEA.Digest, c.FEAAt
	}
	p.PasswordAt, p.TOTPAt, p.PasskeyAt, p.PasskeyCredentialID = c.PasswordAt, c.TOTPAt, c.PasskeyAt, c.PasskeyCredentialID
	return p
}

// ceremonyColumns are read by scanCeremony.
const ceremonyColumns = `id_hash, id, recipient_id, expires_at, access_verified_at, claveunica_run, claveunica_name, claveunica_at,
	fea_rut, fea_subject, fea_issuer, fea_serial, fea_digest, fea_cms, fea_at, fea_ocsp, fea_revocation,
	account_id, account_session_id, password_at, totp_at, passkey_at, passkey_credential_id`

func scanCeremony(row pgx.Row) (Ceremony, error) {
	var c Ceremony
	var run, name, rut, subject, issuer, serial, digest, revocation, accountSession, passkey *string
	var account *int64
	var cms, ocsp []byte
	if err := row.Scan(&c.IDHash, &c.ID, &c.RecipientID, &c.ExpiresAt, &c.AccessVerifiedAt, &run, &name, &c.ClaveUnicaAt,
		&rut, &subject, &issuer, &serial, &digest, &cms, &c.FEAAt, &ocsp, &revocation,
		&account, &accountSession, &c.PasswordAt, &c.TOTPAt, &c.PasskeyAt, &passkey); err != nil {
		return c, err
	}
	c.ClaveUnicaRUN, c.ClaveUnicaName = deref(run), deref(name)
	c.AccountSessionID, c.PasskeyCredentialID = deref(accountSession), deref(passkey)
	if account != nil {
		c.AccountID = *account
	}
	if rut != nil {
		c.FEA = &FEASignature{RUT: *rut, Subject: deref(subject), Issuer: deref(issuer), Serial: deref(serial), Digest: deref(digest), CMS: cms,
			OCSP: ocsp, Revocation: deref(revocation)}
	}
	return c, nil
}

// StartCeremony records a new session for the recipient whose signing token is token, as long as
// that token is still the recipient's: a link replaced while its page was loading starts nothing
// (the recipient's row is share-locked, so a replacement in progress is waited for and then seen).
func (s *Store) StartCeremony(ctx context.Context, idHash []byte, recipientID int64, token string, expiresAt time.Time) error {
	tag, err := s.pool.Exec(ctx, `WITH current AS (SELECT id FROM recipients WHERE id = $2 AND token_hash = $4 FOR SHARE)
		INSERT INTO ceremony_sessions (id_hash, recipient_id, expires_at) SELECT $1, current.id, $3 FROM current`,
		idHash, recipientID, expiresAt, TokenHash(token))
	if err != nil {
		return fmt.Errorf("start ceremony for recipient %d: %w", recipientID, err)
	}
	if tag.RowsAffected() == 0 {
		return ErrLinkReplaced
	}
	return nil
}

// ErrLinkReplaced is a signing link that a newer one replaced while it was in use.
var ErrLinkReplaced = envelope.Errorf(envelope.CodeLinkReplaced, "This signing link was replaced by a newer one; use the link in the latest email")

// CeremonyByHash returns the unexpired session whose cookie hashes to idHash.
func (s *Store) CeremonyByHash(ctx context.Context, idHash []byte) (Ceremony, error) {
	c, err := scanCeremony(s.pool.QueryRow(ctx, `SELECT `+ceremonyColumns+` FROM ceremony_sessions WHERE id_hash = $1 AND expires_at > now()`, idHash))
	if err != nil {
		return c, notFound(err, "Signing session")
	}
	return c, nil
}

// AccessCodePolicy bounds mailed access codes.
type AccessCodePolicy struct {
	TTL         time.Duration // how long a code is valid
	MaxRequests int           // codes a recipient may ask for within Window
	Window      time.Duration
	MaxAttempts int // wrong guesses before a code is spent
	// MaxFailures is how many wrong codes in all (every session, every code) lock the recipient's
	// code entry (envelope.DefaultMaxCodeFailures when 0).
	MaxFailures int
}

// Ceiling is the number of wrong codes that locks a code entry.
func (p AccessCodePolicy) Ceiling() int {
	if p.MaxFailures > 0 {
		return p.MaxFailures
	}
	return envelope.DefaultMaxCodeFailures
}

// RequestAccessCode stores a new code (as codeHMAC) for the session's recipient and appends
// DOCUMENT_ACCESS_AUTH_2FA_REQUESTED, unless the recipient's code entry is locked
// (ACCESS_CODE_LOCKED), waits after a wrong code (TOO_MANY_REQUESTS with RetryAfter: see
// envelope.CheckCodeEntry, at now) or asked for too many codes lately (TOO_MANY_REQUESTS).
// Earlier codes of the session stop working.
func (s *Store) RequestAccessCode(ctx context.Context, c Ceremony, r envelope.Recipient, codeHMAC []byte, p AccessCodePolicy, a envelope.Actor, now time.Time) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockEnvelopeRow(ctx, r.EnvelopeID); err != nil {
			return err
		}
		g, err := tx.readCodeGuard(ctx, r.ID)
		if err != nil {
			return err
		}
		if err := envelope.CheckCodeEntry(g.CodeEntry, p.Ceiling(), now); err != nil {
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
		return tx.AppendAudit(ctx, r.EnvelopeID, envelope.AccessCodeRequestedAudit(r), a)
	})
}

// Results of VerifyAccessCode.
var (
	ErrCodeWrong   = errors.New("the code is wrong")
	ErrCodeExpired = errors.New("the code has expired or was used; ask for a new one")
	// ErrCodeLocked: this wrong code was the one that locked the recipient's code entry.
	ErrCodeLocked = errors.New("the code is wrong, and the code entry is now locked")
)

// VerifyAccessCode checks codeHMAC against the session's current code, at now. A recipient whose
// code entry is locked, or who must still wait after a wrong code, is refused first, the right
// code included (envelope.CheckCodeEntry), and nothing is counted. A match marks the session
// verified (DOCUMENT_ACCESS_AUTH_2FA_VALIDATED). A miss is recorded
// (DOCUMENT_ACCESS_AUTH_2FA_FAILED) and counted twice: against the code, spent after
// p.MaxAttempts misses, and against the recipient's current token, over every session and code;
// the miss that reaches p.Ceiling() locks the code entry (DOCUMENT_ACCESS_AUTH_2FA_LOCKED) and
// returns ErrCodeLocked. All of it happens under the envelope's row lock, so guesses sent at
// once are counted one after the other and never pass the ceiling. The failure is committed
// before ErrCodeWrong, ErrCodeExpired or ErrCodeLocked is returned.
func (s *Store) VerifyAccessCode(ctx context.Context, c Ceremony, r envelope.Recipient, codeHMAC []byte, p AccessCodePolicy, a envelope.Actor, now time.Time) error {
	var result error
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockEnvelopeRow(ctx, r.EnvelopeID); err != nil {
			return err
		}
		g, err := tx.readCodeGuard(ctx, r.ID)
		if err != nil {
			return err
		}
		if err := envelope.CheckCodeEntry(g.CodeEntry, p.Ceiling(), now); err != nil {
			return err
		}
		var id int64
		var stored []byte
		var attempts int
		err = tx.q.QueryRow(ctx, `SELECT id, code_hmac, attempts FROM access_codes
			WHERE session_hash = $1 AND used_at IS NULL AND expires_at > now() ORDER BY id DESC LIMIT 1 FOR UPDATE`, c.IDHash).
			Scan(&id, &stored, &attempts)
		if errors.Is(err, pgx.ErrNoRows) {
			result = ErrCodeExpired
			return tx.AppendAudit(ctx, r.EnvelopeID, envelope.AccessCodeFailedAudit(r), a)
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
			return tx.AppendAudit(ctx, r.EnvelopeID, envelope.AccessCodeValidatedAudit(r), a)
		}
		result = ErrCodeWrong
		if _, err := tx.q.Exec(ctx, `UPDATE access_codes SET attempts = attempts + 1,
			used_at = CASE WHEN attempts + 1 >= $2 THEN now() END WHERE id = $1`, id, p.MaxAttempts); err != nil {
			return fmt.Errorf("count a wrong access code: %w", err)
		}
		locked, err := tx.countCodeFailure(ctx, r.ID, g, p.Ceiling(), now)
		if err != nil {
			return err
		}
		if err := tx.AppendAudit(ctx, r.EnvelopeID, envelope.AccessCodeFailedAudit(r), a); err != nil {
			return err
		}
		if !locked {
			return nil
		}
		result = ErrCodeLocked
		return tx.AppendAudit(ctx, r.EnvelopeID, envelope.AccessCodeLockedAudit(r, g.Failures+1), a)
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

// TakeClaveUnica spends the login with stateHash begun by one of the sessions sessionHashes, in
// one statement, and returns it with that session as it stands (expired or not: the caller
// says which). It works once; an unknown, used or expired state, or one begun by another
// session, is ErrStateUnknown.
func (s *Store) TakeClaveUnica(ctx context.Context, stateHash []byte, sessionHashes [][]byte) (ClaveUnicaLogin, Ceremony, error) {
	var l ClaveUnicaLogin
	row := s.pool.QueryRow(ctx, `WITH taken AS (
			UPDATE claveunica_logins SET used_at = now()
			WHERE state_hash = $1 AND session_hash = ANY($2) AND used_at IS NULL AND expires_at > now()
			RETURNING session_hash, recipient_id, nonce)
		SELECT taken.recipient_id, taken.nonce, `+qualified("c", ceremonyColumns)+`
		FROM taken JOIN ceremony_sessions c ON c.id_hash = taken.session_hash`, stateHash, sessionHashes)
	c, err := scanCeremony(leadingColumns{row, []any{&l.RecipientID, &l.Nonce}})
	if errors.Is(err, pgx.ErrNoRows) {
		return l, c, ErrStateUnknown
	}
	if err != nil {
		return l, c, fmt.Errorf("take Clave Única login: %w", err)
	}
	return l, c, nil
}

// leadingColumns scans extra columns that come before those a scan function reads.
type leadingColumns struct {
	pgx.Row
	extra []any
}

func (r leadingColumns) Scan(dest ...any) error { return r.Row.Scan(append(r.extra, dest...)...) }

// qualified prefixes each column of a comma-separated list with alias.
func qualified(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = alias + "." + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

// lockActing locks the envelope of recipient id (its row, as every change of it does) and
// returns the recipient as it is under that lock, as long as the envelope is PENDING and the
// recipient has not acted: a proof is kept only for someone who may still act.
func (tx *Tx) lockActing(ctx context.Context, id int64) (*envelope.Recipient, error) {
	var envelopeID string
	if err := tx.q.QueryRow(ctx, `SELECT envelope_id FROM recipients WHERE id = $1`, id).Scan(&envelopeID); err != nil {
		return nil, notFound(err, "Recipient")
	}
	snap, err := tx.lockSnapshot(ctx, envelopeID)
	if err != nil {
		return nil, err
	}
	if err := envelope.RequirePending(snap.Status); err != nil {
		return nil, err
	}
	r := snap.Recipient(id)
	if r == nil {
		return nil, envelope.NotFound("Recipient")
	}
	if r.SigningStatus != envelope.SigningStatusNotSigned {
		return nil, envelope.Errorf(envelope.CodeRecipientAlreadySigned, "Recipient has already acted on this envelope")
	}
	return r, nil
}

// RecordClaveUnica keeps the RUN and name that Clave Única verified on the session that logged in,
// while the envelope is PENDING and the recipient has not acted. It changes nothing else: no
// other session, no field. The recipient's RUT_FIRMADO fields take the RUN of the session that
// completes, when it completes (CompleteRecipient). When this session already holds an advanced
// signature, its certificate's RUT and the RUN must agree.
func (s *Store) RecordClaveUnica(ctx context.Context, c Ceremony, run, name string, a envelope.Actor) error {
	var refused error
	err := s.InTx(ctx, func(tx *Tx) error {
		r, err := tx.lockActing(ctx, c.RecipientID)
		if err != nil {
			return err
		}
		cur, err := scanCeremony(tx.q.QueryRow(ctx, `SELECT `+ceremonyColumns+` FROM ceremony_sessions WHERE id_hash = $1 FOR UPDATE`, c.IDHash))
		if err != nil {
			return notFound(err, "Signing session")
		}
		if !r.MayBe(run) {
			refused, err = tx.recordIdentityMismatch(ctx, *r, run, envelope.ActionAuthClaveUnica, a)
			return err
		}
		if cur.FEA != nil && cur.FEA.RUT != run {
			return envelope.Errorf(envelope.CodeRUTMismatch, "The RUN verified by Clave Única (%s) is not the RUT of the signing certificate (%s)", run, cur.FEA.RUT)
		}
		if _, err := tx.q.Exec(ctx, `UPDATE ceremony_sessions SET claveunica_run = $2, claveunica_name = $3, claveunica_at = now() WHERE id_hash = $1`,
			c.IDHash, run, name); err != nil {
			return fmt.Errorf("record Clave Única on the session: %w", err)
		}
		var rutFirmado bool
		if cur.FEA != nil && cur.ClaveUnicaRUN != run {
			if err := tx.q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM fields WHERE recipient_id = $1 AND type = $2)`,
				r.ID, envelope.FieldRUTFirmado).Scan(&rutFirmado); err != nil {
				return fmt.Errorf("read the RUT_FIRMADO fields of recipient %d: %w", r.ID, err)
			}
		}
		if rutFirmado {
			// The digest an FAO_HASH signature covers holds the verified RUN in its RUT_FIRMADO
			// values: one given before this login covered another digest, and must be given again.
			if _, err := tx.q.Exec(ctx, `UPDATE ceremony_sessions SET fea_rut = NULL, fea_subject = NULL, fea_issuer = NULL,
				fea_serial = NULL, fea_digest = NULL, fea_cms = NULL, fea_at = NULL, fea_ocsp = NULL, fea_revocation = NULL
				WHERE id_hash = $1`, c.IDHash); err != nil {
				return fmt.Errorf("drop the session's earlier FAO_HASH signature: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return refused
}

// ErrNotTheExpectedPerson is the refusal of a Clave Única login or FAO_HASH certificate whose RUN
// is not the recipient's expected one (RUT_MISMATCH). It never says which RUN was expected.
var ErrNotTheExpectedPerson = envelope.Errorf(envelope.CodeRUTMismatch,
	"The RUN you proved is not the one this document is for, so it cannot be used here: nothing was filled or signed, and the sender was told")

// IdentityMismatch is a recipient whose expected RUN was refused to a proof, and how many
// different RUNs were refused so far: the owner is mailed once per RUN.
type IdentityMismatch struct {
	RecipientID int64
	RUNs        int
}

// ErrRefusedAgain joins ErrNotTheExpectedPerson when the RUN was refused to this recipient before:
// the owner was told already, and the audit log has its entry.
var ErrRefusedAgain = errors.New("this RUN was refused before")

// recordIdentityMismatch keeps a proof refused because its RUN is not recipient r's expected one:
// the RUN that tried, by which method, how often, committed with the refusal. The first refusal
// of a RUN gets an audit entry and returns ErrNotTheExpectedPerson; later ones are only counted
// (a loop of refusals costs a counter, not an audit entry and an owner mail each) and return it
// joined with ErrRefusedAgain.
func (tx *Tx) recordIdentityMismatch(ctx context.Context, r envelope.Recipient, run string, via envelope.ActionAuth, a envelope.Actor) (error, error) {
	var attempts int
	if err := tx.q.QueryRow(ctx, `INSERT INTO identity_mismatches (recipient_id, run, via) VALUES ($1, $2, $3)
		ON CONFLICT (recipient_id, run) DO UPDATE SET attempts = identity_mismatches.attempts + 1, last_at = now()
		RETURNING attempts`, r.ID, run, string(via)).Scan(&attempts); err != nil {
		return nil, fmt.Errorf("record an identity mismatch of recipient %d: %w", r.ID, err)
	}
	if attempts > 1 {
		return errors.Join(ErrNotTheExpectedPerson, ErrRefusedAgain), nil
	}
	return ErrNotTheExpectedPerson, tx.AppendAudit(ctx, r.EnvelopeID, envelope.IdentityRefusedAudit(r, via, run), a)
}

// identityMismatches lists the recipients of envelopeID with refused identities.
func identityMismatches(ctx context.Context, q querier, envelopeID string) ([]IdentityMismatch, error) {
	rows, err := q.Query(ctx, `SELECT m.recipient_id, count(*) FROM identity_mismatches m JOIN recipients r ON r.id = m.recipient_id
		WHERE r.envelope_id = $1 GROUP BY m.recipient_id ORDER BY m.recipient_id`, envelopeID)
	if err != nil {
		return nil, fmt.Errorf("read identity mismatches of %s: %w", envelopeID, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (IdentityMismatch, error) {
		var m IdentityMismatch
		err := row.Scan(&m.RecipientID, &m.RUNs)
		return m, err
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
	// FEARevocation is the certificate's revocation status as the certificate of completion
	// tells it; FEAOCSP the OCSP response (DER) it rests on, when one was read.
	FEARevocation string `json:"feaRevocation,omitempty"`
	FEAOCSP       []byte `json:"-"`
	// FEADigestInput is the exact text whose SHA-256 is FEADigest, as the completion saw it.
	FEADigestInput []byte `json:"-"`
	// The signer account the completing browser was signed in to, and the account proofs it
	// gave (each at most envelope.AccountProofMaxAge before the completion).
	AccountID           int64      `json:"accountId,omitempty"`
	AccountEmail        string     `json:"accountEmail,omitempty"`
	PasswordAt          *time.Time `json:"passwordAt,omitempty"`
	TOTPAt              *time.Time `json:"totpAt,omitempty"`
	PasskeyAt           *time.Time `json:"passkeyAt,omitempty"`
	PasskeyCredentialID string     `json:"passkeyCredentialId,omitempty"`
}

// proven is what the recipient proved, as DOCUMENT_RECIPIENT_COMPLETED records it.
func (id Identity) proven() envelope.ProvenIdentity {
	return envelope.ProvenIdentity{ClaveUnicaRUN: id.ClaveUnicaRUN, ClaveUnicaName: id.ClaveUnicaName, ClaveUnicaAt: id.ClaveUnicaAt,
		FEARUT: id.FEARUT, FEASubject: id.FEASubject, FEAIssuer: id.FEAIssuer, FEASerial: id.FEASerial, FEADigest: id.FEADigest,
		FEARevocation: id.FEARevocation, FEAAt: id.FEAAt, AccountID: id.AccountID, AccountEmail: id.AccountEmail,
		PasswordAt: id.PasswordAt, TOTPAt: id.TOTPAt, PasskeyAt: id.PasskeyAt, PasskeyCredentialID: id.PasskeyCredentialID}
}

// RecipientIdentity returns what recipientID proved (the zero Identity when nothing).
func (s *Store) RecipientIdentity(ctx context.Context, recipientID int64) (Identity, error) {
	return readIdentity(ctx, s.pool, recipientID)
}

func readIdentity(ctx context.Context, q querier, recipientID int64) (Identity, error) {
	var id Identity
	var run, name, rut, subject, issuer, serial, digest, revocation, accountEmail, credential *string
	var accountID *int64
	err := q.QueryRow(ctx, `SELECT claveunica_run, claveunica_name, claveunica_at, fea_rut, fea_subject, fea_issuer, fea_serial, fea_digest, fea_cms, fea_at,
			fea_revocation, fea_ocsp, fea_digest_input, account_id, account_email, password_at, totp_at, passkey_at, passkey_credential_id
		FROM recipient_identities WHERE recipient_id = $1`, recipientID).
		Scan(&run, &name, &id.ClaveUnicaAt, &rut, &subject, &issuer, &serial, &digest, &id.FEACMS, &id.FEAAt,
			&revocation, &id.FEAOCSP, &id.FEADigestInput, &accountID, &accountEmail, &id.PasswordAt, &id.TOTPAt, &id.PasskeyAt, &credential)
	if errors.Is(err, pgx.ErrNoRows) {
		return id, nil
	}
	if err != nil {
		return id, fmt.Errorf("read identity of recipient %d: %w", recipientID, err)
	}
	id.ClaveUnicaRUN, id.ClaveUnicaName = deref(run), deref(name)
	id.FEARUT, id.FEASubject, id.FEAIssuer, id.FEASerial, id.FEADigest = deref(rut), deref(subject), deref(issuer), deref(serial), deref(digest)
	id.FEARevocation = deref(revocation)
	id.AccountEmail, id.PasskeyCredentialID = deref(accountEmail), deref(credential)
	if accountID != nil {
		id.AccountID = *accountID
	}
	return id, nil
}

// FEASignature is a verified FAO_HASH signature of a recipient.
type FEASignature struct {
	RUT, Subject, Issuer, Serial string
	Digest                       string // the hex SHA-256 the signature covers
	CMS                          []byte
	OCSP                         []byte // the OCSP response (DER) about the certificate, when one was read
	Revocation                   string // the revocation status as told: "good (OCSP, …)" or "not checked: …"
}

// RecordFEA keeps a verified FAO_HASH signature on the session that gave it, while the envelope
// is PENDING and the recipient has not acted. When the session proved a RUN with Clave Única, the
// certificate's RUT must be the same.
func (s *Store) RecordFEA(ctx context.Context, c Ceremony, r envelope.Recipient, sig FEASignature, a envelope.Actor) error {
	var refused error
	err := s.InTx(ctx, func(tx *Tx) error {
		if c.RecipientID != r.ID {
			return envelope.NotFound("Recipient")
		}
		cur, err := tx.lockActing(ctx, r.ID)
		if err != nil {
			return err
		}
		session, err := scanCeremony(tx.q.QueryRow(ctx, `SELECT `+ceremonyColumns+` FROM ceremony_sessions WHERE id_hash = $1 FOR UPDATE`, c.IDHash))
		if err != nil {
			return notFound(err, "Signing session")
		}
		if !cur.MayBe(sig.RUT) {
			refused, err = tx.recordIdentityMismatch(ctx, *cur, sig.RUT, envelope.ActionAuthFAOHash, a)
			return err
		}
		if session.ClaveUnicaRUN != "" && session.ClaveUnicaRUN != sig.RUT {
			return envelope.Errorf(envelope.CodeRUTMismatch, "The certificate's RUT (%s) is not the RUN verified by Clave Única (%s)", sig.RUT, session.ClaveUnicaRUN)
		}
		if _, err := tx.q.Exec(ctx, `UPDATE ceremony_sessions SET fea_rut = $2, fea_subject = $3, fea_issuer = $4, fea_serial = $5,
			fea_digest = $6, fea_cms = $7, fea_at = now(), fea_ocsp = $8, fea_revocation = $9 WHERE id_hash = $1`,
			c.IDHash, sig.RUT, sig.Subject, sig.Issuer, sig.Serial, sig.Digest, sig.CMS, sig.OCSP, sig.Revocation); err != nil {
			return fmt.Errorf("record FAO_HASH signature of recipient %d: %w", r.ID, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return refused
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
	r, err := scanRecipient(s.pool.QueryRow(ctx, `SELECT `+recipientColumns+` FROM recipients r WHERE r.id = $1`, id), s.ring)
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
	return recipientSignatures(ctx, s.pool, recipientID)
}

func recipientSignatures(ctx context.Context, q querier, recipientID int64) (map[int64]FieldSignature, error) {
	rows, err := q.Query(ctx, `SELECT field_id, typed, image_png FROM signatures WHERE recipient_id = $1`, recipientID)
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
func (tx *Tx) completionAuth(ctx context.Context, snap Snapshot, r envelope.Recipient) (envelope.Completion, error) {
	action := []string{}
	for _, a := range r.AuthOptions.ActionAuth {
		action = append(action, string(a))
	}
	if len(action) == 0 {
		if err := tx.q.QueryRow(ctx, `SELECT global_action_auth FROM envelopes WHERE id = $1`, snap.EnvelopeID).Scan(&action); err != nil {
			return envelope.Completion{}, fmt.Errorf("read action auth of %s: %w", snap.EnvelopeID, err)
		}
	}
	if slices.Contains(action, string(envelope.ActionAuthExplicitNone)) {
		action = []string{}
	}
	id, err := readIdentity(ctx, tx.q, r.ID)
	if err != nil {
		return envelope.Completion{}, err
	}
	return envelope.Completion{ActionAuth: action, Identity: id.proven()}, nil
}

// checkProofs decides, under the envelope's lock, whether session in.SessionID may complete
// recipient r (envelope.CheckCompletion), then records what it proved: its RUN in the
// recipient's RUT_FIRMADO fields (DOCUMENT_FIELD_INSERTED each, marked in fields) and its proofs
// as the recipient's identity, replacing whatever another session proved.
func (tx *Tx) checkProofs(ctx context.Context, snap Snapshot, r envelope.Recipient, fields []envelope.Field, in CompleteInput) error {
	var access, action []string
	if err := tx.q.QueryRow(ctx, `SELECT global_access_auth, global_action_auth FROM envelopes WHERE id = $1`, snap.EnvelopeID).
		Scan(&access, &action); err != nil {
		return fmt.Errorf("read auth options of %s: %w", snap.EnvelopeID, err)
	}
	global := envelope.AuthOptions{GlobalAccessAuth: toEnums[envelope.AccessAuth](access), GlobalActionAuth: toEnums[envelope.ActionAuth](action)}
	proofs := envelope.RequiredProofs(r, global, fields)
	var session *Ceremony
	if in.SessionID != "" {
		c, err := scanCeremony(tx.q.QueryRow(ctx, `SELECT `+ceremonyColumns+` FROM ceremony_sessions
			WHERE id = $1 AND expires_at > now() FOR UPDATE`, in.SessionID))
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("read signing session: %w", err)
		}
		if err == nil {
			session = &c
		}
	}
	// How old a proof is, by the database's clock: the one that stamped it.
	var now time.Time
	if err := tx.q.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
		return fmt.Errorf("read the time: %w", err)
	}
	var held *envelope.SessionProofs
	var digest string
	var digestInput []byte // the text whose SHA-256 is digest
	if session != nil {
		p := session.Proofs()
		held = &p
		// The account proofs count only while the browser is still signed in to the account
		// that gave them.
		account, err := signedIn(ctx, tx.q, session.AccountSessionID, now)
		if err != nil {
			return err
		}
		if account != nil && account.ID == session.AccountID {
			held.Account = account
		} else {
			held.PasswordAt, held.TOTPAt, held.PasskeyAt = nil, nil, nil
		}
		if proofs.FAOHash() || session.FEA != nil {
			in, err := faoDigestInput(ctx, tx.q, snap.EnvelopeID, r.ID, session.ClaveUnicaRUN)
			if err != nil {
				return err
			}
			digestInput, digest = []byte(fea.Canonical(in)), fea.Digest(in)
		}
	}
	maxAge := in.ProofMaxAge
	if maxAge <= 0 {
		maxAge = envelope.DefaultProofMaxAge
	}
	if err := envelope.CheckCompletion(proofs, r.Role, r.ID, r.Email, held, digest, now, maxAge); err != nil {
		return err
	}
	if session == nil || session.RecipientID != r.ID {
		return nil
	}
	// A proof given here (an identity, or an account's password, code or passkey) signs only what
	// this browser filled or cleared: a value typed (or removed) in another browser, by whoever
	// else holds the link perhaps, would be sealed under this one's name.
	if r.Role != envelope.RoleCC && (len(proofs.Action) > 0 || proofs.RUTFirmado) {
		for _, f := range fields {
			if f.Type != envelope.FieldRUTFirmado && f.FilledBy != "" && f.FilledBy != session.ID && f.FilledBy != FilledBySender {
				return envelope.Errorf(envelope.CodeUnauthorized, "Some of your fields were filled in another browser or session; fill them again here before signing")
			}
		}
	}
	if session.ClaveUnicaRUN != "" {
		for i, f := range fields {
			if f.Type != envelope.FieldRUTFirmado {
				continue
			}
			if _, err := tx.q.Exec(ctx, `UPDATE fields SET custom_text = $2, inserted = true, updated_at = now() WHERE id = $1`, f.ID, session.ClaveUnicaRUN); err != nil {
				return fmt.Errorf("fill RUT_FIRMADO field %d: %w", f.ID, err)
			}
			fields[i].CustomText, fields[i].Inserted = session.ClaveUnicaRUN, true
			if err := tx.Record(ctx, envelope.FieldInsertedEvent(r, fields[i], session.ClaveUnicaRUN, in.Now), in.Actor); err != nil {
				return err
			}
		}
	}
	var run, name, rut, subject, issuer, serial, digestOf, revocation *string
	var cms, ocsp, input []byte
	var feaAt *time.Time
	if session.ClaveUnicaRUN != "" {
		run, name = &session.ClaveUnicaRUN, &session.ClaveUnicaName
	}
	if session.FEA != nil {
		rut, subject, issuer, serial, digestOf, cms, feaAt = &session.FEA.RUT, &session.FEA.Subject, &session.FEA.Issuer, &session.FEA.Serial,
			&session.FEA.Digest, session.FEA.CMS, session.FEAAt
		ocsp, revocation = session.FEA.OCSP, &session.FEA.Revocation
		// The digest input is kept only when it is what the signature covers: the bytes a third
		// party hashes to find the signed digest.
		if session.FEA.Digest == digest {
			input = digestInput
		}
	}
	if _, err := tx.q.Exec(ctx, `INSERT INTO recipient_identities (recipient_id, claveunica_run, claveunica_name, claveunica_at,
			fea_rut, fea_subject, fea_issuer, fea_serial, fea_digest, fea_cms, fea_at, fea_ocsp, fea_revocation, fea_digest_input)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (recipient_id) DO UPDATE
		SET claveunica_run = EXCLUDED.claveunica_run, claveunica_name = EXCLUDED.claveunica_name, claveunica_at = EXCLUDED.claveunica_at,
		    fea_rut = EXCLUDED.fea_rut, fea_subject = EXCLUDED.fea_subject, fea_issuer = EXCLUDED.fea_issuer, fea_serial = EXCLUDED.fea_serial,
		    fea_digest = EXCLUDED.fea_digest, fea_cms = EXCLUDED.fea_cms, fea_at = EXCLUDED.fea_at,
		    fea_ocsp = EXCLUDED.fea_ocsp, fea_revocation = EXCLUDED.fea_revocation, fea_digest_input = EXCLUDED.fea_digest_input`,
		r.ID, run, name, session.ClaveUnicaAt, rut, subject, issuer, serial, digestOf, cms, feaAt, ocsp, revocation, input); err != nil {
		return fmt.Errorf("record the identity of recipient %d: %w", r.ID, err)
	}
	return tx.recordAccountEvidence(ctx, r, held, now)
}

// recordAccountEvidence keeps with recipient r's identity the account the completing browser
// was signed in to, when it is the recipient's (envelope.CheckAccount: another person's account
// proves nothing about this recipient), and the account proofs it gave that were still fresh
// (envelope.AccountProofMaxAge): what the audit entry and the certificate of completion show.
func (tx *Tx) recordAccountEvidence(ctx context.Context, r envelope.Recipient, held *envelope.SessionProofs, now time.Time) error {
	recipientID := r.ID
	var accountID *int64
	var email, credential *string
	var password, totp, passkey *time.Time
	if held != nil && held.Account != nil && envelope.CheckAccount(held.Account, r.Email) == nil {
		accountID, email = &held.Account.ID, &held.Account.Email
		fresh := func(at *time.Time) *time.Time {
			if envelope.Fresh(at, now, envelope.AccountProofMaxAge) {
				return at
			}
			return nil
		}
		password, totp, passkey = fresh(held.PasswordAt), fresh(held.TOTPAt), fresh(held.PasskeyAt)
		if passkey != nil && held.PasskeyCredentialID != "" {
			credential = &held.PasskeyCredentialID
		}
	}
	if _, err := tx.q.Exec(ctx, `UPDATE recipient_identities SET account_id = $2, account_email = $3, password_at = $4, totp_at = $5,
			passkey_at = $6, passkey_credential_id = $7 WHERE recipient_id = $1`,
		recipientID, accountID, email, password, totp, passkey, credential); err != nil {
		return fmt.Errorf("record the account proofs of recipient %d: %w", recipientID, err)
	}
	return nil
}
