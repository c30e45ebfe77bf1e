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

// Weakened lists the methods in force in before that after no longer has: the access methods
// and the action methods lost. Authentication after is weaker than before when either list is
// not empty. Every method counts alone: removing one (CLAVE_UNICA to none, the mailed access
// code TWO_FACTOR_AUTH removed, EXPLICIT_NONE added) weakens, and so does replacing one by
// another (CLAVE_UNICA by FAO_HASH: the recipient would no longer pass the check the sender
// chose when sending). Adding methods never weakens. Once an envelope is PENDING its recipients'
// authentication, and the envelope's, may only keep or gain methods (the API refuses the rest
// with a 400 naming the field); a sender who must loosen it cancels and sends a new envelope.
func Weakened(before, after AuthMethods) (access []AccessAuth, action []ActionAuth) {
	for _, a := range before.Access {
		if !slices.Contains(after.Access, a) && !slices.Contains(access, a) {
			access = append(access, a)
		}
	}
	for _, a := range before.Action {
		if !slices.Contains(after.Action, a) && !slices.Contains(action, a) {
			action = append(action, a)
		}
	}
	return access, action
}

// ProofsLost lists what a recipient had to prove before a change (before) that it no longer
// has to after it: the mailed access code ("TWO_FACTOR_AUTH"), "CLAVE_UNICA" (asked by the
// action auth or by a RUT_FIRMADO field), "FAO_HASH", and "expectedRut" when the RUN every proof
// must name is removed or changed. The authentication lists are only one way to lose a proof;
// deleting a recipient's RUT_FIRMADO field, or changing its expected RUN, loses one too. Once an
// envelope is PENDING no change may lose any (the API refuses it with a 400 naming the field);
// a recipient who must prove something is never removed from a sent envelope either, which
// would let the sender add them again without it.
func ProofsLost(before, after Proofs) []string {
	var lost []string
	if before.AccessCode && !after.AccessCode {
		lost = append(lost, string(AccessAuthTwoFactorAuth))
	}
	if before.ClaveUnica && !after.ClaveUnica {
		lost = append(lost, string(ActionAuthClaveUnica))
	}
	if before.FAOHash && !after.FAOHash {
		lost = append(lost, string(ActionAuthFAOHash))
	}
	if before.ExpectedRUT != "" && after.ExpectedRUT != before.ExpectedRUT {
		lost = append(lost, "expectedRut")
	}
	return lost
}

// MustProve reports whether p asks the recipient to prove anything.
func (p Proofs) MustProve() bool {
	return p.AccessCode || p.ClaveUnica || p.FAOHash || p.ExpectedRUT != ""
}
