package persistence_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

func hashOf(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// signerStore is a Store with a keyring and a connection to the same database.
func signerStore(t *testing.T) (*persistence.Store, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	url := pgtest.NewURL(t)
	store, err := persistence.Open(ctx, url, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return store, conn
}

// The purge deletes account links expired over a day ago, WebAuthn challenges past their expiry,
// and account sessions ended, or unused past their idle expiry, over a day ago; it keeps the rest.
func TestPurgeSignerAccountRecords(t *testing.T) {
	t.Parallel()
	store, conn := signerStore(t)
	ctx := context.Background()
	now := time.Now()
	a, _, err := store.UpsertSignerAccount(ctx, "purga@sobre.test", "$argon2id$x", "es", now)
	if err != nil {
		t.Fatal(err)
	}
	for i, expires := range []time.Time{now.Add(-49 * time.Hour), now.Add(-25 * time.Hour), now.Add(-time.Hour), now.Add(time.Hour)} {
		if _, err := conn.Exec(ctx, `INSERT INTO account_links (token_hash, account_id, purpose, created_at, expires_at) VALUES ($1, $2, 'reset', $3, $3)`,
			hashOf(fmt.Sprint("link", i)), a.ID, expires); err != nil {
			t.Fatal(err)
		}
	}
	for i, expires := range []time.Time{now.Add(-time.Minute), now.Add(5 * time.Minute)} {
		if err := store.SaveWebAuthnChallenge(ctx, fmt.Sprint("challenge", i), "s", persistence.WebAuthnAssert, []byte(`{}`), expires); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range []struct{ seen, ended *time.Time }{
		{seen: ptr(now.Add(-37 * time.Hour))},                                       // idle past 12 h + a day: purged
		{seen: ptr(now.Add(-13 * time.Hour))},                                       // idle, but less than a day past its expiry: kept
		{seen: ptr(now.Add(-26 * time.Hour)), ended: ptr(now.Add(-25 * time.Hour))}, // ended over a day ago: purged
		{seen: ptr(now.Add(-time.Hour)), ended: ptr(now.Add(-time.Hour))},           // ended an hour ago: kept
		{seen: ptr(now)}, // live: kept
	} {
		if _, err := conn.Exec(ctx, `INSERT INTO account_sessions (id_hash, account_id, created_at, last_seen_at, ended_at) VALUES ($1, $2, $3, $3, $4)`,
			hashOf(fmt.Sprint("session", i)), a.ID, *s.seen, s.ended); err != nil {
			t.Fatal(err)
		}
	}
	c, err := store.PurgeExpired(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if c.AccountLinks != 2 || c.Challenges != 1 || c.AccountSessions != 2 {
		t.Fatalf("purged %+v, want 2 links, 1 challenge, 2 sessions", c)
	}
	for table, want := range map[string]int{"account_links": 2, "webauthn_challenges": 1, "account_sessions": 3} {
		if n := count(t, store, table); n != want {
			t.Errorf("%s: %d rows left, want %d", table, n, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// An authenticator secret is sealed bound to its account: copied to another account's row it does
// not open there.
func TestTOTPSecretBoundToAccount(t *testing.T) {
	t.Parallel()
	store, conn := signerStore(t)
	ctx := context.Background()
	a, _, err := store.UpsertSignerAccount(ctx, "uno@sobre.test", "h", "en", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := store.UpsertSignerAccount(ctx, "dos@sobre.test", "h", "en", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetPendingTOTPSecret(ctx, a.ID, "JBSWY3DPEHPK3PXP"); err != nil {
		t.Fatal(err)
	}
	sec, ok, err := store.AccountTOTPSecret(ctx, a.ID)
	if err != nil || !ok || sec.Secret != "JBSWY3DPEHPK3PXP" || sec.Enabled {
		t.Fatalf("the secret read back: %+v %v %v", sec, ok, err)
	}
	if _, err := conn.Exec(ctx, `UPDATE signer_accounts SET (totp_secret_sealed, totp_key_id) = (SELECT totp_secret_sealed, totp_key_id FROM signer_accounts WHERE id = $1) WHERE id = $2`, a.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.AccountTOTPSecret(ctx, b.ID); err == nil {
		t.Fatal("a secret copied to another account opened there")
	}
}

// The email is unique without regard to case; a sign-up of a verified address changes nothing.
func TestUpsertSignerAccount(t *testing.T) {
	t.Parallel()
	store, _ := signerStore(t)
	ctx := context.Background()
	now := time.Now()
	a, created, err := store.UpsertSignerAccount(ctx, "Ana@Sobre.test", "h1", "es", now)
	if err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	b, created, err := store.UpsertSignerAccount(ctx, "ana@sobre.test", "h2", "en", now)
	if err != nil || created || b.ID != a.ID || b.PasswordHash != "h2" || b.Email != "ana@sobre.test" || b.Language != "en" {
		t.Fatalf("unverified again: %+v %v %v", b, created, err)
	}
	token := hashOf("verify")
	if err := store.CreateAccountLink(ctx, a.ID, persistence.AccountLinkVerify, token, "", now.Add(time.Hour), now); err != nil {
		t.Fatal(err)
	}
	// A link whose account took another password since it was tested changes nothing, and stays.
	if _, _, err := store.VerifySignerEmail(ctx, token, "h1", persistence.AccountEvent{Type: persistence.AccountEventEmailVerified}, now); !envelope.IsNotFound(err) {
		t.Fatalf("verify against a replaced password hash: %v", err)
	}
	if stale, err := store.SignerAccountByID(ctx, a.ID); err != nil || stale.EmailVerifiedAt != nil {
		t.Fatalf("after a refused verification: %+v %v", stale, err)
	}
	if _, _, err := store.VerifySignerEmail(ctx, token, "h2", persistence.AccountEvent{Type: persistence.AccountEventEmailVerified}, now); err != nil {
		t.Fatal(err)
	}
	c, created, err := store.UpsertSignerAccount(ctx, "ANA@SOBRE.TEST", "h3", "es", now)
	if err != nil || created || c.PasswordHash != "h2" || c.Email != "ana@sobre.test" || c.EmailVerifiedAt == nil {
		t.Fatalf("verified again: %+v %v %v", c, created, err)
	}
}

// Wrong passwords and wrong codes are two counts with two locks: clearing one count leaves the
// other, and a count reaching the limit locks its own kind of proof only.
func TestAccountFailuresCountedApart(t *testing.T) {
	t.Parallel()
	store, _ := signerStore(t)
	ctx := context.Background()
	now := time.Now().Truncate(time.Microsecond)
	a, _, err := store.UpsertSignerAccount(ctx, "cuentas@sobre.test", "h", "es", now)
	if err != nil {
		t.Fatal(err)
	}
	const limit, lock = 3, 15 * time.Minute
	fail := func(kind persistence.AccountFailures, at time.Time) *time.Time {
		t.Helper()
		ok, _, err := store.ReserveAccountAttempt(ctx, a.ID, kind, limit, at)
		if err != nil || !ok {
			t.Fatalf("reserve an attempt: %v %v", ok, err)
		}
		until, err := store.RecordAccountFailure(ctx, a.ID, kind, persistence.AccountEvent{Type: persistence.AccountEventTOTPFailed}, limit, lock, at)
		if err != nil {
			t.Fatal(err)
		}
		return until
	}
	for range limit - 1 {
		if fail(persistence.FactorFailures, now) != nil || fail(persistence.PasswordFailures, now) != nil {
			t.Fatal("locked before the limit")
		}
	}
	if err := store.ClearAccountFailures(ctx, a.ID, persistence.PasswordFailures); err != nil {
		t.Fatal(err)
	}
	got, err := store.SignerAccountByID(ctx, a.ID)
	if err != nil || got.FailedAttempts != 0 || got.FailedFactorAttempts != limit-1 {
		t.Fatalf("after clearing the passwords: %d and %d counted (%v), want 0 and %d", got.FailedAttempts, got.FailedFactorAttempts, err, limit-1)
	}
	until := fail(persistence.FactorFailures, now)
	if until == nil || !until.Equal(now.Add(lock)) {
		t.Fatalf("the last wrong code: locked until %v, want %v", until, now.Add(lock))
	}
	later := now.Add(time.Minute)
	if ok, u, err := store.ReserveAccountAttempt(ctx, a.ID, persistence.FactorFailures, limit, later); ok || u == nil || !u.Equal(*until) || err != nil {
		t.Fatalf("a code while codes are locked: %v %v %v", ok, u, err)
	}
	if ok, u, err := store.ReserveAccountAttempt(ctx, a.ID, persistence.PasswordFailures, limit, later); !ok || u != nil || err != nil {
		t.Fatalf("a password while codes are locked: %v %v %v", ok, u, err)
	}
	got, _ = store.SignerAccountByID(ctx, a.ID)
	if _, locked := got.LockedAt(persistence.PasswordFailures, later); locked {
		t.Error("passwords locked by wrong codes")
	}
	if u, locked := got.LockedAt(persistence.FactorFailures, later); !locked || !u.Equal(*until) {
		t.Errorf("codes: locked %v until %v, want until %v", locked, u, until)
	}
	// Wrong passwords lock passwords, and leave the lock on codes as it was.
	var pwUntil *time.Time
	for range limit - 1 {
		pwUntil = fail(persistence.PasswordFailures, later)
	}
	if pwUntil == nil || !pwUntil.Equal(later.Add(lock)) {
		t.Fatalf("the last wrong password: locked until %v, want %v", pwUntil, later.Add(lock))
	}
	got, _ = store.SignerAccountByID(ctx, a.ID)
	if got.FactorLockedUntil == nil || !got.FactorLockedUntil.Equal(*until) || got.PasswordLockedUntil == nil || !got.PasswordLockedUntil.Equal(*pwUntil) {
		t.Fatalf("locks %v and %v, want %v and %v", got.PasswordLockedUntil, got.FactorLockedUntil, pwUntil, until)
	}
	// Once the lock on codes passed, codes are taken while passwords are still locked.
	if ok, _, err := store.ReserveAccountAttempt(ctx, a.ID, persistence.FactorFailures, limit, now.Add(lock)); !ok || err != nil {
		t.Fatalf("a code after its lock: %v %v", ok, err)
	}
	if ok, _, err := store.ReserveAccountAttempt(ctx, a.ID, persistence.PasswordFailures, limit, now.Add(lock)); ok || err != nil {
		t.Fatalf("a password while passwords are locked: %v %v", ok, err)
	}
}

// A reset link verifies an unverified account with the new password, lifts the lock on
// passwords and their count, leaves the lock on codes and its count, and ends the account's other
// links, a verification link among them.
func TestResetLiftsThePasswordLockOnly(t *testing.T) {
	t.Parallel()
	store, _ := signerStore(t)
	ctx := context.Background()
	now := time.Now().Truncate(time.Microsecond)
	a, _, err := store.UpsertSignerAccount(ctx, "reset@sobre.test", "stranger's hash", "en", now)
	if err != nil {
		t.Fatal(err)
	}
	const limit, lock = 2, 15 * time.Minute
	for _, kind := range []persistence.AccountFailures{persistence.PasswordFailures, persistence.FactorFailures, persistence.FactorFailures} {
		if ok, _, err := store.ReserveAccountAttempt(ctx, a.ID, kind, limit, now); !ok || err != nil {
			t.Fatalf("reserve: %v %v", ok, err)
		}
		if _, err := store.RecordAccountFailure(ctx, a.ID, kind, persistence.AccountEvent{Type: persistence.AccountEventSignInFailed}, limit, lock, now); err != nil {
			t.Fatal(err)
		}
	}
	if ok, _, err := store.ReserveAccountAttempt(ctx, a.ID, persistence.PasswordFailures, limit, now); !ok || err != nil {
		t.Fatalf("reserve: %v %v", ok, err)
	}
	if until, err := store.RecordAccountFailure(ctx, a.ID, persistence.PasswordFailures, persistence.AccountEvent{Type: persistence.AccountEventSignInFailed}, limit, lock, now); until == nil || err != nil {
		t.Fatalf("passwords not locked: %v %v", until, err)
	}
	if ok, _, err := store.ReserveAccountAttempt(ctx, a.ID, persistence.FactorFailures, limit, now.Add(time.Minute)); ok || err != nil {
		t.Fatalf("codes not locked: %v %v", ok, err)
	}
	if err := store.CreateAccountLink(ctx, a.ID, persistence.AccountLinkVerify, hashOf("verify"), "", now.Add(time.Hour), now); err != nil {
		t.Fatal(err)
	}
	if err := store.CreateAccountLink(ctx, a.ID, persistence.AccountLinkReset, hashOf("reset"), "/sign/x", now.Add(time.Hour), now); err != nil {
		t.Fatal(err)
	}
	got, next, err := store.ResetSignerPassword(ctx, hashOf("reset"), "owner's hash", persistence.AccountEvent{Type: persistence.AccountEventPasswordReset}, now.Add(time.Minute))
	if err != nil || next != "/sign/x" {
		t.Fatalf("reset: %q %v", next, err)
	}
	if got.EmailVerifiedAt == nil || got.PasswordHash != "owner's hash" || got.FailedAttempts != 0 || got.PasswordLockedUntil != nil ||
		got.FailedFactorAttempts != 0 || got.FactorLockedUntil == nil || !got.FactorLockedUntil.Equal(now.Add(lock)) {
		t.Fatalf("after the reset: %+v", got)
	}
	if _, err := store.AccountOfLink(ctx, hashOf("verify"), persistence.AccountLinkVerify, now.Add(2*time.Minute)); !envelope.IsNotFound(err) {
		t.Fatalf("the verification link after the reset: %v", err)
	}
}

// A session's proof of a second factor is kept on it; the account has a factor once it has an
// enabled app or a passkey.
func TestSessionFactorProof(t *testing.T) {
	t.Parallel()
	store, conn := signerStore(t)
	ctx := context.Background()
	now := time.Now().Truncate(time.Microsecond)
	a, _, err := store.UpsertSignerAccount(ctx, "factor@sobre.test", "h", "en", now)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := store.StartAccountSession(ctx, hashOf("session"), a.ID, "PASSWORD", persistence.AccountEvent{Type: persistence.AccountEventSignIn}, now)
	if err != nil {
		t.Fatal(err)
	}
	if has, at, err := store.AccountFactorState(ctx, a.ID, sess.ID); err != nil || has || at != nil {
		t.Fatalf("a new account: %v %v %v", has, at, err)
	}
	if _, err := store.AddAccountPasskey(ctx, a.ID, []byte("cred"), []byte(`{}`), "Laptop", persistence.AccountEvent{Type: persistence.AccountEventPasskeyAdded}, now); err != nil {
		t.Fatal(err)
	}
	ev := persistence.AccountEvent{Type: persistence.AccountEventFactorConfirmed, Data: map[string]any{"method": "PASSKEY"}}
	if err := store.ConfirmSessionFactor(ctx, a.ID, sess.ID, ev, now); err != nil {
		t.Fatal(err)
	}
	if has, at, err := store.AccountFactorState(ctx, a.ID, sess.ID); err != nil || !has || at == nil || !at.Equal(now) {
		t.Fatalf("after the proof: %v %v %v", has, at, err)
	}
	var data string
	if err := conn.QueryRow(ctx, `SELECT data::text FROM account_events WHERE account_id = $1 AND type = 'FACTOR_CONFIRMED'`, a.ID).Scan(&data); err != nil ||
		data != `{"method": "PASSKEY", "session": "`+sess.ID+`"}` {
		t.Fatalf("FACTOR_CONFIRMED data %s (%v)", data, err)
	}
	// Another account's session, or an ended one, proves nothing here.
	b, _, _ := store.UpsertSignerAccount(ctx, "other@sobre.test", "h", "en", now)
	if err := store.ConfirmSessionFactor(ctx, b.ID, sess.ID, ev, now); !envelope.IsNotFound(err) {
		t.Fatalf("another account's session: %v", err)
	}
	if has, at, err := store.AccountFactorState(ctx, b.ID, sess.ID); err != nil || has || at != nil {
		t.Fatalf("another account's state with this session: %v %v %v", has, at, err)
	}
	if _, err := store.EndAccountSession(ctx, hashOf("session"), persistence.AccountEvent{Type: persistence.AccountEventSignOut}, now); err != nil {
		t.Fatal(err)
	}
	if err := store.ConfirmSessionFactor(ctx, a.ID, sess.ID, ev, now); !envelope.IsNotFound(err) {
		t.Fatalf("an ended session: %v", err)
	}
	if _, at, err := store.AccountFactorState(ctx, a.ID, sess.ID); err != nil || at != nil {
		t.Fatalf("an ended session's proof: %v %v", at, err)
	}
}

// A WebAuthn challenge is taken only for the purpose it was kept for, once: a signing page's
// assertion ('assert') never serves the account page's factor confirmation ('factor'), nor the
// other way round.
func TestWebAuthnChallengePurposes(t *testing.T) {
	t.Parallel()
	store, _ := signerStore(t)
	ctx := context.Background()
	now := time.Now()
	for _, purpose := range []string{persistence.WebAuthnRegister, persistence.WebAuthnAssert, persistence.WebAuthnFactor} {
		if err := store.SaveWebAuthnChallenge(ctx, "challenge-"+purpose, "s", purpose, []byte(`{"p":"`+purpose+`"}`), now.Add(time.Minute)); err != nil {
			t.Fatalf("keep a %s challenge: %v", purpose, err)
		}
	}
	for _, c := range []struct{ challenge, purpose string }{
		{"challenge-assert", persistence.WebAuthnFactor}, {"challenge-factor", persistence.WebAuthnAssert},
		{"challenge-register", persistence.WebAuthnFactor}, {"challenge-factor", persistence.WebAuthnRegister},
	} {
		if _, err := store.TakeWebAuthnChallenge(ctx, c.challenge, "s", c.purpose, now); !envelope.IsNotFound(err) {
			t.Errorf("%s taken for %s: %v", c.challenge, c.purpose, err)
		}
	}
	for _, purpose := range []string{persistence.WebAuthnAssert, persistence.WebAuthnFactor} {
		data, err := store.TakeWebAuthnChallenge(ctx, "challenge-"+purpose, "s", purpose, now)
		if err != nil || string(data) != `{"p": "`+purpose+`"}` {
			t.Errorf("the %s challenge for its purpose: %s %v", purpose, data, err)
		}
		if _, err := store.TakeWebAuthnChallenge(ctx, "challenge-"+purpose, "s", purpose, now); !envelope.IsNotFound(err) {
			t.Errorf("the %s challenge taken twice: %v", purpose, err)
		}
	}
	if err := store.SaveWebAuthnChallenge(ctx, "challenge-other", "s", "other", []byte(`{}`), now.Add(time.Minute)); err == nil {
		t.Error("a challenge of an unknown purpose was kept")
	}
}
