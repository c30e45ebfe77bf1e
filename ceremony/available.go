package ceremony

import (
	"strings"

	"github.com/sobre-sign/sobre/envelope"
)

// Unavailable lists the methods p asks for or offers that this server cannot take: Clave Única
// or FAO_HASH not configured, no signer accounts, passkeys without a relying party, access codes
// without mail.
func (s *Service) Unavailable(p envelope.Proofs) []string {
	var out []string
	add := func(m string) {
		for _, o := range out {
			if o == m {
				return
			}
		}
		out = append(out, m)
	}
	if p.AccessCode && s.Mail == nil {
		add(string(envelope.AccessAuthTwoFactorAuth))
	}
	if p.AccessAccount && s.Accounts == nil {
		add(string(envelope.AccessAuthAccount))
	}
	if p.RUTFirmado && s.ClaveUnica == nil {
		add(string(envelope.ActionAuthClaveUnica))
	}
	for _, m := range p.Action {
		if !s.takes(m) {
			add(string(m))
		}
	}
	return out
}

// takes reports whether this server can take action method m.
func (s *Service) takes(m envelope.ActionAuth) bool {
	switch m {
	case envelope.ActionAuthClaveUnica:
		return s.ClaveUnica != nil
	case envelope.ActionAuthFAOHash:
		return s.FEA != nil
	case envelope.ActionAuthPasskey:
		return s.Accounts != nil && s.Accounts.WebAuthn != nil
	case envelope.ActionAuthAccount, envelope.ActionAuthPassword, envelope.ActionAuthTwoFactorAuth:
		return s.Accounts != nil
	}
	return false
}

// CheckSignable refuses requirements p that no signer could meet on this server: an access
// method or the Clave Única login of a RUT_FIRMADO field it cannot take, or action methods none
// of which it can take (with an expected RUN: neither CLAVE_UNICA nor FAO_HASH). A recipient
// under them would get the link and never be able to sign.
func (s *Service) CheckSignable(p envelope.Proofs) error {
	unavailable := s.Unavailable(p)
	if len(unavailable) == 0 {
		return nil
	}
	trapped := (p.AccessCode && s.Mail == nil) || (p.AccessAccount && s.Accounts == nil) || (p.RUTFirmado && s.ClaveUnica == nil)
	if len(p.Action) > 0 {
		any := false
		for _, m := range p.Action {
			if s.takes(m) && (p.ExpectedRUT == "" || m == envelope.ActionAuthClaveUnica || m == envelope.ActionAuthFAOHash) {
				any = true
			}
		}
		trapped = trapped || !any
	}
	if !trapped {
		return nil
	}
	return envelope.Errorf(envelope.CodeAuthUnavailable, "This server cannot take %s, which this recipient would need to sign; choose another method",
		strings.Join(unavailable, ", "))
}
