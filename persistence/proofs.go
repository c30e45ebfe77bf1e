// Proofs: the checks a recipient's completion must pass, and the evidence it leaves.

package persistence

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/auth/fea"
	"github.com/sobre-sign/sobre/envelope"
)

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
	// Named before the proofs are checked: a value typed elsewhere also changes the FAO_HASH
	// digest, and the signer is told which field to fill again rather than that it changed.
	if session != nil && session.RecipientID == r.ID {
		if err := tx.filledElsewhere(ctx, snap.EnvelopeID, proofs, r, session.ID, fields); err != nil {
			return err
		}
	}
	if err := envelope.CheckCompletion(proofs, r.Role, r.ID, r.Email, held, digest, now, maxAge); err != nil {
		return err
	}
	if session == nil || session.RecipientID != r.ID {
		return nil
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

// filledElsewhere refuses the completion by session of recipient r while a field of fields (r's
// own), or for an ASSISTANT a value it put in another's field, holds what another session gave
// (envelope.FilledElsewhere); the refusal names each field.
func (tx *Tx) filledElsewhere(ctx context.Context, envelopeID string, proofs envelope.Proofs, r envelope.Recipient, session string, fields []envelope.Field) error {
	if r.Role == envelope.RoleAssistant {
		prefills, err := fieldsPrefilledBy(ctx, tx.q, envelopeID, r.ID)
		if err != nil {
			return err
		}
		fields = append(slices.Clip(fields), prefills...)
	}
	ids := envelope.FilledElsewhere(proofs, r, session, fields)
	if len(ids) == 0 {
		return nil
	}
	e := envelope.Errorf(envelope.CodeUnauthorized, "Some of your fields were filled in another browser or session; fill them again here before signing")
	for _, id := range ids {
		e.Issues = append(e.Issues, envelope.Issue{Path: "fieldId", Message: fmt.Sprintf("field %d was filled in another browser or session", id)})
	}
	return e
}
