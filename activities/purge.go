package activities

import (
	"context"

	"github.com/sobre-sign/sobre/envelope"
)

// PurgeExpired deletes up to batch rows of each kind of expired signing-ceremony record
// (persistence.Store.PurgeExpired); the purge workflow calls it until little is left.
func (a *Activities) PurgeExpired(ctx context.Context, batch int) (envelope.PurgeCounts, error) {
	c, err := a.Store.PurgeExpired(ctx, batch)
	if err != nil {
		return c, err
	}
	if a.Log != nil {
		a.Log.InfoContext(ctx, "purged expired ceremony records", "sessions", c.Sessions, "access_codes", c.AccessCodes,
			"logins", c.Logins, "code_guards", c.CodeGuards, "views", c.Views,
			"account_sessions", c.AccountSessions, "account_links", c.AccountLinks, "webauthn_challenges", c.Challenges)
	}
	return c, nil
}
