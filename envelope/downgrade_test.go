package envelope

import (
	"slices"
	"testing"
)

func TestWeakened(t *testing.T) {
	type opts = RecipientAuthOptions
	none := AuthOptions{}
	cu := []ActionAuth{ActionAuthClaveUnica}
	code := []AccessAuth{AccessAuthTwoFactorAuth}
	tests := []struct {
		name                   string
		before, after          opts
		beforeGlobal, afterGbl AuthOptions
		wantAccess             []AccessAuth
		wantAction             []ActionAuth
	}{
		{"unchanged", opts{ActionAuth: cu}, opts{ActionAuth: cu}, none, none, nil, nil},
		{"CLAVE_UNICA to none", opts{ActionAuth: cu}, opts{}, none, none, nil, cu},
		{"CLAVE_UNICA to EXPLICIT_NONE", opts{ActionAuth: cu}, opts{ActionAuth: []ActionAuth{ActionAuthExplicitNone}}, none, none, nil, cu},
		{"FAO_HASH added as another way to sign", opts{ActionAuth: cu}, opts{ActionAuth: []ActionAuth{ActionAuthClaveUnica, ActionAuthFAOHash}}, none, none, nil,
			[]ActionAuth{ActionAuthFAOHash}},
		{"CLAVE_UNICA replaced by FAO_HASH", opts{ActionAuth: cu}, opts{ActionAuth: []ActionAuth{ActionAuthFAOHash}}, none, none, nil, []ActionAuth{ActionAuthFAOHash}},
		{"one way of two removed", opts{ActionAuth: []ActionAuth{ActionAuthPassword, ActionAuthPasskey}}, opts{ActionAuth: []ActionAuth{ActionAuthPasskey}}, none, none, nil, nil},
		{"none to CLAVE_UNICA", opts{}, opts{ActionAuth: cu}, none, none, nil, nil},
		{"access code removed", opts{AccessAuth: code}, opts{}, none, none, code, nil},
		{"access code added", opts{}, opts{AccessAuth: code}, none, none, nil, nil},
		{"both lost", opts{AccessAuth: code, ActionAuth: cu}, opts{}, none, none, code, cu},
		{"own list emptied onto the same global list", opts{ActionAuth: cu}, opts{},
			AuthOptions{GlobalActionAuth: cu}, AuthOptions{GlobalActionAuth: cu}, nil, nil},
		{"falling back on a global list that loses its method", opts{}, opts{},
			AuthOptions{GlobalAccessAuth: code}, none, code, nil},
		{"EXPLICIT_NONE dropped onto a global method", opts{ActionAuth: []ActionAuth{ActionAuthExplicitNone}}, opts{},
			AuthOptions{GlobalActionAuth: []ActionAuth{ActionAuthPassword}}, AuthOptions{GlobalActionAuth: []ActionAuth{ActionAuthPassword}}, nil, nil},
		{"own EXPLICIT_NONE waives a global method", opts{}, opts{ActionAuth: []ActionAuth{ActionAuthExplicitNone}},
			AuthOptions{GlobalActionAuth: []ActionAuth{ActionAuthPassword}}, AuthOptions{GlobalActionAuth: []ActionAuth{ActionAuthPassword}}, nil, []ActionAuth{ActionAuthPassword}},
		{"duplicates named once", opts{ActionAuth: []ActionAuth{ActionAuthClaveUnica, ActionAuthClaveUnica}}, opts{}, none, none, nil, cu},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			access, action := Weakened(RecipientAuth(tt.before, tt.beforeGlobal), RecipientAuth(tt.after, tt.afterGbl))
			if !slices.Equal(access, tt.wantAccess) || !slices.Equal(action, tt.wantAction) {
				t.Errorf("Weakened = %v, %v; want %v, %v", access, action, tt.wantAccess, tt.wantAction)
			}
		})
	}
}

func TestWeakenedGlobal(t *testing.T) {
	tests := []struct {
		name          string
		before, after AuthOptions
		wantAccess    []AccessAuth
		wantAction    []ActionAuth
	}{
		{"access code removed", AuthOptions{GlobalAccessAuth: []AccessAuth{AccessAuthTwoFactorAuth}}, AuthOptions{}, []AccessAuth{AccessAuthTwoFactorAuth}, nil},
		{"password replaced by passkey", AuthOptions{GlobalActionAuth: []ActionAuth{ActionAuthPassword}},
			AuthOptions{GlobalActionAuth: []ActionAuth{ActionAuthPasskey}}, nil, []ActionAuth{ActionAuthPasskey}},
		{"method added", AuthOptions{}, AuthOptions{GlobalActionAuth: []ActionAuth{ActionAuthPasskey}}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			access, action := Weakened(GlobalAuth(tt.before), GlobalAuth(tt.after))
			if !slices.Equal(access, tt.wantAccess) || !slices.Equal(action, tt.wantAction) {
				t.Errorf("Weakened = %v, %v; want %v, %v", access, action, tt.wantAccess, tt.wantAction)
			}
		})
	}
}
