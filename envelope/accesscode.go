package envelope

import (
	"fmt"
	"time"
)

// DefaultMaxCodeFailures is how many wrong access codes a recipient's signing link takes in all,
// over every browser session and every code mailed, before its code entry locks. Twenty guesses
// at a six-digit code succeed once in 50,000 tries.
const DefaultMaxCodeFailures = 20

// The backoff between wrong access codes (CodeBackoff).
const (
	codeFreeFailures = 3
	codeBackoffFirst = time.Second
	// CodeBackoffCap is the longest wait between two wrong access codes.
	CodeBackoffCap = 5 * time.Minute
)

// CodeBackoff is how long a recipient waits after their failures-th wrong access code before
// they may ask for or type another: nothing after each of the first 3, then 1 s after the 4th,
// doubling with each further wrong code, to at most 5 minutes (from the 13th on). Exhausting 20
// wrong codes thus takes at least 43 minutes.
func CodeBackoff(failures int) time.Duration {
	if failures <= codeFreeFailures {
		return 0
	}
	d := codeBackoffFirst
	for i := codeFreeFailures + 1; i < failures; i++ {
		d *= 2
		if d >= CodeBackoffCap {
			return CodeBackoffCap
		}
	}
	return d
}

// CodeEntry is where a recipient's access-code entry stands: the wrong codes typed on their
// current signing link since it was last sent, and when the last was typed.
type CodeEntry struct {
	Failures   int
	LastFailed time.Time
}

// Locked reports whether the entry has taken max wrong codes: it takes no more codes until the
// envelope is sent to the recipient again.
func (c CodeEntry) Locked(max int) bool { return max > 0 && c.Failures >= max }

// CheckCodeEntry decides whether a recipient may ask for or type an access code at now. Once max
// wrong codes were typed the entry is locked: ACCESS_CODE_LOCKED, the right code included, until
// the envelope is sent to the recipient again. Until CodeBackoff(failures) has passed since the
// last wrong code the answer is TOO_MANY_REQUESTS, with the time left as RetryAfter.
func CheckCodeEntry(c CodeEntry, max int, now time.Time) error {
	if c.Locked(max) {
		return ErrCodeEntryLocked()
	}
	if c.Failures == 0 || c.LastFailed.IsZero() {
		return nil
	}
	wait := c.LastFailed.Add(CodeBackoff(c.Failures)).Sub(now)
	if wait <= 0 {
		return nil
	}
	wait = (wait + time.Second - 1).Truncate(time.Second) // whole seconds, rounded up
	return &Error{Code: CodeTooManyRequests, RetryAfter: wait,
		Message: fmt.Sprintf("Too many wrong codes; wait %s before trying again", waitText(wait))}
}

// ErrCodeEntryLocked is the refusal of a locked code entry.
func ErrCodeEntryLocked() *Error {
	return Errorf(CodeAccessCodeLocked, "Too many wrong codes were typed on this signing link, so it takes no more codes. The sender has been told; only they can send you the document again")
}

func waitText(d time.Duration) string {
	if s := int(d / time.Second); s < 120 {
		if s == 1 {
			return "1 second"
		}
		return fmt.Sprintf("%d seconds", s)
	}
	return fmt.Sprintf("%d minutes", int((d+time.Minute-1)/time.Minute))
}
