package envelope

import (
	"slices"
	"testing"
)

func TestProofsLost(t *testing.T) {
	all := Proofs{AccessCode: true, ClaveUnica: true, FAOHash: true, ExpectedRUT: "11111111-1"}
	tests := []struct {
		name          string
		before, after Proofs
		want          []string
	}{
		{"nothing asked, nothing lost", Proofs{}, Proofs{}, nil},
		{"kept", all, all, nil},
		{"gained", Proofs{}, all, nil},
		{"the access code dropped", Proofs{AccessCode: true}, Proofs{}, []string{"TWO_FACTOR_AUTH"}},
		{"the RUT_FIRMADO field deleted", Proofs{ClaveUnica: true}, Proofs{}, []string{"CLAVE_UNICA"}},
		{"Clave Única replaced by FAO_HASH", Proofs{ClaveUnica: true}, Proofs{FAOHash: true}, []string{"CLAVE_UNICA"}},
		{"the expected RUN removed", Proofs{ClaveUnica: true, ExpectedRUT: "11111111-1"}, Proofs{ClaveUnica: true}, []string{"expectedRut"}},
		{"the expected RUN changed", Proofs{ExpectedRUT: "11111111-1"}, Proofs{ExpectedRUT: "22222222-2"}, []string{"expectedRut"}},
		{"an expected RUN set", Proofs{ClaveUnica: true}, Proofs{ClaveUnica: true, ExpectedRUT: "22222222-2"}, nil},
		{"everything dropped", all, Proofs{}, []string{"TWO_FACTOR_AUTH", "CLAVE_UNICA", "FAO_HASH", "expectedRut"}},
	}
	for _, tt := range tests {
		if got := ProofsLost(tt.before, tt.after); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if (Proofs{}).MustProve() || !(Proofs{ExpectedRUT: "1-9"}).MustProve() || !(Proofs{AccessCode: true}).MustProve() {
		t.Error("MustProve")
	}
}
