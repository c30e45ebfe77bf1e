// Identities: the person a recipient proved to be, and the RUNs refused.

package persistence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

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

// queueIdentityMismatches adds to b the read of envelope envelopeID's recipients with refused
// identities (how many RUNs each), into out.
func queueIdentityMismatches(b *pgx.Batch, envelopeID string, out *[]IdentityMismatch) {
	queueRows(b, out, "identity mismatches of "+envelopeID, pgx.RowToStructByPos[IdentityMismatch],
		`SELECT m.recipient_id, count(*) FROM identity_mismatches m JOIN recipients r ON r.id = m.recipient_id
		WHERE r.envelope_id = $1 GROUP BY m.recipient_id ORDER BY m.recipient_id`, envelopeID)
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
