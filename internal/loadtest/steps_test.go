package loadtest

import (
	"slices"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestHolds(t *testing.T) {
	for _, tc := range []struct {
		p99    time.Duration
		errors int
		want   bool
	}{
		{99 * time.Millisecond, 0, true},
		{100 * time.Millisecond, 0, false},
		{10 * time.Millisecond, 1, false},
		{0, 0, true},
	} {
		if got := Holds(tc.p99, tc.errors); got != tc.want {
			t.Errorf("Holds(%v, %d) = %v, want %v", tc.p99, tc.errors, got, tc.want)
		}
	}
}

func TestStepRates(t *testing.T) {
	for _, tc := range []struct {
		start  int
		factor float64
		limit  int
		want   []int
	}{
		{5, 1.5, 30, []int{5, 8, 12, 18, 27}},
		{1, 1.2, 4, []int{1, 2, 3, 4}}, // rounding never stalls: at least one more each step
		{0, 2, 4, []int{1, 2, 4}},
		{10, 2, 5, nil},
	} {
		if got := StepRates(tc.start, tc.factor, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("StepRates(%d, %v, %d) = %v, want %v", tc.start, tc.factor, tc.limit, got, tc.want)
		}
	}
}

func TestMixKind(t *testing.T) {
	count := map[Kind]int{}
	for i := range uint64(1000) {
		count[MixKind(i)]++
	}
	want := map[Kind]int{GetEnvelope: 500, ListEnvelopes: 200, CreateEnvelope: 200, FillField: 100}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("kind %d: %d of 1000, want %d", k, count[k], n)
		}
	}
}

// Every request the Targeter makes is told back to its kind by KindOf.
func TestKindOfTellsTheTargetersRequests(t *testing.T) {
	m := &Mix{Bases: []string{"http://a:1", "http://b:2"}, Key: "k", Fills: []Fill{{Token: "tok", Field: 7}}, Draft: []byte("x"), Type: "multipart/form-data"}
	m.AddIDs("envelope_a", "envelope_b")
	next := m.Targeter()
	for i := range uint64(40) {
		var tg vegeta.Target
		if err := next(&tg); err != nil {
			t.Fatal(err)
		}
		if got, want := KindOf(tg.Method, tg.URL), MixKind(i); got != want {
			t.Errorf("request %d %s %s: KindOf %v, want %v", i, tg.Method, tg.URL, got, want)
		}
	}
}
