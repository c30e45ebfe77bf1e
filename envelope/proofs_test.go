package envelope

import (
	"slices"
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
		{"the envelope's options when the recipient has none", rec(nil, nil), global, nil, Proofs{AccessCode: true, Action: []ActionAuth{ActionAuthFAOHash}}},
		{"the recipient's own options first", rec(nil, []ActionAuth{ActionAuthClaveUnica}), global, nil,
			Proofs{AccessCode: true, Action: []ActionAuth{ActionAuthClaveUnica}}},
		{"EXPLICIT_NONE waives action proofs", rec(nil, []ActionAuth{ActionAuthExplicitNone, ActionAuthFAOHash}), global, nil, Proofs{AccessCode: true}},
		{"a RUT_FIRMADO field asks for Clave Única", rec(nil, nil), AuthOptions{}, rutFirmado, Proofs{RUTFirmado: true}},
		{"another recipient's RUT_FIRMADO field does not", rec(nil, nil), AuthOptions{}, []Field{{RecipientID: 8, Type: FieldRUTFirmado}}, Proofs{}},
		{"the expected RUN comes along", Recipient{ID: 7, ExpectedRUT: func() *string { s := "11111111-1"; return &s }()}, AuthOptions{}, nil,
			Proofs{ExpectedRUT: "11111111-1"}},
		{"account methods", rec([]AccessAuth{AccessAuthAccount}, []ActionAuth{ActionAuthPasskey, ActionAuthPassword, ActionAuthPasskey}), AuthOptions{}, nil,
			Proofs{AccessAccount: true, Action: []ActionAuth{ActionAuthPasskey, ActionAuthPassword}}},
	} {
		got := RequiredProofs(c.rec, c.global, c.fields)
		if got.AccessCode != c.want.AccessCode || got.AccessAccount != c.want.AccessAccount || got.RUTFirmado != c.want.RUTFirmado ||
			got.ExpectedRUT != c.want.ExpectedRUT || !slices.Equal(got.Action, c.want.Action) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	p := Proofs{Action: []ActionAuth{ActionAuthPassword}}
	if !p.NeedsAccount() || p.Identity() || !(Proofs{RUTFirmado: true}).ClaveUnica() || (Proofs{Action: []ActionAuth{ActionAuthClaveUnica}}).NeedsAccount() {
		t.Error("NeedsAccount, Identity or ClaveUnica")
	}
}

func TestCheckCompletion(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) *time.Time { t := now.Add(-ago); return &t }
	const email = "ana@example.cl"
	ana := &SignedIn{ID: 3, Email: "Ana@Example.cl", EmailVerified: true}
	full := SessionProofs{RecipientID: 7, AccessVerified: true, ClaveUnicaRUN: "11111111-1", ClaveUnicaAt: at(time.Minute),
		FEARUT: "11111111-1", FEADigest: "d1", FEAAt: at(time.Minute),
		Account: ana, PasswordAt: at(time.Minute), TOTPAt: at(time.Minute), PasskeyAt: at(time.Minute)}
	with := func(change func(*SessionProofs)) *SessionProofs { s := full; change(&s); return &s }
	only := func(change func(*SessionProofs)) *SessionProofs {
		s := &SessionProofs{RecipientID: 7}
		change(s)
		return s
	}
	action := func(m ...ActionAuth) Proofs { return Proofs{Action: m} }
	identity := action(ActionAuthClaveUnica, ActionAuthFAOHash)
	for _, c := range []struct {
		name    string
		proofs  Proofs
		role    Role
		session *SessionProofs
		digest  string
		want    Code // "" when allowed
	}{
		{"nothing asked, no session", Proofs{}, RoleSigner, nil, "", ""},
		{"everything proved in this session", Proofs{AccessCode: true, AccessAccount: true, Action: identity.Action}, RoleSigner, &full, "d1", ""},
		{"no session", identity, RoleSigner, nil, "d1", CodeUnauthorized},
		{"another recipient's session", identity, RoleSigner, with(func(s *SessionProofs) { s.RecipientID = 8 }), "d1", CodeUnauthorized},
		{"no access code", Proofs{AccessCode: true}, RoleSigner, with(func(s *SessionProofs) { s.AccessVerified = false }), "d1", CodeUnauthorized},

		// Any one action method completes.
		{"Clave Única alone of two", identity, RoleSigner, with(func(s *SessionProofs) { s.FEARUT, s.FEAAt = "", nil }), "d1", ""},
		{"the advanced signature alone of two", identity, RoleSigner, with(func(s *SessionProofs) { s.ClaveUnicaRUN, s.ClaveUnicaAt = "", nil }), "d1", ""},
		{"neither of two", identity, RoleSigner, only(func(*SessionProofs) {}), "d1", CodeUnauthorized},
		{"a password among account methods", action(ActionAuthPasskey, ActionAuthPassword), RoleSigner,
			only(func(s *SessionProofs) { s.Account, s.PasswordAt = ana, at(time.Minute) }), "", ""},
		{"a password where only a passkey counts", action(ActionAuthPasskey), RoleSigner,
			only(func(s *SessionProofs) { s.Account, s.PasswordAt = ana, at(time.Minute) }), "", CodeUnauthorized},
		{"a password to a Clave Única envelope with a password", action(ActionAuthClaveUnica, ActionAuthPassword), RoleSigner,
			only(func(s *SessionProofs) { s.Account, s.PasswordAt = ana, at(time.Minute) }), "", ""},

		// Identity proofs.
		{"no Clave Única login in this session", action(ActionAuthClaveUnica), RoleSigner, with(func(s *SessionProofs) { s.ClaveUnicaRUN, s.ClaveUnicaAt = "", nil }), "d1", CodeUnauthorized},
		{"a stale Clave Única login", action(ActionAuthClaveUnica), RoleSigner, with(func(s *SessionProofs) { s.ClaveUnicaAt = at(16 * time.Minute) }), "d1", CodeUnauthorized},
		{"a login at the age limit", action(ActionAuthClaveUnica), RoleSigner, with(func(s *SessionProofs) { s.ClaveUnicaAt = at(15 * time.Minute) }), "d1", ""},
		{"no advanced signature", action(ActionAuthFAOHash), RoleSigner, with(func(s *SessionProofs) { s.FEARUT, s.FEAAt = "", nil }), "d1", CodeUnauthorized},
		{"a stale advanced signature", action(ActionAuthFAOHash), RoleSigner, with(func(s *SessionProofs) { s.FEAAt = at(time.Hour) }), "d1", CodeUnauthorized},
		{"values changed after the advanced signature", action(ActionAuthFAOHash), RoleSigner, &full, "d2", CodeUnauthorized},
		{"certificate and login of two people", identity, RoleSigner, with(func(s *SessionProofs) { s.FEARUT = "22222222-2" }), "d1", CodeRUTMismatch},
		{"a RUT_FIRMADO field needs the login whatever else is proved", Proofs{RUTFirmado: true, Action: action(ActionAuthPassword).Action}, RoleSigner,
			with(func(s *SessionProofs) { s.ClaveUnicaRUN, s.ClaveUnicaAt = "", nil }), "d1", CodeUnauthorized},
		{"a RUT_FIRMADO field and its login", Proofs{RUTFirmado: true}, RoleSigner, only(func(s *SessionProofs) { s.ClaveUnicaRUN, s.ClaveUnicaAt = "1-9", at(0) }), "", ""},
		{"the expected RUN proved", Proofs{Action: identity.Action, ExpectedRUT: "11111111-1"}, RoleSigner, &full, "d1", ""},
		{"an expected RUN that nothing asks to prove", Proofs{ExpectedRUT: "11111111-1"}, RoleSigner, &full, "d1", CodeAuthUnavailable},
		{"an expected RUN is not proved by a password", Proofs{Action: action(ActionAuthClaveUnica, ActionAuthPassword).Action, ExpectedRUT: "11111111-1"}, RoleSigner,
			only(func(s *SessionProofs) { s.Account, s.PasswordAt = ana, at(time.Minute) }), "", CodeUnauthorized},
		{"another RUN than the expected one", Proofs{Action: action(ActionAuthClaveUnica).Action, ExpectedRUT: "22222222-2"}, RoleSigner, &full, "d1", CodeRUTMismatch},
		{"a certificate of another RUN than the expected one", Proofs{Action: action(ActionAuthFAOHash).Action, ExpectedRUT: "11111111-1"}, RoleSigner,
			with(func(s *SessionProofs) { s.ClaveUnicaRUN, s.ClaveUnicaAt, s.FEARUT = "", nil, "33333333-3" }), "d1", CodeRUTMismatch},

		// Accounts.
		{"ACCOUNT signed in", action(ActionAuthAccount), RoleSigner, only(func(s *SessionProofs) { s.Account = ana }), "", ""},
		{"ACCOUNT not signed in", action(ActionAuthAccount), RoleSigner, only(func(*SessionProofs) {}), "", CodeAccountRequired},
		{"ACCOUNT of another address", action(ActionAuthAccount), RoleSigner,
			only(func(s *SessionProofs) { s.Account = &SignedIn{ID: 4, Email: "eve@example.cl", EmailVerified: true} }), "", CodeAccountMismatch},
		{"ACCOUNT unverified", action(ActionAuthAccount), RoleSigner,
			only(func(s *SessionProofs) { s.Account = &SignedIn{ID: 3, Email: email} }), "", CodeEmailUnverified},
		{"a password without being signed in", action(ActionAuthPassword), RoleSigner, only(func(s *SessionProofs) { s.PasswordAt = at(0) }), "", CodeAccountRequired},
		{"a stale password", action(ActionAuthPassword), RoleSigner, with(func(s *SessionProofs) { s.PasswordAt = at(6 * time.Minute) }), "", CodeUnauthorized},
		{"a password at the age limit", action(ActionAuthPassword), RoleSigner, with(func(s *SessionProofs) { s.PasswordAt = at(5 * time.Minute) }), "", ""},
		{"an authenticator code", action(ActionAuthTwoFactorAuth), RoleSigner, only(func(s *SessionProofs) { s.Account, s.TOTPAt = ana, at(0) }), "", ""},
		{"no authenticator code", action(ActionAuthTwoFactorAuth), RoleSigner, only(func(s *SessionProofs) { s.Account = ana }), "", CodeUnauthorized},
		{"a passkey", action(ActionAuthPasskey), RoleSigner, only(func(s *SessionProofs) { s.Account, s.PasskeyAt = ana, at(0) }), "", ""},
		{"a passkey from the future", action(ActionAuthPasskey), RoleSigner, only(func(s *SessionProofs) { s.Account, s.PasskeyAt = ana, at(-2*time.Minute) }), "", CodeUnauthorized},
		{"ACCOUNT access needs the account", Proofs{AccessAccount: true}, RoleSigner, only(func(*SessionProofs) {}), "", CodeAccountRequired},
		{"ACCOUNT access with it", Proofs{AccessAccount: true}, RoleViewer, only(func(s *SessionProofs) { s.Account = ana }), "", ""},

		// Roles.
		{"a CC needs the access proofs only", Proofs{AccessCode: true, Action: identity.Action}, RoleCC, &SessionProofs{RecipientID: 7, AccessVerified: true}, "", ""},
		{"an approver proves as a signer does", action(ActionAuthClaveUnica), RoleApprover, &SessionProofs{RecipientID: 7}, "", CodeUnauthorized},
	} {
		err := CheckCompletion(c.proofs, c.role, 7, email, c.session, c.digest, now, DefaultProofMaxAge)
		var got Code
		if err != nil {
			got = ErrorCode(err)
		}
		if got != c.want {
			t.Errorf("%s: %v, want code %q", c.name, err, c.want)
		}
	}
}

func TestFilledElsewhere(t *testing.T) {
	signer := Recipient{ID: 1, Role: RoleSigner}
	assistant := Recipient{ID: 3, Role: RoleAssistant}
	proved := Proofs{Action: []ActionAuth{ActionAuthClaveUnica}}
	by := func(id int64) *int64 { return &id }
	fields := []Field{
		{ID: 10, RecipientID: 1, Type: FieldText, FilledBy: "here"},                      // this session's
		{ID: 11, RecipientID: 1, Type: FieldText, FilledBy: "other"},                     // another session's
		{ID: 12, RecipientID: 1, Type: FieldText, FilledBy: "link"},                      // the bare link's
		{ID: 13, RecipientID: 1, Type: FieldText, FilledBy: FilledBySender},              // the sender's
		{ID: 14, RecipientID: 1, Type: FieldText},                                        // untouched
		{ID: 15, RecipientID: 1, Type: FieldText, FilledBy: "other", PrefilledBy: by(3)}, // an assistant's, shown as such
		{ID: 16, RecipientID: 1, Type: FieldRUTFirmado, FilledBy: "other"},               // filled from the proof
		{ID: 17, RecipientID: 1, Type: FieldDate, FilledBy: "other"},                     // filled at completion
		{ID: 18, RecipientID: 2, Type: FieldText, FilledBy: "other"},                     // another recipient's
		{ID: 19, RecipientID: 2, Type: FieldText, FilledBy: "other", PrefilledBy: by(3)}, // the assistant's prefill, typed elsewhere
		{ID: 20, RecipientID: 2, Type: FieldText, FilledBy: "here", PrefilledBy: by(3)},  // the assistant's prefill, typed here
		{ID: 21, RecipientID: 3, Type: FieldSignature, FilledBy: "other"},                // the assistant's own
	}
	for _, tt := range []struct {
		name   string
		proofs Proofs
		rec    Recipient
		want   []int64
	}{
		{"a signer who proves: its own values typed elsewhere", proved, signer, []int64{11, 12}},
		{"a RUT_FIRMADO asks for a proof too", Proofs{RUTFirmado: true}, signer, []int64{11, 12}},
		{"no proof asked: any browser's values", Proofs{}, signer, nil},
		{"a CC acts on nothing", proved, Recipient{ID: 1, Role: RoleCC}, nil},
		{"an assistant who proves: its own, and its prefills typed elsewhere", proved, assistant, []int64{15, 19, 21}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := FilledElsewhere(tt.proofs, tt.rec, "here", fields); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
