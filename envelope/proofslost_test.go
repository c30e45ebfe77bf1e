package envelope

import (
	"slices"
	"testing"
)

func TestProofsLost(t *testing.T) {
	cu := []ActionAuth{ActionAuthClaveUnica}
	all := Proofs{AccessCode: true, AccessAccount: true, Action: []ActionAuth{ActionAuthClaveUnica, ActionAuthFAOHash}, ExpectedRUT: "11111111-1"}
	tests := []struct {
		name          string
		before, after Proofs
		want          []string
	}{
		{"nothing asked, nothing lost", Proofs{}, Proofs{}, nil},
		{"kept", all, all, nil},
		{"gained", Proofs{}, all, nil},
		{"the access code dropped", Proofs{AccessCode: true}, Proofs{}, []string{"TWO_FACTOR_AUTH"}},
		{"the account access dropped", Proofs{AccessAccount: true}, Proofs{}, []string{"ACCOUNT"}},
		{"the RUT_FIRMADO field deleted", Proofs{RUTFirmado: true}, Proofs{}, []string{"CLAVE_UNICA"}},
		{"the RUT_FIRMADO field deleted, Clave Única still asked", Proofs{RUTFirmado: true, Action: cu}, Proofs{Action: cu}, nil},
		{"Clave Única replaced by FAO_HASH", Proofs{Action: cu}, Proofs{Action: []ActionAuth{ActionAuthFAOHash}}, []string{"FAO_HASH", "CLAVE_UNICA"}},
		{"a password added as another way", Proofs{Action: cu}, Proofs{Action: []ActionAuth{ActionAuthClaveUnica, ActionAuthPassword}}, []string{"PASSWORD"}},
		{"one way of two removed", Proofs{Action: []ActionAuth{ActionAuthPassword, ActionAuthPasskey}}, Proofs{Action: []ActionAuth{ActionAuthPasskey}}, nil},
		{"the expected RUN removed", Proofs{Action: cu, ExpectedRUT: "11111111-1"}, Proofs{Action: cu}, []string{"expectedRut"}},
		{"the expected RUN changed", Proofs{ExpectedRUT: "11111111-1"}, Proofs{ExpectedRUT: "22222222-2"}, []string{"expectedRut"}},
		{"an expected RUN set", Proofs{Action: cu}, Proofs{Action: cu, ExpectedRUT: "22222222-2"}, nil},
		{"everything dropped", all, Proofs{}, []string{"TWO_FACTOR_AUTH", "ACCOUNT", "CLAVE_UNICA", "FAO_HASH", "expectedRut"}},
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
