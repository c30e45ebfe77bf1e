package persistence

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// Signer accounts (migration 00016): the accounts of people asked to sign, their mailed links,
// browser sessions, authenticator secrets, recovery codes, passkeys, WebAuthn challenges and
// events. Secrets never reach the database in the clear: a session, a link and a recovery code
// are kept by their SHA-256, a password by its argon2id hash, an authenticator secret sealed with
// the Store's keyring and bound to its account. The caller passes the time (now) to every
// statement that compares with it, so that one clock rules the account's locks and expiries.

// Kinds of account events (account_events.type).
const (
	AccountEventSignUp            = "SIGN_UP"
	AccountEventEmailVerified     = "EMAIL_VERIFIED"
	AccountEventSignIn            = "SIGN_IN"
	AccountEventSignInFailed      = "SIGN_IN_FAILED"
	AccountEventSignOut           = "SIGN_OUT"
	AccountEventLocked            = "ACCOUNT_LOCKED"
	AccountEventResetRequested    = "PASSWORD_RESET_REQUESTED"
	AccountEventPasswordReset     = "PASSWORD_RESET"
	AccountEventPasswordConfirmed = "PASSWORD_CONFIRMED"
	AccountEventPasswordFailed    = "PASSWORD_FAILED"
	AccountEventTOTPEnabled       = "TOTP_ENABLED"
	AccountEventTOTPDisabled      = "TOTP_DISABLED"
	AccountEventTOTPFailed        = "TOTP_FAILED"
	AccountEventRecoveryCodeUsed  = "RECOVERY_CODE_USED"
	AccountEventPasskeyAdded      = "PASSKEY_ADDED"
	AccountEventPasskeyRemoved    = "PASSKEY_REMOVED"
	AccountEventPasskeyFailed     = "PASSKEY_FAILED"
	AccountEventFactorConfirmed   = "FACTOR_CONFIRMED"
)

// Purposes of a mailed account link (account_links.purpose).
const (
	AccountLinkVerify = "verify"
	AccountLinkReset  = "reset"
)

// Purposes of a WebAuthn challenge (webauthn_challenges.purpose). A challenge is taken only for
// the purpose it was made for: an assertion asked for a signing page never confirms a factor on
// the account page, nor the other way round.
const (
	WebAuthnRegister = "register"
	// WebAuthnAssert is an assertion that proves PASSKEY action auth on a signing page.
	WebAuthnAssert = "assert"
	// WebAuthnFactor is an assertion that confirms a second factor on the account page.
	WebAuthnFactor = "factor"
)

// AccountFailures names one of an account's two kinds of proof, each with its count of failures
// in a row and its lock. A count is cleared only by a success of its own kind, so that a right
// password never gives back the attempts at a second factor; a count reaching the limit locks
// only its own kind of proof, so that wrong passwords typed by whoever knows the address never
// refuse the holder's second factor.
type AccountFailures int

const (
	// PasswordFailures counts wrong passwords (signer_accounts.failed_attempts).
	PasswordFailures AccountFailures = iota
	// FactorFailures counts wrong authenticator and recovery codes and failed passkey assertions
	// (signer_accounts.failed_factor_attempts).
	FactorFailures
)

// column is the column that keeps the count k.
func (k AccountFailures) column() string {
	if k == FactorFailures {
		return "failed_factor_attempts"
	}
	return "failed_attempts"
}

// String names the kind of proof k: "password" or "factor".
func (k AccountFailures) String() string {
	if k == FactorFailures {
		return "factor"
	}
	return "password"
}

// lockColumn is the column that keeps until when proofs of kind k are refused.
func (k AccountFailures) lockColumn() string {
	if k == FactorFailures {
		return "factor_locked_until"
	}
	return "password_locked_until"
}

// ErrTOTPEnabled: an account whose authenticator app is on cannot start enrolling another.
var ErrTOTPEnabled = errors.New("persistence: the account's authenticator app is enabled already")

// SignerAccount is a signer account as stored.
type SignerAccount struct {
	ID              int64
	Email           string
	EmailVerifiedAt *time.Time
	PasswordHash    string
	TOTPEnabledAt   *time.Time
	FailedAttempts  int // wrong passwords in a row
	// FailedFactorAttempts counts wrong codes and failed passkey assertions in a row.
	FailedFactorAttempts int
	// PasswordLockedUntil is until when the account takes no password (wrong passwords); a
	// password reset lifts it.
	PasswordLockedUntil *time.Time
	// FactorLockedUntil is until when the account takes no authenticator or recovery code and no
	// passkey assertion (wrong ones); only time lifts it.
	FactorLockedUntil *time.Time
	Language          string
	CreatedAt         time.Time
}

// LockedAt reports whether the account takes no proof of kind at now, and until when.
func (a SignerAccount) LockedAt(kind AccountFailures, now time.Time) (time.Time, bool) {
	until := a.PasswordLockedUntil
	if kind == FactorFailures {
		until = a.FactorLockedUntil
	}
	if until != nil && until.After(now) {
		return *until, true
	}
	return time.Time{}, false
}

// AccountEvent is one thing that happened to an account, with who made it happen.
type AccountEvent struct {
	Type      string
	IP        string
	UserAgent string
	Data      map[string]any
}

// AccountEventRow is a stored account event.
type AccountEventRow struct {
	AccountEvent
	At time.Time
}

// AccountSession is a browser signed in to an account.
type AccountSession struct {
	// ID names the session without being its secret (hex SHA-256 of the secret's SHA-256).
	ID         string
	AccountID  int64
	CreatedAt  time.Time
	LastSeenAt time.Time
	IP         string
	UserAgent  string
	Method     string
	// FactorConfirmedAt is when the session last proved a second factor of the account on the
	// account page; nil when it never did.
	FactorConfirmedAt *time.Time
}

// AccountPasskey is a WebAuthn credential of an account: Credential is the WebAuthn library's
// credential record as JSON.
type AccountPasskey struct {
	ID           int64
	AccountID    int64
	CredentialID []byte
	Credential   []byte
	Name         string
	CreatedAt    time.Time
	LastUsedAt   *time.Time
}

// TOTPSecret is an account's authenticator secret, opened, and where its enrolment stands.
type TOTPSecret struct {
	Secret   string // base32, as the app takes it
	Enabled  bool
	LastStep int64 // the last 30-second step whose code was accepted
	sealed   []byte
}

// RecipientEnvelope is an envelope one of whose recipients has an account's email.
type RecipientEnvelope struct {
	EnvelopeID string
	Title      string
	OwnerName  string
	OwnerEmail string
	Status     envelope.Status
	Role       envelope.Role
	Token      string // the recipient's signing token, opened; "" for a Store without a keyring
	SentAt     *time.Time
}

const signerAccountColumns = `a.id, a.email, a.email_verified_at, a.password_hash, a.totp_enabled_at, a.failed_attempts,
	a.failed_factor_attempts, a.password_locked_until, a.factor_locked_until, a.language, a.created_at`

func signerAccountDest(a *SignerAccount) []any {
	return []any{&a.ID, &a.Email, &a.EmailVerifiedAt, &a.PasswordHash, &a.TOTPEnabledAt, &a.FailedAttempts,
		&a.FailedFactorAttempts, &a.PasswordLockedUntil, &a.FactorLockedUntil, &a.Language, &a.CreatedAt}
}

func scanSignerAccount(row pgx.Row, extra ...any) (SignerAccount, error) {
	var a SignerAccount
	return a, row.Scan(append(signerAccountDest(&a), extra...)...)
}

const accountSessionColumns = `s.id, s.account_id, s.created_at, s.last_seen_at, coalesce(s.ip_address, ''), coalesce(s.user_agent, ''), s.method,
	s.factor_confirmed_at`

func accountSessionDest(s *AccountSession) []any {
	return []any{&s.ID, &s.AccountID, &s.CreatedAt, &s.LastSeenAt, &s.IP, &s.UserAgent, &s.Method, &s.FactorConfirmedAt}
}

// totpContext binds a sealed authenticator secret to its account: a sealed value copied to
// another account does not open there.
func totpContext(accountID int64) []byte {
	return []byte("sobre/account-totp/" + strconv.FormatInt(accountID, 10))
}

// insertAccountEvent records ev of account id at at.
func insertAccountEvent(ctx context.Context, q querier, accountID int64, ev AccountEvent, at time.Time) error {
	data := []byte("{}")
	if len(ev.Data) > 0 {
		var err error
		if data, err = json.Marshal(ev.Data); err != nil {
			return fmt.Errorf("encode %s event data: %w", ev.Type, err)
		}
	}
	_, err := q.Exec(ctx, `INSERT INTO account_events (account_id, type, at, ip_address, user_agent, data)
		VALUES ($1, $2, $3, nullif($4, ''), nullif($5, ''), $6)`, accountID, ev.Type, at, ev.IP, ev.UserAgent, data)
	if err != nil {
		return fmt.Errorf("record %s event of account %d: %w", ev.Type, accountID, err)
	}
	return nil
}

// UpsertSignerAccount creates the account of email, unverified, with passwordHash and language.
// When the address has an account already (compared without regard to case) an unverified one
// takes the new address spelling, hash and language, and a verified one is left as it is. It
// returns the account as it now stands, and whether it was created.
func (s *Store) UpsertSignerAccount(ctx context.Context, email, passwordHash, language string, now time.Time) (SignerAccount, bool, error) {
	var created bool
	a, err := scanSignerAccount(s.pool.QueryRow(ctx, `
		INSERT INTO signer_accounts AS a (email, password_hash, language, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
		ON CONFLICT (lower(email)) DO UPDATE SET
			email         = CASE WHEN a.email_verified_at IS NULL THEN EXCLUDED.email ELSE a.email END,
			password_hash = CASE WHEN a.email_verified_at IS NULL THEN EXCLUDED.password_hash ELSE a.password_hash END,
			language      = CASE WHEN a.email_verified_at IS NULL THEN EXCLUDED.language ELSE a.language END,
			updated_at    = CASE WHEN a.email_verified_at IS NULL THEN EXCLUDED.updated_at ELSE a.updated_at END
		RETURNING `+signerAccountColumns+`, (xmax = 0)`, email, passwordHash, language, now), &created)
	if err != nil {
		return a, false, fmt.Errorf("store the signer account of %s: %w", email, err)
	}
	return a, created, nil
}

// SignerAccountByEmail returns the account of email (compared without regard to case).
func (s *Store) SignerAccountByEmail(ctx context.Context, email string) (SignerAccount, error) {
	a, err := scanSignerAccount(s.pool.QueryRow(ctx, `SELECT `+signerAccountColumns+` FROM signer_accounts a WHERE lower(a.email) = lower($1)`, email))
	if err != nil {
		return a, notFound(err, "account")
	}
	return a, nil
}

// SignerAccountByID returns account id.
func (s *Store) SignerAccountByID(ctx context.Context, id int64) (SignerAccount, error) {
	a, err := scanSignerAccount(s.pool.QueryRow(ctx, `SELECT `+signerAccountColumns+` FROM signer_accounts a WHERE a.id = $1`, id))
	if err != nil {
		return a, notFound(err, "account")
	}
	return a, nil
}

// SetSignerPasswordHash replaces the password hash of account id (a rehash under stronger
// parameters: the password is the same).
func (s *Store) SetSignerPasswordHash(ctx context.Context, id int64, old, hash string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE signer_accounts SET password_hash = $3 WHERE id = $1 AND password_hash = $2`, id, old, hash); err != nil {
		return fmt.Errorf("rehash the password of account %d: %w", id, err)
	}
	return nil
}

// RecordAccountEvent records ev of account id at now.
func (s *Store) RecordAccountEvent(ctx context.Context, id int64, ev AccountEvent, now time.Time) error {
	return insertAccountEvent(ctx, s.pool, id, ev, now)
}

// CountAccountEvents counts the events of account id of the given types at or after since.
func (s *Store) CountAccountEvents(ctx context.Context, id int64, types []string, since time.Time) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM account_events WHERE account_id = $1 AND type = ANY($2) AND at >= $3`,
		id, types, since).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count events of account %d: %w", id, err)
	}
	return n, nil
}

// AccountEvents returns the newest limit events of account id of the given types, newest first.
func (s *Store) AccountEvents(ctx context.Context, id int64, types []string, limit int) ([]AccountEventRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT type, at, coalesce(ip_address, ''), coalesce(user_agent, ''), data
		FROM account_events WHERE account_id = $1 AND type = ANY($2) ORDER BY at DESC, id DESC LIMIT $3`, id, types, limit)
	if err != nil {
		return nil, fmt.Errorf("list events of account %d: %w", id, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (AccountEventRow, error) {
		var e AccountEventRow
		var data []byte
		if err := row.Scan(&e.Type, &e.At, &e.IP, &e.UserAgent, &data); err != nil {
			return e, err
		}
		return e, jsonUnmarshal(data, &e.Data)
	})
}

// ReserveAccountAttempt counts an attempt to prove account id with a secret of kind before the
// secret is tested, so that attempts made at once cannot outnumber what the lock allows: the
// account's count kind of failures in a row rises, unless proofs of kind are locked at now or
// maxFailures attempts of kind are counted already. The lock of the other kind does not matter.
// It reports whether the attempt may go on and, when it may not because kind is locked, until
// when. The attempt counts as a failure until the caller records how it ended:
// ClearAccountFailures (or a store method that clears the count) or RecordAccountFailure.
func (s *Store) ReserveAccountAttempt(ctx context.Context, id int64, kind AccountFailures, maxFailures int, now time.Time) (bool, *time.Time, error) {
	col, lock := kind.column(), kind.lockColumn()
	tag, err := s.pool.Exec(ctx, `UPDATE signer_accounts SET `+col+` = `+col+` + 1
		WHERE id = $1 AND (`+lock+` IS NULL OR `+lock+` <= $3) AND `+col+` < $2`, id, maxFailures, now)
	if err != nil {
		return false, nil, fmt.Errorf("count an attempt on account %d: %w", id, err)
	}
	if tag.RowsAffected() == 1 {
		return true, nil, nil
	}
	var until *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT CASE WHEN `+lock+` > $2 THEN `+lock+` END FROM signer_accounts WHERE id = $1`, id, now).
		Scan(&until); err != nil {
		return false, nil, notFound(err, "account")
	}
	return false, until, nil
}

// RecordAccountFailure records that an attempt of kind on account id (ReserveAccountAttempt)
// failed, ev, at now. When the account's count kind has reached maxFailures, proofs of kind are
// locked until now+lock, that count starts again and ACCOUNT_LOCKED is recorded (with the kind:
// "password" or "factor"). It returns until when proofs of kind are locked, or nil when they are
// not.
func (s *Store) RecordAccountFailure(ctx context.Context, id int64, kind AccountFailures, ev AccountEvent, maxFailures int, lock time.Duration, now time.Time) (*time.Time, error) {
	var until *time.Time
	col, lockCol := kind.column(), kind.lockColumn()
	err := s.InTx(ctx, func(tx *Tx) error {
		var locked bool
		err := tx.q.QueryRow(ctx, `WITH old AS (SELECT `+lockCol+` AS was FROM signer_accounts WHERE id = $1 FOR UPDATE)
			UPDATE signer_accounts a SET
				`+col+` = CASE WHEN a.`+col+` >= $2 THEN 0 ELSE a.`+col+` END,
				`+lockCol+` = CASE WHEN a.`+col+` >= $2 THEN $3::timestamptz ELSE a.`+lockCol+` END
			FROM old WHERE a.id = $1
			RETURNING CASE WHEN a.`+lockCol+` > $4 THEN a.`+lockCol+` END, a.`+lockCol+` IS DISTINCT FROM old.was`,
			id, maxFailures, now.Add(lock), now).Scan(&until, &locked)
		if err != nil {
			return notFound(err, "account")
		}
		if err := insertAccountEvent(ctx, tx.q, id, ev, now); err != nil {
			return err
		}
		if !locked {
			return nil
		}
		return insertAccountEvent(ctx, tx.q, id, AccountEvent{Type: AccountEventLocked, IP: ev.IP, UserAgent: ev.UserAgent,
			Data: map[string]any{"until": until.UTC().Format(time.RFC3339), "proofs": kind.String()}}, now)
	})
	return until, err
}

// ClearAccountFailures starts account id's count kind of failures in a row again (a right secret
// of that kind); the other count stays.
func (s *Store) ClearAccountFailures(ctx context.Context, id int64, kind AccountFailures) error {
	col := kind.column()
	if _, err := s.pool.Exec(ctx, `UPDATE signer_accounts SET `+col+` = 0 WHERE id = $1 AND `+col+` <> 0`, id); err != nil {
		return fmt.Errorf("clear the failures of account %d: %w", id, err)
	}
	return nil
}

// CreateAccountLink stores a mailed link of account id (by the SHA-256 of its token) for purpose,
// leading to next once used, working until expires. Earlier links of the account for the same
// purpose that were not used stop working: only the newest mail's link does.
func (s *Store) CreateAccountLink(ctx context.Context, id int64, purpose string, tokenHash []byte, next string, expires, now time.Time) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.q.Exec(ctx, `UPDATE account_links SET expires_at = $3
			WHERE account_id = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3`, id, purpose, now); err != nil {
			return fmt.Errorf("end earlier %s links of account %d: %w", purpose, id, err)
		}
		if _, err := tx.q.Exec(ctx, `INSERT INTO account_links (token_hash, account_id, purpose, next, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, tokenHash, id, purpose, next, now, expires); err != nil {
			return fmt.Errorf("store a %s link of account %d: %w", purpose, id, err)
		}
		return nil
	})
}

// AccountOfLink returns the account of the working (unused, unexpired at now) link whose token
// hashes to tokenHash, for purpose, without using it.
func (s *Store) AccountOfLink(ctx context.Context, tokenHash []byte, purpose string, now time.Time) (SignerAccount, error) {
	a, err := scanSignerAccount(s.pool.QueryRow(ctx, `SELECT `+signerAccountColumns+`
		FROM account_links l JOIN signer_accounts a ON a.id = l.account_id
		WHERE l.token_hash = $1 AND l.purpose = $2 AND l.used_at IS NULL AND l.expires_at > $3`, tokenHash, purpose, now))
	if err != nil {
		return a, notFound(err, "link")
	}
	return a, nil
}

// takeAccountLink uses the working link whose token hashes to tokenHash, for purpose: it
// returns its account and next, and never works again. Two uses at once: one wins.
func (tx *Tx) takeAccountLink(ctx context.Context, tokenHash []byte, purpose string, now time.Time) (int64, string, error) {
	var id int64
	var next string
	err := tx.q.QueryRow(ctx, `UPDATE account_links SET used_at = $3
		WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3
		RETURNING account_id, next`, tokenHash, purpose, now).Scan(&id, &next)
	if err != nil {
		return 0, "", notFound(err, "link")
	}
	return id, next, nil
}

// VerifySignerEmail uses a verification link (tokenHash) at now, for an account whose password
// hash is still passwordHash (the one the caller tested the password against): the account's
// email is verified, ev recorded. It returns the account and the link's next. A used, expired or
// unknown link is not found, and so is a link whose account took another password meanwhile
// (changing nothing: the link stays as it was).
func (s *Store) VerifySignerEmail(ctx context.Context, tokenHash []byte, passwordHash string, ev AccountEvent, now time.Time) (SignerAccount, string, error) {
	var a SignerAccount
	var next string
	err := s.InTx(ctx, func(tx *Tx) error {
		id, n, err := tx.takeAccountLink(ctx, tokenHash, AccountLinkVerify, now)
		if err != nil {
			return err
		}
		next = n
		a, err = scanSignerAccount(tx.q.QueryRow(ctx, `UPDATE signer_accounts a
			SET email_verified_at = coalesce(email_verified_at, $2), updated_at = $2 WHERE id = $1 AND password_hash = $3
			RETURNING `+signerAccountColumns, id, now, passwordHash))
		if errors.Is(err, pgx.ErrNoRows) {
			return errLinkStale
		}
		if err != nil {
			return fmt.Errorf("verify the email of account %d: %w", id, err)
		}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	if errors.Is(err, errLinkStale) {
		return SignerAccount{}, "", envelope.NotFound("link")
	}
	return a, next, err
}

// errLinkStale rolls back the use of a verification link whose account's password changed.
var errLinkStale = errors.New("persistence: the account's password changed")

// ResetSignerPassword uses a reset link (tokenHash) at now: the account takes passwordHash, its
// email counts as verified (verified or not before: the link proved the mailbox), its count of
// wrong passwords and its password lock are cleared (the count of wrong codes and assertions,
// and their lock, stay), every session of it ends, its other reset links and its verification
// links stop working, and ev is recorded. It returns the account and the link's next.
func (s *Store) ResetSignerPassword(ctx context.Context, tokenHash []byte, passwordHash string, ev AccountEvent, now time.Time) (SignerAccount, string, error) {
	var a SignerAccount
	var next string
	err := s.InTx(ctx, func(tx *Tx) error {
		id, n, err := tx.takeAccountLink(ctx, tokenHash, AccountLinkReset, now)
		if err != nil {
			return err
		}
		next = n
		if a, err = scanSignerAccount(tx.q.QueryRow(ctx, `UPDATE signer_accounts a
			SET password_hash = $2, email_verified_at = coalesce(email_verified_at, $3), failed_attempts = 0, password_locked_until = NULL,
				updated_at = $3
			WHERE id = $1 RETURNING `+signerAccountColumns, id, passwordHash, now)); err != nil {
			return fmt.Errorf("reset the password of account %d: %w", id, err)
		}
		if _, err := tx.q.Exec(ctx, `UPDATE account_sessions SET ended_at = $2 WHERE account_id = $1 AND ended_at IS NULL`, id, now); err != nil {
			return fmt.Errorf("end the sessions of account %d: %w", id, err)
		}
		if _, err := tx.q.Exec(ctx, `UPDATE account_links SET expires_at = $2
			WHERE account_id = $1 AND used_at IS NULL AND expires_at > $2`, id, now); err != nil {
			return fmt.Errorf("end the other links of account %d: %w", id, err)
		}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return a, next, err
}

// StartAccountSession signs a browser in to account id at now: a session kept by idHash (the
// SHA-256 of the cookie's secret), the account's count of wrong passwords cleared, ev recorded (with
// the session's id). It returns the session.
func (s *Store) StartAccountSession(ctx context.Context, idHash []byte, id int64, method string, ev AccountEvent, now time.Time) (AccountSession, error) {
	var sess AccountSession
	err := s.InTx(ctx, func(tx *Tx) error {
		err := tx.q.QueryRow(ctx, `INSERT INTO account_sessions AS s (id_hash, account_id, created_at, last_seen_at, ip_address, user_agent, method)
			VALUES ($1, $2, $3, $3, nullif($4, ''), nullif($5, ''), $6) RETURNING `+accountSessionColumns,
			idHash, id, now, ev.IP, ev.UserAgent, method).Scan(accountSessionDest(&sess)...)
		if err != nil {
			return fmt.Errorf("start a session of account %d: %w", id, err)
		}
		if _, err := tx.q.Exec(ctx, `UPDATE signer_accounts SET failed_attempts = 0 WHERE id = $1 AND failed_attempts <> 0`, id); err != nil {
			return fmt.Errorf("clear the failures of account %d: %w", id, err)
		}
		data := map[string]any{"session": sess.ID, "method": method}
		for k, v := range ev.Data {
			data[k] = v
		}
		ev.Data = data
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return sess, err
}

// LiveAccountSession returns the session kept by idHash and its account, when it has not ended
// and was last seen after seenAfter; else not found.
func (s *Store) LiveAccountSession(ctx context.Context, idHash []byte, seenAfter time.Time) (AccountSession, SignerAccount, error) {
	return s.liveAccountSession(ctx, `s.id_hash = $1`, idHash, seenAfter)
}

// LiveAccountSessionByID is LiveAccountSession by the session's public id.
func (s *Store) LiveAccountSessionByID(ctx context.Context, id string, seenAfter time.Time) (AccountSession, SignerAccount, error) {
	return s.liveAccountSession(ctx, `s.id = $1`, id, seenAfter)
}

func (s *Store) liveAccountSession(ctx context.Context, where string, key any, seenAfter time.Time) (AccountSession, SignerAccount, error) {
	var sess AccountSession
	var a SignerAccount
	row := s.pool.QueryRow(ctx, `SELECT `+accountSessionColumns+`, `+signerAccountColumns+`
		FROM account_sessions s JOIN signer_accounts a ON a.id = s.account_id
		WHERE `+where+` AND s.ended_at IS NULL AND s.last_seen_at > $2`, key, seenAfter)
	if err := row.Scan(append(accountSessionDest(&sess), signerAccountDest(&a)...)...); err != nil {
		return sess, a, notFound(err, "session")
	}
	return sess, a, nil
}

// TouchAccountSession records that the session kept by idHash was used at now, at most once a
// minute (a use within a minute of the last one writes nothing).
func (s *Store) TouchAccountSession(ctx context.Context, idHash []byte, now time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE account_sessions SET last_seen_at = $2
		WHERE id_hash = $1 AND ended_at IS NULL AND last_seen_at < $2::timestamptz - interval '1 minute'`, idHash, now)
	if err != nil {
		return fmt.Errorf("touch an account session: %w", err)
	}
	return nil
}

// EndAccountSession ends the session kept by idHash at now and records ev of its account. It
// reports whether there was a session to end.
func (s *Store) EndAccountSession(ctx context.Context, idHash []byte, ev AccountEvent, now time.Time) (bool, error) {
	ended := false
	err := s.InTx(ctx, func(tx *Tx) error {
		var id int64
		var sessionID string
		err := tx.q.QueryRow(ctx, `UPDATE account_sessions SET ended_at = $2 WHERE id_hash = $1 AND ended_at IS NULL
			RETURNING account_id, id`, idHash, now).Scan(&id, &sessionID)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("end an account session: %w", err)
		}
		ended = true
		ev.Data = map[string]any{"session": sessionID}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return ended, err
}

// ConfirmSessionFactor records that account session sessionID (the public id) of account id
// proved a second factor of the account at now, and ev. A session that ended, or is another
// account's, is not found.
func (s *Store) ConfirmSessionFactor(ctx context.Context, id int64, sessionID string, ev AccountEvent, now time.Time) error {
	return s.InTx(ctx, func(tx *Tx) error {
		tag, err := tx.q.Exec(ctx, `UPDATE account_sessions SET factor_confirmed_at = $3
			WHERE id = $2 AND account_id = $1 AND ended_at IS NULL`, id, sessionID, now)
		if err != nil {
			return fmt.Errorf("record a factor proof of account %d: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return envelope.NotFound("session")
		}
		ev.Data = merge(ev.Data, map[string]any{"session": sessionID})
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
}

// AccountFactorState reports whether account id has a second factor (an enabled authenticator
// app or any passkey) and when its live session sessionID last proved one (nil when it never
// did, or the session is not a live one of the account).
func (s *Store) AccountFactorState(ctx context.Context, id int64, sessionID string) (bool, *time.Time, error) {
	var has bool
	var confirmed *time.Time
	err := s.pool.QueryRow(ctx, `SELECT a.totp_enabled_at IS NOT NULL OR EXISTS (SELECT 1 FROM account_passkeys p WHERE p.account_id = a.id),
			(SELECT s.factor_confirmed_at FROM account_sessions s WHERE s.id = $2 AND s.account_id = a.id AND s.ended_at IS NULL)
		FROM signer_accounts a WHERE a.id = $1`, id, sessionID).Scan(&has, &confirmed)
	if err != nil {
		return false, nil, notFound(err, "account")
	}
	return has, confirmed, nil
}

// SetPendingTOTPSecret keeps secret as account id's authenticator secret being enrolled (sealed
// with the Store's keyring, bound to the account), replacing one being enrolled. An account whose
// app is enabled keeps it: ErrTOTPEnabled.
func (s *Store) SetPendingTOTPSecret(ctx context.Context, id int64, secret string) error {
	if s.ring == nil {
		return ErrNoKeyring
	}
	keyID, sealed := s.ring.Seal([]byte(secret), totpContext(id))
	tag, err := s.pool.Exec(ctx, `UPDATE signer_accounts SET totp_secret_sealed = $2, totp_key_id = $3, updated_at = now()
		WHERE id = $1 AND totp_enabled_at IS NULL`, id, sealed, keyID)
	if err != nil {
		return fmt.Errorf("store the authenticator secret of account %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return ErrTOTPEnabled
	}
	return nil
}

// AccountTOTPSecret returns account id's authenticator secret, enabled or being enrolled, opened;
// false when it has none.
func (s *Store) AccountTOTPSecret(ctx context.Context, id int64) (TOTPSecret, bool, error) {
	var t TOTPSecret
	var keyID *string
	err := s.pool.QueryRow(ctx, `SELECT totp_secret_sealed, totp_key_id, totp_enabled_at IS NOT NULL, totp_last_step
		FROM signer_accounts WHERE id = $1`, id).Scan(&t.sealed, &keyID, &t.Enabled, &t.LastStep)
	if err != nil {
		return t, false, notFound(err, "account")
	}
	if t.sealed == nil {
		return TOTPSecret{}, false, nil
	}
	if s.ring == nil {
		return TOTPSecret{}, false, ErrNoKeyring
	}
	plain, err := s.ring.Open(deref(keyID), t.sealed, totpContext(id))
	if err != nil {
		return TOTPSecret{}, false, fmt.Errorf("open the authenticator secret of account %d: %w", id, err)
	}
	t.Secret = string(plain)
	return t, true, nil
}

// EnableTOTP turns on the authenticator secret being enrolled, sec (as AccountTOTPSecret read
// it), proved by a code of step: the step is taken as the last accepted, the account's recovery
// codes become codeHashes (SHA-256 of each), its count of failed codes and assertions is cleared
// and ev recorded. It
// reports false, changing nothing, when the enrolment changed meanwhile (another secret, enabled
// already) or step is not after the last accepted one.
func (s *Store) EnableTOTP(ctx context.Context, id int64, sec TOTPSecret, step int64, codeHashes [][]byte, ev AccountEvent, now time.Time) (bool, error) {
	ok := false
	err := s.InTx(ctx, func(tx *Tx) error {
		tag, err := tx.q.Exec(ctx, `UPDATE signer_accounts SET totp_enabled_at = $4, totp_last_step = $3, failed_factor_attempts = 0, updated_at = $4
			WHERE id = $1 AND totp_enabled_at IS NULL AND totp_secret_sealed = $2 AND totp_last_step < $3`, id, sec.sealed, step, now)
		if err != nil {
			return fmt.Errorf("enable the authenticator of account %d: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		ok = true
		if err := tx.replaceRecoveryCodes(ctx, id, codeHashes); err != nil {
			return err
		}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return ok && err == nil, err
}

func (tx *Tx) replaceRecoveryCodes(ctx context.Context, id int64, codeHashes [][]byte) error {
	if _, err := tx.q.Exec(ctx, `DELETE FROM account_recovery_codes WHERE account_id = $1`, id); err != nil {
		return fmt.Errorf("delete the recovery codes of account %d: %w", id, err)
	}
	if len(codeHashes) == 0 {
		return nil
	}
	if _, err := tx.q.Exec(ctx, `INSERT INTO account_recovery_codes (account_id, code_hash) SELECT $1, unnest($2::bytea[])`, id, codeHashes); err != nil {
		return fmt.Errorf("store the recovery codes of account %d: %w", id, err)
	}
	return nil
}

// AcceptTOTPStep takes step as account id's last accepted authenticator step, and clears its
// count of failed codes and assertions, when the app is enabled and step is after the last accepted one; it reports whether
// it did. Of two uses of one code at once, one is accepted.
func (s *Store) AcceptTOTPStep(ctx context.Context, id int64, step int64) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE signer_accounts SET totp_last_step = $2, failed_factor_attempts = 0
		WHERE id = $1 AND totp_enabled_at IS NOT NULL AND totp_last_step < $2`, id, step)
	if err != nil {
		return false, fmt.Errorf("accept an authenticator code of account %d: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// UseRecoveryCode spends the unused recovery code of account id whose SHA-256 is codeHash, at
// now: it reports whether there was one; when there was, the account's count of failed codes and
// assertions is cleared and ev recorded. Of two uses of one code at once, one wins.
func (s *Store) UseRecoveryCode(ctx context.Context, id int64, codeHash []byte, ev AccountEvent, now time.Time) (bool, error) {
	used := false
	err := s.InTx(ctx, func(tx *Tx) error {
		var one int
		err := tx.q.QueryRow(ctx, `UPDATE account_recovery_codes c SET used_at = $3
			FROM signer_accounts a
			WHERE c.account_id = $1 AND c.code_hash = $2 AND c.used_at IS NULL AND a.id = c.account_id AND a.totp_enabled_at IS NOT NULL
			RETURNING 1`, id, codeHash, now).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("use a recovery code of account %d: %w", id, err)
		}
		used = true
		if _, err := tx.q.Exec(ctx, `UPDATE signer_accounts SET failed_factor_attempts = 0 WHERE id = $1 AND failed_factor_attempts <> 0`, id); err != nil {
			return fmt.Errorf("clear the failed codes of account %d: %w", id, err)
		}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return used && err == nil, err
}

// RecoveryCodesLeft counts account id's unused recovery codes.
func (s *Store) RecoveryCodesLeft(ctx context.Context, id int64) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM account_recovery_codes WHERE account_id = $1 AND used_at IS NULL`, id).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the recovery codes of account %d: %w", id, err)
	}
	return n, nil
}

// DisableTOTP turns account id's authenticator app off at now: its secret and recovery codes are
// deleted, ev recorded. The last accepted step stays: a code of it is never taken again.
func (s *Store) DisableTOTP(ctx context.Context, id int64, ev AccountEvent, now time.Time) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.q.Exec(ctx, `UPDATE signer_accounts SET totp_secret_sealed = NULL, totp_key_id = NULL, totp_enabled_at = NULL,
			updated_at = $2 WHERE id = $1`, id, now); err != nil {
			return fmt.Errorf("disable the authenticator of account %d: %w", id, err)
		}
		if err := tx.replaceRecoveryCodes(ctx, id, nil); err != nil {
			return err
		}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
}

const accountPasskeyColumns = `id, account_id, credential_id, credential, name, created_at, last_used_at`

func scanAccountPasskey(row pgx.Row) (AccountPasskey, error) {
	var p AccountPasskey
	return p, row.Scan(&p.ID, &p.AccountID, &p.CredentialID, &p.Credential, &p.Name, &p.CreatedAt, &p.LastUsedAt)
}

// AccountPasskeys returns account id's passkeys, oldest first.
func (s *Store) AccountPasskeys(ctx context.Context, id int64) ([]AccountPasskey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+accountPasskeyColumns+` FROM account_passkeys WHERE account_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("list the passkeys of account %d: %w", id, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (AccountPasskey, error) { return scanAccountPasskey(row) })
}

// AddAccountPasskey keeps a new passkey of account id: credential is the library's record as
// JSON. A credential registered already (on any account) is ALREADY_EXISTS. ev is recorded.
func (s *Store) AddAccountPasskey(ctx context.Context, id int64, credentialID, credential []byte, name string, ev AccountEvent, now time.Time) (AccountPasskey, error) {
	var p AccountPasskey
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		p, err = scanAccountPasskey(tx.q.QueryRow(ctx, `INSERT INTO account_passkeys (account_id, credential_id, credential, name, created_at)
			VALUES ($1, $2, $3, $4, $5) RETURNING `+accountPasskeyColumns, id, credentialID, credential, name, now))
		if err != nil {
			return fmt.Errorf("store a passkey of account %d: %w", id, err)
		}
		ev.Data = map[string]any{"credentialId": base64.RawURLEncoding.EncodeToString(credentialID), "name": name}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return p, err
}

// RemoveAccountPasskey removes passkey pid of account id, records ev and returns the passkey's
// name; a passkey of another account, or none, is not found.
func (s *Store) RemoveAccountPasskey(ctx context.Context, id, pid int64, ev AccountEvent, now time.Time) (string, error) {
	var name string
	err := s.InTx(ctx, func(tx *Tx) error {
		var credentialID []byte
		err := tx.q.QueryRow(ctx, `DELETE FROM account_passkeys WHERE id = $2 AND account_id = $1 RETURNING credential_id, name`, id, pid).
			Scan(&credentialID, &name)
		if err != nil {
			return notFound(err, "passkey")
		}
		ev.Data = map[string]any{"credentialId": base64.RawURLEncoding.EncodeToString(credentialID), "name": name}
		return insertAccountEvent(ctx, tx.q, id, ev, now)
	})
	return name, err
}

// UsePasskey records an assertion by account id's passkey credentialID at now: the credential
// record becomes credential (its new sign count, signCount) and last_used_at now. A sign count
// that is not above the stored one (when either is not zero) changes nothing and reports false:
// another assertion with that count or a later one was taken already.
func (s *Store) UsePasskey(ctx context.Context, id int64, credentialID, credential []byte, signCount uint32, now time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE account_passkeys SET credential = $3, last_used_at = $5
		WHERE account_id = $1 AND credential_id = $2
		AND (($4 = 0 AND coalesce((credential->'authenticator'->>'signCount')::bigint, 0) = 0)
			OR coalesce((credential->'authenticator'->>'signCount')::bigint, 0) < $4)`,
		id, credentialID, credential, int64(signCount), now)
	if err != nil {
		return false, fmt.Errorf("record the use of a passkey of account %d: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// SaveWebAuthnChallenge keeps a WebAuthn ceremony under way: data (the library's session data as
// JSON) under its challenge, bound to the account session sessionID, for purpose, until expires.
func (s *Store) SaveWebAuthnChallenge(ctx context.Context, challenge, sessionID, purpose string, data []byte, expires time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO webauthn_challenges (challenge, account_session_id, purpose, data, expires_at)
		VALUES ($1, $2, $3, $4, $5)`, challenge, sessionID, purpose, data, expires)
	if err != nil {
		return fmt.Errorf("store a WebAuthn challenge: %w", err)
	}
	return nil
}

// TakeWebAuthnChallenge uses the challenge of account session sessionID for purpose, at now,
// and returns its data; it never works again. An unknown, used or expired challenge, or one of
// another session or purpose, is not found.
func (s *Store) TakeWebAuthnChallenge(ctx context.Context, challenge, sessionID, purpose string, now time.Time) ([]byte, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, `UPDATE webauthn_challenges SET used_at = $4
		WHERE challenge = $1 AND account_session_id = $2 AND purpose = $3 AND used_at IS NULL AND expires_at > $4
		RETURNING data`, challenge, sessionID, purpose, now).Scan(&data)
	if err != nil {
		return nil, notFound(err, "challenge")
	}
	return data, nil
}

// EnvelopesForEmail returns the envelopes (neither drafts nor deleted, nor hidden by the
// recipient) one of whose recipients has email (compared without regard to case) and was sent
// the envelope (recipients.sent_at set: a recipient whose turn has not come, in a signing order,
// is left out until it has), newest first, at most limit: each with the recipient's role and
// signing token and the owner's name.
func (s *Store) EnvelopesForEmail(ctx context.Context, email string, limit int) ([]RecipientEnvelope, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT e.id, e.title, u.name, u.email, e.status, r.role, r.id, r.token, r.token_sealed, r.token_key_id, r.sent_at
		FROM recipients r JOIN envelopes e ON e.id = r.envelope_id JOIN users u ON u.id = e.user_id
		WHERE lower(r.email) = lower($1) AND e.type = 'DOCUMENT' AND e.status <> 'DRAFT' AND e.deleted_at IS NULL
			AND r.document_deleted_at IS NULL AND r.sent_at IS NOT NULL
		ORDER BY r.sent_at DESC, r.id DESC LIMIT $2`, email, limit)
	if err != nil {
		return nil, fmt.Errorf("list the envelopes sent to %s: %w", email, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (RecipientEnvelope, error) {
		var e RecipientEnvelope
		var recipientID int64
		var tok storedToken
		if err := row.Scan(&e.EnvelopeID, &e.Title, &e.OwnerName, &e.OwnerEmail, &e.Status, &e.Role, &recipientID,
			&tok.plain, &tok.sealed, &tok.keyID, &e.SentAt); err != nil {
			return e, err
		}
		var err error
		e.Token, err = tok.open(s.ring, recipientID)
		return e, err
	})
}
