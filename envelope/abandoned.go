package envelope

import (
	"slices"
	"time"
)

// Abandoned reports whether a PENDING envelope has nothing left to happen on its own at now:
// someone still has to act (it is not AllDone), and everyone whose turn it is (MayActNow under
// order) ran out of time and their expiry was noted (their id is in noted). Nobody may act, so
// nobody later in the signing order ever gets their turn; no deadline is left to note; no
// reminder goes to an expired recipient (RemindNow). The envelope stays PENDING, as Documenso
// keeps it: only a redistribute (a new deadline) or a recipient change moves it again. A
// participant without a deadline never expires, so an envelope waiting on one is never
// abandoned, nor is one where nobody's turn it is.
func Abandoned(order SigningOrder, ps []Participant, noted []int64, now time.Time) bool {
	if AllDone(ps) {
		return false
	}
	turn := MayActNow(order, ps)
	for _, p := range ps {
		if slices.Contains(turn, p.ID) && (!p.Expired(now) || !slices.Contains(noted, p.ID)) {
			return false
		}
	}
	return len(turn) > 0
}

// ExpiryNoted lists the recipients whose expiry the store noted (ExpirationNotifiedAt).
func ExpiryNoted(rs []Recipient) []int64 {
	var out []int64
	for _, r := range rs {
		if r.ExpirationNotifiedAt != nil {
			out = append(out, r.ID)
		}
	}
	return out
}
