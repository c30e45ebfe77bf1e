package config

import (
	"strings"
	"testing"
)

// SOBRE_STICKY_CACHE_SIZE is a whole number of workflows from 1 to 1,000,000, 500 by default.
func TestStickyCacheSize(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  int // 0: refused
	}{
		{"", 500}, {"1", 1}, {"2000", 2000}, {"1000000", 1000000},
		{"0", 0}, {"-1", 0}, {"1000001", 0}, {"lots", 0}, {"1.5", 0},
	} {
		c, err := Load(env(map[string]string{"SOBRE_STICKY_CACHE_SIZE": tc.value}))
		switch {
		case tc.want == 0 && (err == nil || !strings.Contains(err.Error(), "SOBRE_STICKY_CACHE_SIZE")):
			t.Errorf("%q: error %v does not name SOBRE_STICKY_CACHE_SIZE", tc.value, err)
		case tc.want != 0 && (err != nil || c.StickyCacheSize != tc.want):
			t.Errorf("%q: got %d, %v; want %d", tc.value, c.StickyCacheSize, err, tc.want)
		}
	}
}
