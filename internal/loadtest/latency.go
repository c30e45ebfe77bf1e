package loadtest

import (
	"slices"
	"time"
)

// Quantile is the q-quantile (0 ≤ q ≤ 1) of ds by the nearest-rank rule: the smallest duration
// at least a fraction q of ds do not exceed; 0 when ds is empty. ds need not be sorted.
func Quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	rank := int(q*float64(len(sorted))+0.999999999) - 1 // ceil(q·n) − 1, without float surprises
	return sorted[max(0, min(len(sorted)-1, rank))]
}
