package loadtest

import (
	"math"
	"time"
)

// LatencyTarget is the p99 the sustained rate must stay under.
const LatencyTarget = 100 * time.Millisecond

// Holds reports whether a step met the sustained load's bar: p99 under LatencyTarget and not
// one error.
func Holds(p99 time.Duration, errors int) bool {
	return p99 < LatencyTarget && errors == 0
}

// StepRates are the rates a step search tries, requests per second: from start, each factor
// times the one before (rounded, always at least one more), up to and including limit.
func StepRates(start int, factor float64, limit int) []int {
	var out []int
	for r := max(1, start); r <= limit; {
		out = append(out, r)
		r = max(r+1, int(math.Round(float64(r)*factor)))
	}
	return out
}
