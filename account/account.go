package account

import (
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// Policies of signer accounts.
const (
	// SessionIdleTTL ends a signed-in session that has not been used for this long.
	SessionIdleTTL = persistence.AccountSessionIdleTTL
	// VerifyLinkTTL is how long a mailed email-verification link works (once).
	VerifyLinkTTL = 24 * time.Hour
	// ResetLinkTTL is how long a mailed password-reset link works (once).
	ResetLinkTTL = time.Hour
	// MaxFailures wrong passwords in a row lock the account's password for LockDuration, and
	// MaxFailures wrong authenticator or recovery codes and failed passkey assertions in a row lock
	// its second factors for LockDuration. The two are counted and locked apart: a right password
	// clears only the first count, a right code or passkey assertion only the second; a lock
	// refuses only its own kind of proof, and a password reset lifts only the password's.
	MaxFailures  = 10
	LockDuration = 15 * time.Minute
	// FactorProofTTL is how long a proof of a second factor on the account page (a right code or
	// a passkey assertion) lets its session add or remove one, when the account has one already.
	FactorProofTTL = 5 * time.Minute
	// RecoveryCodes is how many single-use recovery codes an authenticator enrolment gives.
	RecoveryCodes = 10
)

// Account is a signer account.
type Account struct {
	ID            int64
	Email         string
	EmailVerified bool
	TOTPEnabled   bool
	Language      envelope.Language
	CreatedAt     time.Time
}

// Matches reports whether the account proves that its holder is the owner of email: its own
// email was verified and is email, compared without regard to case.
func (a Account) Matches(email string) bool {
	return a.EmailVerified && email != "" && envelope.SameEmail(a.Email, email)
}

// Session is one browser signed in to an account.
type Session struct {
	// ID names the session without being its secret (hex SHA-256 of the cookie's SHA-256): the
	// signing ceremony records it.
	ID         string
	AccountID  int64
	CreatedAt  time.Time
	LastSeenAt time.Time
	IP         string
	UserAgent  string
	// FactorConfirmedAt is when this session last proved a second factor on the account page
	// (ConfirmFactor, ConfirmFactorWithPasskey); nil when it never did.
	FactorConfirmedAt *time.Time
}

// Client is who is asking: recorded with sign-ins and failures.
type Client struct {
	IP        string
	UserAgent string
}

// TOTPEnrolment is an authenticator app being set up: the secret as the app takes it (typed or
// scanned), its otpauth:// URL, and that URL as a QR code (PNG).
type TOTPEnrolment struct {
	Secret string
	URL    string
	QRCode []byte
}

// Passkey is a WebAuthn credential registered on an account.
type Passkey struct {
	ID           int64
	CredentialID string // base64url, as the certificate of completion shows it
	Name         string
	CreatedAt    time.Time
	LastUsedAt   *time.Time
}

// SignIn is one sign-in to an account, as its page lists them.
type SignIn struct {
	At        time.Time
	IP        string
	UserAgent string
	Method    string // PASSWORD
}

// AskedToSign is an envelope one of whose recipients has the account's email and was sent it.
type AskedToSign struct {
	Title      string
	Sender     string
	Status     envelope.Status
	Role       envelope.Role
	SigningURL string // {SOBRE_PUBLIC_URL}/sign/{token}
	SentAt     *time.Time
}

// Overview is what an account's page shows.
type Overview struct {
	Account           Account
	Passkeys          []Passkey
	RecoveryCodesLeft int
	SignIns           []SignIn // newest first, at most 20
	Envelopes         []AskedToSign
}
