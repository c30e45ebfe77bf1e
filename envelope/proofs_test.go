package envelope

import (
	"testing"
	"time"
)

func TestRequiredProofs(t *testing.T) {
	rec := func(access []AccessAuth, action []ActionAuth) Recipient {
		return Recipient{ID: 7, AuthOptions: RecipientAuthOptions{AccessAuth: access, ActionAuth: action}}
	}
	global := AuthOptions{GlobalAccessAuth: []AccessAuth{AccessAuthTwoFactorAuth}, GlobalActionAuth: []ActionAuth{ActionAuthFAOHash}}
	rutFirmado := []Field{{RecipientID: 7, Type: FieldRUTFirmado}}
	for _, c := range []struct {
		name   string
		rec    Recipient
		global AuthOptions
		fields []Field
		want   Proofs
	}{
		{"nothing asked", rec(nil, nil), AuthOptions{}, nil, Proofs{}},
		{"the envelope's options when the recipient has none", rec(nil, nil), global, nil, Proofs{AccessCode: true, FAOHash: true}},
		{"the recipient's own options first", rec(nil, []ActionAuth{ActionAuthClaveUnica}), global, nil, Proofs{AccessCode: true, ClaveUnica: true}},
		{"EXPLICIT_NONE waives action proofs", rec(nil, []ActionAuth{ActionAuthExplicitNone, ActionAuthFAOHash}), global, nil, Proofs{AccessCode: true}},
		{"a RUT_FIRMADO field asks for Clave Única", rec(nil, nil), AuthOptions{}, rutFirmado, Proofs{ClaveUnica: true}},
		{"another recipient's RUT_FIRMADO field does not", rec(nil, nil), AuthOptions{}, []Field{{RecipientID: 8, Type: FieldRUTFirmado}}, Proofs{}},
		{"the expected RUN comes along", Recipient{ID: 7, ExpectedRUT: func() *string { s := "11111111-1"; return &s }()}, AuthOptions{}, nil,
			Proofs{ExpectedRUT: "11111111-1"}},
		{"account methods are unavailable", rec([]AccessAuth{AccessAuthAccount}, []ActionAuth{ActionAuthPasskey}), AuthOptions{}, nil,
			Proofs{Unavailable: []string{"ACCOUNT", "PASSKEY"}}},
	} {
		got := RequiredProofs(c.rec, c.global, c.fields)
		if got.AccessCode != c.want.AccessCode || got.ClaveUnica != c.want.ClaveUnica || got.FAOHash != c.want.FAOHash ||
			len(got.Unavailable) != len(c.want.Unavailable) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestCheckCompletion(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) *time.Time { t := now.Add(-ago); return &t }
	full := SessionProofs{RecipientID: 7, AccessVerified: true, ClaveUnicaRUN: "11111111-1", ClaveUnicaAt: at(time.Minute),
		FEARUT: "11111111-1", FEADigest: "d1", FEAAt: at(time.Minute)}
	with := func(change func(*SessionProofs)) *SessionProofs { s := full; change(&s); return &s }
	all := Proofs{AccessCode: true, ClaveUnica: true, FAOHash: true}
	for _, c := range []struct {
		name    string
		proofs  Proofs
		role    Role
		session *SessionProofs
		digest  string
		want    Code // "" when allowed
	}{
		{"nothing asked, no session", Proofs{}, RoleSigner, nil, "", ""},
		{"everything proved in this session", all, RoleSigner, &full, "d1", ""},
		{"no session", all, RoleSigner, nil, "d1", CodeUnauthorized},
		{"another recipient's session", all, RoleSigner, with(func(s *SessionProofs) { s.RecipientID = 8 }), "d1", CodeUnauthorized},
		{"no access code", all, RoleSigner, with(func(s *SessionProofs) { s.AccessVerified = false }), "d1", CodeUnauthorized},
		{"no Clave Única login in this session", all, RoleSigner, with(func(s *SessionProofs) { s.ClaveUnicaRUN, s.ClaveUnicaAt = "", nil }), "d1", CodeUnauthorized},
		{"a stale Clave Única login", all, RoleSigner, with(func(s *SessionProofs) { s.ClaveUnicaAt = at(16 * time.Minute) }), "d1", CodeUnauthorized},
		{"a login at the age limit", all, RoleSigner, with(func(s *SessionProofs) { s.ClaveUnicaAt = at(15 * time.Minute) }), "d1", ""},
		{"no advanced signature", all, RoleSigner, with(func(s *SessionProofs) { s.FEARUT, s.FEAAt = "", nil }), "d1", CodeUnauthorized},
		{"a stale advanced signature", all, RoleSigner, with(func(s *SessionProofs) { s.FEAAt = at(time.Hour) }), "d1", CodeUnauthorized},
		{"values changed after the advanced signature", all, RoleSigner, &full, "d2", CodeUnauthorized},
		{"certificate and login of two people", all, RoleSigner, with(func(s *SessionProofs) { s.FEARUT = "22222222-2" }), "d1", CodeRUTMismatch},
		{"a CC needs the access code only", all, RoleCC, &SessionProofs{RecipientID: 7, AccessVerified: true}, "", ""},
		{"an approver proves as a signer does", Proofs{ClaveUnica: true}, RoleApprover, &SessionProofs{RecipientID: 7}, "", CodeUnauthorized},
		{"an unavailable method", Proofs{Unavailable: []string{"PASSKEY"}}, RoleSigner, &full, "d1", CodeAuthUnavailable},
		{"the expected RUN proved", Proofs{ClaveUnica: true, FAOHash: true, ExpectedRUT: "11111111-1"}, RoleSigner, &full, "d1", ""},
		{"an expected RUN that nothing asks to prove", Proofs{ExpectedRUT: "11111111-1"}, RoleSigner, &full, "d1", CodeAuthUnavailable},
		{"another RUN than the expected one", Proofs{ClaveUnica: true, ExpectedRUT: "22222222-2"}, RoleSigner, &full, "d1", CodeRUTMismatch},
		{"a certificate of another RUN than the expected one", Proofs{FAOHash: true, ExpectedRUT: "11111111-1"}, RoleSigner,
			with(func(s *SessionProofs) { s.ClaveUnicaRUN, s.ClaveUnicaAt, s.FEARUT = "", nil, "33333333-3" }), "d1", CodeRUTMismatch},
	} {
		err := CheckCompletion(c.proofs, c.role, 7, c.session, c.digest, now, DefaultProofMaxAge)
		var got Code
		if err != nil {
			got = ErrorCode(err)
		}
		if got != c.want {
			t.Errorf("%s: %v, want code %q", c.name, err, c.want)
		}
	}
}
