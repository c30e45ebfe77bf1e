package persistence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// A Clave Única login in a popup window (the embedded signing page's): begun by the framed
// page's session, taken once by the popup, spent at the callback of the popup that took it.

// BeginClaveUnicaPopup records an authorization request made for session c from its embedded
// page, to be continued in a popup window: state (hashed), nonce and expiry, as BeginClaveUnica.
func (s *Store) BeginClaveUnicaPopup(ctx context.Context, c Ceremony, stateHash []byte, nonce string, expiresAt time.Time) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO claveunica_logins (state_hash, session_hash, recipient_id, nonce, expires_at, popup)
		VALUES ($1, $2, $3, $4, $5, true)`, stateHash, c.IDHash, c.RecipientID, nonce, expiresAt); err != nil {
		return fmt.Errorf("record Clave Única popup login: %w", err)
	}
	return nil
}

// BindClaveUnicaPopup marks the popup login with stateHash as taken by a popup, once, and
// returns its nonce. An unknown, used, expired or already taken one is ErrStateUnknown.
func (s *Store) BindClaveUnicaPopup(ctx context.Context, stateHash []byte) (string, error) {
	var nonce string
	err := s.pool.QueryRow(ctx, `UPDATE claveunica_logins SET popup_bound_at = now()
		WHERE state_hash = $1 AND popup AND popup_bound_at IS NULL AND used_at IS NULL AND expires_at > now()
		RETURNING nonce`, stateHash).Scan(&nonce)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrStateUnknown
	}
	if err != nil {
		return "", fmt.Errorf("bind Clave Única popup login: %w", err)
	}
	return nonce, nil
}

// TakeClaveUnicaPopup spends the popup login with stateHash that a popup took
// (BindClaveUnicaPopup), as TakeClaveUnica does a login of the session's own browser.
func (s *Store) TakeClaveUnicaPopup(ctx context.Context, stateHash []byte) (ClaveUnicaLogin, Ceremony, error) {
	return s.takeClaveUnica(ctx, `popup AND popup_bound_at IS NOT NULL`, stateHash)
}
