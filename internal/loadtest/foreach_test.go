package loadtest

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// ForEach calls fn once for each index, never more than concurrency at once, and returns every
// error.
func TestForEach(t *testing.T) {
	for _, tc := range []struct{ n, concurrency, failing int }{{0, 3, 0}, {1, 0, 0}, {10, 3, 2}, {100, 30, 100}} {
		t.Run(fmt.Sprintf("%d by %d", tc.n, tc.concurrency), func(t *testing.T) {
			calls := make([]atomic.Int32, tc.n)
			var running, most atomic.Int32
			errs := ForEach(tc.n, tc.concurrency, func(i int) error {
				now := running.Add(1)
				defer running.Add(-1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				calls[i].Add(1)
				if i < tc.failing {
					return fmt.Errorf("call %d", i)
				}
				return nil
			})
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Errorf("fn(%d) called %d times", i, c)
				}
			}
			if int(most.Load()) > max(1, tc.concurrency) {
				t.Errorf("%d calls at once, want at most %d", most.Load(), tc.concurrency)
			}
			if len(errs) != tc.failing {
				t.Errorf("%d errors, want %d", len(errs), tc.failing)
			}
		})
	}
}
