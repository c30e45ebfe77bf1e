package envelope

import "testing"

func TestReplacesLink(t *testing.T) {
	run := func(s string) *string { return &s }
	base := Recipient{Email: "ana@example.cl", Name: "Ana", Role: RoleSigner,
		AuthOptions: RecipientAuthOptions{AccessAuth: []AccessAuth{AccessAuthTwoFactorAuth}, ActionAuth: []ActionAuth{ActionAuthClaveUnica}}}
	for _, tt := range []struct {
		name   string
		change func(*Recipient)
		want   bool
	}{
		{"nothing", func(*Recipient) {}, false},
		{"the name", func(r *Recipient) { r.Name = "Ana María" }, false},
		{"the role", func(r *Recipient) { r.Role = RoleApprover }, false},
		{"the signing order", func(r *Recipient) { o := 2; r.SigningOrder = &o }, false},
		{"the email's case and spaces", func(r *Recipient) { r.Email = " Ana@Example.CL " }, false},
		{"the same auth in another order", func(r *Recipient) {
			r.AuthOptions.ActionAuth = []ActionAuth{ActionAuthClaveUnica, ActionAuthClaveUnica}
		}, false},
		{"the email", func(r *Recipient) { r.Email = "otra@example.cl" }, true},
		{"the email cleared", func(r *Recipient) { r.Email = "" }, true},
		{"access auth removed", func(r *Recipient) { r.AuthOptions.AccessAuth = nil }, true},
		{"action auth changed", func(r *Recipient) { r.AuthOptions.ActionAuth = []ActionAuth{ActionAuthFAOHash} }, true},
		{"an expected RUN set", func(r *Recipient) { r.ExpectedRUT = run("11111111-1") }, true},
	} {
		next := base
		next.AuthOptions = RecipientAuthOptions{AccessAuth: append([]AccessAuth(nil), base.AuthOptions.AccessAuth...),
			ActionAuth: append([]ActionAuth(nil), base.AuthOptions.ActionAuth...)}
		tt.change(&next)
		if got := ReplacesLink(base, next); got != tt.want {
			t.Errorf("%s: ReplacesLink = %v, want %v", tt.name, got, tt.want)
		}
	}
	withRUN := base
	withRUN.ExpectedRUT = run("11111111-1")
	other := withRUN
	other.ExpectedRUT = run("22222222-2")
	if !ReplacesLink(withRUN, other) || ReplacesLink(withRUN, withRUN) {
		t.Error("another expected RUN must replace the link, the same one must not")
	}
}

func TestCheckExpectedRUT(t *testing.T) {
	run := "11111111-1"
	for _, tt := range []struct {
		name   string
		rec    Recipient
		global AuthOptions
		fields []Field
		ok     bool
	}{
		{"no expected RUN", Recipient{ID: 1}, AuthOptions{}, nil, true},
		{"Clave Única asked of the recipient", Recipient{ID: 1, ExpectedRUT: &run, AuthOptions: RecipientAuthOptions{ActionAuth: []ActionAuth{ActionAuthClaveUnica}}}, AuthOptions{}, nil, true},
		{"FAO_HASH asked by the envelope", Recipient{ID: 1, ExpectedRUT: &run}, AuthOptions{GlobalActionAuth: []ActionAuth{ActionAuthFAOHash}}, nil, true},
		{"a RUT_FIRMADO field of its own", Recipient{ID: 1, ExpectedRUT: &run}, AuthOptions{}, []Field{{RecipientID: 1, Type: FieldRUTFirmado}}, true},
		{"nothing proves a RUN", Recipient{ID: 1, ExpectedRUT: &run}, AuthOptions{}, nil, false},
		{"only an access code", Recipient{ID: 1, ExpectedRUT: &run, AuthOptions: RecipientAuthOptions{AccessAuth: []AccessAuth{AccessAuthTwoFactorAuth}}}, AuthOptions{}, nil, false},
		{"another recipient's RUT_FIRMADO field", Recipient{ID: 1, ExpectedRUT: &run}, AuthOptions{}, []Field{{RecipientID: 2, Type: FieldRUTFirmado}}, false},
		{"EXPLICIT_NONE waives the envelope's", Recipient{ID: 1, ExpectedRUT: &run, AuthOptions: RecipientAuthOptions{ActionAuth: []ActionAuth{ActionAuthExplicitNone}}},
			AuthOptions{GlobalActionAuth: []ActionAuth{ActionAuthClaveUnica}}, nil, false},
	} {
		var p Problems
		CheckExpectedRUT(&p, "expectedRut", tt.rec, tt.global, tt.fields)
		if (p.Err() == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, p.Err())
		}
	}
}

func TestSameEmail(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"ana@example.cl", "ana@example.cl", true},
		{" Ana@Example.CL ", "ana@example.cl", true},
		{"ana@example.cl", "ana@example.co", false},
		{"ana@example.cl", "", false},
		{"ſam@example.cl", "sam@example.cl", false},      // long s: Unicode folds it onto s
		{"\u212Aim@example.cl", "kim@example.cl", false}, // the Kelvin sign folds onto k
		{"Éva@example.cl", "éva@example.cl", false},      // beyond ASCII, as written
		{"éva@example.cl", "éva@example.cl", true},
	} {
		if got := SameEmail(c.a, c.b); got != c.want {
			t.Errorf("SameEmail(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
