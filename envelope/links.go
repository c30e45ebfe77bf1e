package envelope

import (
	"slices"
	"strings"
	"time"
)

// DefaultLinkReadDays is how many days a signing link keeps showing the document after it ended.
const DefaultLinkReadDays = 30

// LinkEnd reports whether recipient rec's signing link had ended at now, and when. It ends when
// the envelope ends, COMPLETED, REJECTED or CANCELLED (at its completedAt, else its last
// update), or, while the envelope is PENDING, when the recipient's deadline passed before they
// acted. A recipient sent the envelope again has a new deadline, so their link is open again; an
// ended envelope is ended for good.
func LinkEnd(e *Envelope, rec Recipient, now time.Time) (time.Time, bool) {
	switch e.Status {
	case StatusCompleted, StatusRejected, StatusCancelled:
		if e.CompletedAt != nil {
			return *e.CompletedAt, true
		}
		return e.UpdatedAt, true
	case StatusPending:
		if rec.SigningStatus == SigningStatusNotSigned && rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt) {
			return *rec.ExpiresAt, true
		}
	}
	return time.Time{}, false
}

// LinkShowsDocument reports whether recipient rec's signing link shows the document, its page
// images and the field values at now: always while the link is open, and for readFor after it
// ended (LinkEnd). until is when it stops; zero while the link is open.
func LinkShowsDocument(e *Envelope, rec Recipient, now time.Time, readFor time.Duration) (shows bool, until time.Time) {
	end, ended := LinkEnd(e, rec, now)
	if !ended {
		return true, time.Time{}
	}
	until = end.Add(readFor)
	return now.Before(until), until
}

// ErrLinkEnded is the refusal of a document, page image or field values through a signing link
// that ended more than the read period ago.
func ErrLinkEnded() *Error {
	return Errorf(CodeLinkEnded, "This signing link no longer shows the document: it ended more than its reading period ago. Ask the sender for a copy")
}

// ReplacesLink reports whether changing a recipient from old to next changes who may sign its
// part, which replaces its signing link: another email address (compared without regard to
// case), other access or action authentication, or another expected RUN. A link sent to the
// wrong address, or a session verified under the old rules, must not sign under the new ones.
// Its name, role or signing order alone do not.
func ReplacesLink(old, next Recipient) bool {
	return !SameEmail(old.Email, next.Email) ||
		!sameSet(old.AuthOptions.AccessAuth, next.AuthOptions.AccessAuth) ||
		!sameSet(old.AuthOptions.ActionAuth, next.AuthOptions.ActionAuth) ||
		deref(old.ExpectedRUT) != deref(next.ExpectedRUT)
}

// SameEmail reports whether a and b are one email address: compared without regard to ASCII
// case or surrounding spaces. Only ASCII letters fold: Unicode case folding makes look-alikes
// one address (ſ is s to strings.EqualFold), and a database's lower() folds by its collation,
// so anything but ASCII is compared as it is written.
func SameEmail(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if asciiLower(a[i]) != asciiLower(b[i]) {
			return false
		}
	}
	return true
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func sameSet[T comparable](a, b []T) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// MayBe reports whether a person with RUN run (normal form, see NormalizeRUT) may sign as
// recipient r: any RUN when r names none, else only the one it names.
func (r Recipient) MayBe(run string) bool {
	return r.ExpectedRUT == nil || *r.ExpectedRUT == run
}

// CheckExpectedRUT records a problem at path when recipient r names an expected RUN that nothing
// it must prove would show: only a Clave Única login or an FAO_HASH certificate proves a RUN
// (asked by the recipient's action auth, else the envelope's, or by a RUT_FIRMADO field of its
// own: RequiredProofs). Accepting it silently would promise a check that never happens.
func CheckExpectedRUT(p *Problems, path string, r Recipient, global AuthOptions, fields []Field) {
	if r.ExpectedRUT == nil {
		return
	}
	if !RequiredProofs(r, global, fields).Identity() {
		p.Add(path, "needs CLAVE_UNICA or FAO_HASH in the recipient's (or the envelope's) actionAuth, or a RUT_FIRMADO field: nothing else proves a RUN")
	}
}
