package envelope

import (
	"errors"
	"fmt"
	"time"
)

// Code is a machine-readable error code. The values follow Documenso's AppErrorCode so that
// existing clients can switch on them.
type Code string

// Error codes. Each is answered with one HTTP status, on the API and the pages alike
// (Code.HTTPStatus).
const (
	CodeInvalidBody                = Code("INVALID_BODY")
	CodeInvalidRequest             = Code("INVALID_REQUEST")
	CodeNotFound                   = Code("NOT_FOUND")
	CodeUnauthorized               = Code("UNAUTHORIZED")
	CodeForbidden                  = Code("FORBIDDEN")
	CodeMethodNotAllowed           = Code("METHOD_NOT_ALLOWED")
	CodePayloadTooLarge            = Code("PAYLOAD_TOO_LARGE")
	CodeTooManyRequests            = Code("TOO_MANY_REQUESTS")
	CodeInternal                   = Code("INTERNAL_SERVER_ERROR")
	CodeMissingSignatureField      = Code("MISSING_SIGNATURE_FIELD")
	CodeRecipientOutOfTurn         = Code("RECIPIENT_OUT_OF_TURN")
	CodeRecipientExpired           = Code("RECIPIENT_EXPIRED")
	CodeRecipientAlreadySigned     = Code("RECIPIENT_ALREADY_SIGNED")
	CodeRecipientHasUnsignedFields = Code("RECIPIENT_HAS_UNSIGNED_FIELDS")
	CodeEnvelopeDraft              = Code("ENVELOPE_DRAFT")
	CodeEnvelopeCompleted          = Code("ENVELOPE_COMPLETED")
	CodeEnvelopeRejected           = Code("ENVELOPE_REJECTED")
	CodeEnvelopeCancelled          = Code("ENVELOPE_CANCELLED")
	CodeEnvelopeNotDraft           = Code("ENVELOPE_NOT_DRAFT")
	CodeUnavailable                = Code("SERVICE_UNAVAILABLE")
)

// Issue is one problem with one input value. Path is the JSON path of the value, for example
// "recipients[1].fields[0].page"; it is empty when the problem is not tied to one value.
type Issue struct {
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
}

// Error is the one error type that crosses package boundaries with a meaning for the caller:
// a code, a message for people, and the list of input problems when there are several.
type Error struct {
	Code    Code
	Message string
	Issues  []Issue
	// RetryAfter, when not zero, is how long the caller must wait before trying again (a
	// TOO_MANY_REQUESTS answer carries it as Retry-After).
	RetryAfter time.Duration
}

// Error is the code and the message, and the first issue when the message does not name it
// already (as a bulk send's row records it, and the logs show it).
func (e *Error) Error() string {
	if len(e.Issues) == 0 || (len(e.Issues) == 1 && e.Message == validationMessage(e.Issues)) {
		return fmt.Sprintf("%s: %s", e.Code, e.Message)
	}
	first := e.Issues[0].Message
	if e.Issues[0].Path != "" {
		first = e.Issues[0].Path + ": " + first
	}
	if len(e.Issues) == 1 {
		return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, first)
	}
	return fmt.Sprintf("%s: %s (%d issues, the first %s)", e.Code, e.Message, len(e.Issues), first)
}

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFound is the error for an object that does not exist or that the caller may not see. The two
// cases are never told apart, so that another team's identifiers reveal nothing.
func NotFound(what string) *Error {
	return &Error{Code: CodeNotFound, Message: what + " not found"}
}

// ErrorCode returns the code of the first *Error in err's chain, or CodeInternal.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// IsNotFound reports whether err carries CodeNotFound.
func IsNotFound(err error) bool { return ErrorCode(err) == CodeNotFound }

// Problems collects input problems so that one answer can name every bad value at once.
// The zero value is ready to use.
type Problems struct {
	issues []Issue
}

// Add records a problem with the value at path.
func (p *Problems) Add(path, format string, args ...any) {
	p.issues = append(p.issues, Issue{Path: path, Message: fmt.Sprintf(format, args...)})
}

// Len returns the number of problems recorded.
func (p *Problems) Len() int { return len(p.issues) }

// Err returns nil when nothing was recorded, else an INVALID_BODY *Error listing every problem.
func (p *Problems) Err() error {
	if len(p.issues) == 0 {
		return nil
	}
	return &Error{Code: CodeInvalidBody, Message: validationMessage(p.issues), Issues: append([]Issue(nil), p.issues...)}
}

// Invalid is the INVALID_BODY error of one bad input value, the value at path, found on its own
// (a required id missing, a malformed part, a value the store refuses). Problems is for
// collecting several.
func Invalid(path, format string, args ...any) *Error {
	issues := []Issue{{Path: path, Message: fmt.Sprintf(format, args...)}}
	return &Error{Code: CodeInvalidBody, Message: validationMessage(issues), Issues: issues}
}

// validationMessage is the message of an INVALID_BODY error with issues: "Input validation
// failed", followed by the issue when there is one ("Input validation failed: title: is
// required"), so that a client showing only the message shows what to mend.
func validationMessage(issues []Issue) string {
	switch {
	case len(issues) != 1:
		return "Input validation failed"
	case issues[0].Path == "":
		return "Input validation failed: " + issues[0].Message
	}
	return fmt.Sprintf("Input validation failed: %s: %s", issues[0].Path, issues[0].Message)
}

// Join returns a path made of a parent path and a member name or index:
// Join("recipients", 1) is "recipients[1]", Join("meta", "subject") is "meta.subject".
func Join(parent string, member any) string {
	switch m := member.(type) {
	case int:
		return fmt.Sprintf("%s[%d]", parent, m)
	case string:
		if parent == "" {
			return m
		}
		return parent + "." + m
	default:
		return fmt.Sprintf("%s.%v", parent, m)
	}
}

// CodeAlreadyExists is a change refused because what it would make exists already (a
// uniqueness the database keeps): Documenso's ALREADY_EXISTS, answered 400.
const CodeAlreadyExists = Code("ALREADY_EXISTS")

// Codes of the signing ceremony's identity checks (Sobre's own).
const (
	CodeAuthUnavailable    = Code("AUTH_METHOD_UNAVAILABLE")  // the envelope asks for a proof Sobre cannot take yet
	CodeRUTFirmadoTyped    = Code("RUT_FIRMADO_NOT_TYPEABLE") // RUT_FIRMADO comes from Clave Única, never from input
	CodeInvalidRUN         = Code("INVALID_RUN")              // an identity provider gave a RUN whose check digit is wrong
	CodeRUTMismatch        = Code("RUT_MISMATCH")             // two proofs of identity name different people
	CodeVerificationFailed = Code("VERIFICATION_FAILED")      // a login or signature could not be verified
	CodeAccessCodeLocked   = Code("ACCESS_CODE_LOCKED")       // too many wrong access codes: only a new send opens the entry again
	CodeLinkEnded          = Code("SIGNING_LINK_ENDED")       // the link ended long enough ago that it no longer shows the document
	CodeLinkReplaced       = Code("SIGNING_LINK_REPLACED")    // a newer link replaced this one (its recipient's email or authentication changed)
)

// Codes of signer accounts (ACCOUNT, PASSWORD, TWO_FACTOR_AUTH and PASSKEY auth), answered 401
// but for ACCOUNT_LOCKED (429, with the wait).
const (
	CodeAccountRequired = Code("ACCOUNT_REQUIRED")      // sign in to the account of the recipient's email first
	CodeAccountMismatch = Code("ACCOUNT_MISMATCH")      // this browser is signed in to another email's account
	CodeAuthFailed      = Code("AUTHENTICATION_FAILED") // a wrong password, authenticator code or passkey assertion
	CodeAccountLocked   = Code("ACCOUNT_LOCKED")        // too many failures: the account takes no proof of that kind for a while
	CodeEmailUnverified = Code("EMAIL_NOT_VERIFIED")    // the account's email was never proved by its mailed link
	CodeAuthNotEnrolled = Code("AUTH_NOT_ENROLLED")     // the account has no authenticator app or passkey to prove with
	// CodeFactorProofNeeded: adding or removing a second factor of an account that has one needs
	// a proof of an existing one, less than 5 minutes old, by the same session.
	CodeFactorProofNeeded = Code("FACTOR_CONFIRMATION_REQUIRED")
)
