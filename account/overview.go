package account

import (
	"context"

	"github.com/sobre-sign/sobre/persistence"
)

// Limits of an account's page.
const (
	OverviewSignIns   = 20
	OverviewEnvelopes = 100
)

// Overview is what the account's page shows: its passkeys, how many recovery codes are left, its
// last sign-ins (newest first, at most OverviewSignIns), and, once its email is verified, the
// envelopes sent to that address (its recipient was sent them: not before its turn) that are
// neither drafts nor deleted (newest first, at most OverviewEnvelopes), each with its signing
// link.
func (s *Service) Overview(ctx context.Context, a Account) (Overview, error) {
	stored, err := s.Store.SignerAccountByID(ctx, a.ID)
	if err != nil {
		return Overview{}, err
	}
	o := Overview{Account: toAccount(stored)}
	passkeys, err := s.Store.AccountPasskeys(ctx, a.ID)
	if err != nil {
		return Overview{}, err
	}
	for _, p := range passkeys {
		o.Passkeys = append(o.Passkeys, toPasskey(p))
	}
	if o.Account.TOTPEnabled {
		if o.RecoveryCodesLeft, err = s.Store.RecoveryCodesLeft(ctx, a.ID); err != nil {
			return Overview{}, err
		}
	}
	events, err := s.Store.AccountEvents(ctx, a.ID, []string{persistence.AccountEventSignIn}, OverviewSignIns)
	if err != nil {
		return Overview{}, err
	}
	for _, e := range events {
		method, _ := e.Data["method"].(string)
		o.SignIns = append(o.SignIns, SignIn{At: e.At, IP: e.IP, UserAgent: e.UserAgent, Method: method})
	}
	if !o.Account.EmailVerified {
		return o, nil
	}
	envs, err := s.Store.EnvelopesForEmail(ctx, o.Account.Email, OverviewEnvelopes)
	if err != nil {
		return Overview{}, err
	}
	for _, e := range envs {
		sender := e.OwnerName
		if sender == "" {
			sender = e.OwnerEmail
		}
		ask := AskedToSign{Title: e.Title, Sender: sender, Status: e.Status, Role: e.Role, SentAt: e.SentAt}
		if e.Token != "" {
			ask.SigningURL = s.PublicURL + "/sign/" + e.Token
		}
		o.Envelopes = append(o.Envelopes, ask)
	}
	return o, nil
}
