package persistence

import (
	"context"
	"fmt"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// AccountSessionIdleTTL ends a signer account's session that has not been used for this long:
// such a session no longer proves anything (account.SessionIdleTTL is this); the purge keeps one
// a day longer.
const AccountSessionIdleTTL = 12 * time.Hour

// BindAccount records on ceremony c that the browser acts on its link signed in to account
// accountID through account session accountSessionID. A ceremony bound to another account
// forgets the proofs that account gave here: a password typed by one person never completes
// for another who signs in afterwards in the same browser.
func (s *Store) BindAccount(ctx context.Context, c Ceremony, accountID int64, accountSessionID string) error {
	return bindAccount(ctx, s.pool, c.IDHash, accountID, accountSessionID)
}

func bindAccount(ctx context.Context, q querier, idHash []byte, accountID int64, accountSessionID string) error {
	_, err := q.Exec(ctx, `UPDATE ceremony_sessions SET
			password_at = CASE WHEN account_id IS DISTINCT FROM $2 THEN NULL ELSE password_at END,
			totp_at = CASE WHEN account_id IS DISTINCT FROM $2 THEN NULL ELSE totp_at END,
			passkey_at = CASE WHEN account_id IS DISTINCT FROM $2 THEN NULL ELSE passkey_at END,
			passkey_credential_id = CASE WHEN account_id IS DISTINCT FROM $2 THEN NULL ELSE passkey_credential_id END,
			account_id = $2, account_session_id = $3
		WHERE id_hash = $1 AND (account_id IS DISTINCT FROM $2 OR account_session_id IS DISTINCT FROM $3)`,
		idHash, accountID, accountSessionID)
	if err != nil {
		return fmt.Errorf("bind the signing session to account %d: %w", accountID, err)
	}
	return nil
}

// RecordAccountProof keeps on ceremony c that account accountID, signed in through
// accountSessionID, proved method (PASSWORD, TWO_FACTOR_AUTH or PASSKEY, with the passkey's
// credential id) just now, while the envelope is PENDING and the recipient has not acted.
func (s *Store) RecordAccountProof(ctx context.Context, c Ceremony, method envelope.ActionAuth, accountID int64, accountSessionID, credentialID string) error {
	column := map[envelope.ActionAuth]string{envelope.ActionAuthPassword: "password_at", envelope.ActionAuthTwoFactorAuth: "totp_at",
		envelope.ActionAuthPasskey: "passkey_at"}[method]
	if column == "" {
		return fmt.Errorf("record an account proof: %s is not one", method)
	}
	return s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.lockActing(ctx, c.RecipientID); err != nil {
			return err
		}
		if err := bindAccount(ctx, tx.q, c.IDHash, accountID, accountSessionID); err != nil {
			return err
		}
		var credential *string
		if method == envelope.ActionAuthPasskey {
			credential = &credentialID
		}
		if _, err := tx.q.Exec(ctx, `UPDATE ceremony_sessions SET `+column+` = now(),
				passkey_credential_id = CASE WHEN $2::text IS NULL THEN passkey_credential_id ELSE $2 END
			WHERE id_hash = $1`, c.IDHash, credential); err != nil {
			return fmt.Errorf("record %s on the signing session: %w", method, err)
		}
		return nil
	})
}

// RecordAccountProofFailure writes to the envelope's audit log that a password, authenticator
// code or passkey assertion given on recipient r's link was wrong
// (DOCUMENT_RECIPIENT_AUTH_FAILED), and whether it locked the account.
func (s *Store) RecordAccountProofFailure(ctx context.Context, r envelope.Recipient, method envelope.ActionAuth, locked bool, a envelope.Actor) error {
	return s.InTx(ctx, func(tx *Tx) error {
		return tx.AppendAudit(ctx, r.EnvelopeID, envelope.RecipientAuthFailedAudit(r, method, locked), a)
	})
}

// signedIn is the account that account session id (the public id) is signed in to now, as
// the completion sees it: nil when the session ended, idled out or is unknown.
func signedIn(ctx context.Context, q querier, id string, now time.Time) (*envelope.SignedIn, error) {
	if id == "" {
		return nil, nil
	}
	_, a, err := liveAccountSession(ctx, q, `s.id = $1`, id, now)
	if envelope.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read account session: %w", err)
	}
	return &envelope.SignedIn{ID: a.ID, Email: a.Email, EmailVerified: a.EmailVerifiedAt != nil}, nil
}
