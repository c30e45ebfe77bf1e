package loadtest

import (
	"testing"
	"time"
)

func TestQuantile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		var ds []time.Duration
		for _, n := range ns {
			ds = append(ds, time.Duration(n)*time.Millisecond)
		}
		return ds
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // 100..1, unsorted
	}
	for _, tc := range []struct {
		name string
		ds   []time.Duration
		q    float64
		want time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one", ms(7), 0.99, 7 * time.Millisecond},
		{"median of 4 is the 2nd", ms(4, 1, 3, 2), 0.5, 2 * time.Millisecond},
		{"p99 of 100 is the 99th", ms(hundred...), 0.99, 99 * time.Millisecond},
		{"p50 of 100 is the 50th", ms(hundred...), 0.5, 50 * time.Millisecond},
		{"p100 is the largest", ms(3, 9, 1), 1, 9 * time.Millisecond},
		{"p0 is the smallest", ms(3, 9, 1), 0, 1 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Quantile(tc.ds, tc.q); got != tc.want {
				t.Errorf("Quantile(%v, %v) = %v, want %v", tc.ds, tc.q, got, tc.want)
			}
		})
	}
}
