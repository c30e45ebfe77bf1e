package main

import (
	"fmt"
	"net/url"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/auth/claveunica"
	"github.com/sobre-sign/sobre/auth/fea"
	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/seal"
	"github.com/sobre-sign/sobre/workflows"
)

// publicHost is the host of the public URL, the domain of Sobre's Message-IDs.
func publicHost(public string) string {
	u, err := url.Parse(public)
	if err != nil || u.Hostname() == "" {
		return "sobre.localhost"
	}
	return u.Hostname()
}

// ceremony builds the signing ceremony's service: mail for access codes, the envelope workflows
// it tells of a locked code entry, Clave Única and the FAO_HASH verifier (trust roots, accepted
// policies, revocation mode) when configured.
func (p *process) ceremony(flows *workflows.Client) (*ceremony.Service, error) {
	sender, err := mail.NewSender(p.cfg.SMTPURL, p.cfg.MailFrom)
	if err != nil {
		return nil, err
	}
	s := &ceremony.Service{
		Store:     p.store,
		Mail:      sender,
		MailHost:  publicHost(p.cfg.PublicURL),
		PublicURL: p.cfg.PublicURL,
		Log:       p.log,

		ProofMaxAge:     p.cfg.ActionProofMaxAge,
		MaxCodeFailures: p.cfg.AccessCodeMaxFailures,
		TellOwner:       flows.Refresh,
	}
	// Signer accounts; passkeys need a relying party, which a public URL on a non-loopback IP
	// address cannot be (browsers refuse WebAuthn there): then passkeys alone are unavailable.
	relyingParty, err := account.NewWebAuthn(p.cfg.PublicURL)
	if err != nil {
		p.log.Warn("passkeys are unavailable", "err", err)
		relyingParty = nil
	}
	s.Accounts = &account.Service{Store: p.store, Mail: sender, MailHost: publicHost(p.cfg.PublicURL), PublicURL: p.cfg.PublicURL,
		WebAuthn: relyingParty, Log: p.log}
	if p.cfg.ClaveUnicaIssuerURL != "" {
		s.ClaveUnica = claveunica.New(claveunica.Config{
			IssuerURL: p.cfg.ClaveUnicaIssuerURL, ClientID: p.cfg.ClaveUnicaClientID, ClientSecret: p.cfg.ClaveUnicaClientSecret,
			RedirectURL: p.cfg.PublicURL + "/auth/claveunica/callback", LogoutURL: p.cfg.ClaveUnicaLogoutURL,
		})
	}
	if p.cfg.FEATrustRoots != "" {
		roots, err := fea.LoadTrustRoots(p.cfg.FEATrustRoots)
		if err != nil {
			return nil, err
		}
		policies, err := fea.ParsePolicies(p.cfg.FEAPolicyOIDs)
		if err != nil {
			return nil, err
		}
		mode, err := fea.ParseRevocationMode(p.cfg.FEARevocation)
		if err != nil {
			return nil, err
		}
		s.FEA = &fea.Verifier{Roots: roots, Policies: policies, Revocation: mode}
	}
	return s, nil
}

// sealSigner loads the seal that signs completed envelopes: a P12, PEM files, or else a
// self-signed development seal kept in SOBRE_SEAL_DEV_DIR (said once in the log).
func (p *process) sealSigner() (*seal.Signer, error) {
	var s *seal.Signer
	var err error
	switch {
	case p.cfg.SealP12 != "":
		s, err = seal.LoadP12(p.cfg.SealP12, p.cfg.SealP12Password)
	case p.cfg.SealCertFile != "" || p.cfg.SealKeyFile != "":
		s, err = seal.LoadPEM(p.cfg.SealCertFile, p.cfg.SealKeyFile)
	default:
		var created bool
		s, created, err = seal.DevSeal(p.cfg.SealDevDir)
		if err == nil {
			p.log.Warn("no SOBRE_SEAL_P12 or SOBRE_SEAL_CERT_FILE: sealing with a self-signed development certificate; PDF readers will not trust it",
				"dir", p.cfg.SealDevDir, "created", created, "subject", s.Cert.Subject.String())
		}
	}
	if err != nil {
		return nil, fmt.Errorf("seal certificate: %w", err)
	}
	s.TSAURL = p.cfg.TSAURL
	return s, nil
}
