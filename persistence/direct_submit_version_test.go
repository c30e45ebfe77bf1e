package persistence

import (
	"testing"
	"time"
)

func TestSameVersion(t *testing.T) {
	stored := time.Date(2026, 11, 27, 23, 58, 10, 776709000, time.UTC)
	for seen, want := range map[time.Time]bool{
		stored:                            true,  // the page's, whole
		stored.Truncate(time.Millisecond): true,  // the API's, to the millisecond
		stored.Add(time.Microsecond):      false, // another version within the millisecond, seen whole
		stored.Truncate(time.Millisecond).Add(time.Millisecond): false,
	} {
		if got := sameVersion(stored, seen); got != want {
			t.Errorf("sameVersion(%s, %s) = %v", stored.Format(time.RFC3339Nano), seen.Format(time.RFC3339Nano), got)
		}
	}
}
