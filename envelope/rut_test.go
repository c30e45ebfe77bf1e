package envelope

import (
	"errors"
	"testing"
)

func TestParseRUT(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr error
	}{
		{"12.345.678-5", "12345678-5", nil},
		{"12345678-5", "12345678-5", nil},
		{"123456785", "12345678-5", nil},
		{" 12 345 678 - 5 ", "12345678-5", nil},
		{"11.111.111-1", "11111111-1", nil},
		{"7.654.321-6", "7654321-6", nil},
		{"10.000.013-k", "10000013-K", nil},
		{"10000013K", "10000013-K", nil},
		{"1-9", "1-9", nil},
		{"76.086.428-5", "76086428-5", nil},
		{"12.345.678-4", "", ErrRUTCheckDigit},
		{"10000013-0", "", ErrRUTCheckDigit},
		{"", "", ErrRUTFormat},
		{"5", "", ErrRUTFormat},
		{"12.345.678-X", "", ErrRUTFormat},
		{"1K3-5", "", ErrRUTFormat},
		{"0-0", "", ErrRUTFormat},
		{"1234567890-1", "", ErrRUTFormat},
		{"12,345,678-5", "", ErrRUTFormat},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizeRUT(tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("NormalizeRUT(%q) error = %v, want %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("NormalizeRUT(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRUTCheckDigitCoversEveryDigit(t *testing.T) {
	seen := map[byte]bool{}
	for n := 1; n < 200 && len(seen) < 11; n++ {
		seen[RUTCheckDigit(n)] = true
	}
	if len(seen) != 11 {
		t.Fatalf("check digits seen over 1..199: %d, want 11 (0-9 and K)", len(seen))
	}
}

func FuzzParseRUT(f *testing.F) {
	for _, s := range []string{"12.345.678-5", "10000013-k", "1-9", "", "k", "99.999.999-9", "--..", "0000001-9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRUT(s)
		if err != nil {
			return
		}
		// A parsed RUT prints to a normal form that parses back to itself.
		again, err := ParseRUT(r.String())
		if err != nil || again != r {
			t.Fatalf("ParseRUT(%q) = %v, but its normal form %q parses to %v, %v", s, r, r.String(), again, err)
		}
		if RUTCheckDigit(r.Number) != r.DV {
			t.Fatalf("ParseRUT(%q) accepted a wrong check digit", s)
		}
	})
}
