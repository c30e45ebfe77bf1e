package envelope

import "slices"

// AuthMethods are authentication methods in force: what a recipient must pass before seeing the
// document (Access) and before signing (Action).
type AuthMethods struct {
	Access []AccessAuth
	Action []ActionAuth
}

// RecipientAuth is what is in force for a recipient with options rec on an envelope with global
// options: the recipient's own list, else the envelope's (an empty list falls back, as
// RequiredProofs reads them). EXPLICIT_NONE among the action methods waives them all: no action
// method is then in force.
func RecipientAuth(rec RecipientAuthOptions, global AuthOptions) AuthMethods {
	access, action := rec.AccessAuth, rec.ActionAuth
	if len(access) == 0 {
		access = global.GlobalAccessAuth
	}
	if len(action) == 0 {
		action = global.GlobalActionAuth
	}
	if slices.Contains(action, ActionAuthExplicitNone) {
		action = nil
	}
	return AuthMethods{Access: access, Action: action}
}

// GlobalAuth is what the envelope's own lists put in force for every recipient without lists
// of its own.
func GlobalAuth(global AuthOptions) AuthMethods {
	return AuthMethods{Access: global.GlobalAccessAuth, Action: global.GlobalActionAuth}
}

// Weakened lists what makes after weaker than before: the access methods lost (every access
// method must be passed, so each one removed weakens), and the action methods that loosen the
// action (any one action method completes, so each one added is a new way to sign; when after
// asks none, every method of before). Replacing one method by another (CLAVE_UNICA by
// FAO_HASH) weakens: the recipient would no longer pass the check the sender chose. Removing an
// action method from a list of several, or adding an access method, never weakens. Once an
// envelope is PENDING its recipients' authentication, and the envelope's, may only keep its
// methods or be strengthened (the API refuses the rest with a 400 naming the field); a sender
// who must loosen it cancels and sends a new envelope.
func Weakened(before, after AuthMethods) (access []AccessAuth, action []ActionAuth) {
	for _, a := range before.Access {
		if !slices.Contains(after.Access, a) && !slices.Contains(access, a) {
			access = append(access, a)
		}
	}
	if len(before.Action) == 0 {
		return access, nil
	}
	lost := after.Action
	if len(after.Action) == 0 {
		lost = before.Action
	}
	for _, a := range lost {
		if len(after.Action) == 0 && !slices.Contains(action, a) {
			action = append(action, a)
			continue
		}
		if !slices.Contains(before.Action, a) && !slices.Contains(action, a) {
			action = append(action, a)
		}
	}
	return access, action
}

// ProofsLost lists what a recipient had to prove before a change (before) that it no longer
// has to after it: an access method ("TWO_FACTOR_AUTH", "ACCOUNT") dropped; the action loosened
// (Weakened: each action method added, or every one when none is left); "CLAVE_UNICA" when the
// login a RUT_FIRMADO field asked for is no longer asked; and "expectedRut" when the RUN every
// proof must name is removed or changed. The authentication lists are only one way to lose a
// proof; deleting a recipient's RUT_FIRMADO field, or changing its expected RUN, loses one too.
// Once an envelope is PENDING no change may lose any (the API refuses it with a 400 naming the
// field); a recipient who must prove something is never removed from a sent envelope either,
// which would let the sender add them again without it.
func ProofsLost(before, after Proofs) []string {
	var lost []string
	add := func(name string) {
		if !slices.Contains(lost, name) {
			lost = append(lost, name)
		}
	}
	if before.AccessCode && !after.AccessCode {
		add(string(AccessAuthTwoFactorAuth))
	}
	if before.AccessAccount && !after.AccessAccount {
		add(string(AccessAuthAccount))
	}
	_, action := Weakened(AuthMethods{Action: before.Action}, AuthMethods{Action: after.Action})
	for _, a := range action {
		add(string(a))
	}
	if before.ClaveUnica() && !after.ClaveUnica() {
		add(string(ActionAuthClaveUnica))
	}
	if before.ExpectedRUT != "" && after.ExpectedRUT != before.ExpectedRUT {
		add("expectedRut")
	}
	return lost
}

// MustProve reports whether p asks the recipient to prove anything.
func (p Proofs) MustProve() bool {
	return p.AccessCode || p.AccessAccount || len(p.Action) > 0 || p.RUTFirmado || p.ExpectedRUT != ""
}
