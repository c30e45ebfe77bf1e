package persistence

import (
	"context"
	"fmt"
	"strconv"
)

// PurgeCounts are the rows one purge step deleted, by kind.
type PurgeCounts struct {
	Sessions    int // signing (ceremony) sessions past their expiry, with their codes and logins
	AccessCodes int // access codes expired over an hour ago (the request limit looks back 15 minutes)
	Logins      int // Clave Únicas logins past their expiry, used or not
	CodeGuards  int // access-code counts that count for nothing: no failure, or a replaced link's, and never locked
	Views       int // document views older than ViewEvery (they throttle nothing any more)
	// AccountSessions are signer-account sessions that ended, or went unused past their idle
	// expiry, over a day ago.
	AccountSessions int
	AccountLinks    int // mailed account links expired over a day ago, used or not
	Challenges      int // WebAuthn challenges past their expiry, used or not
}

// Add adds o to c.
func (c *PurgeCounts) Add(o PurgeCounts) {
	c.Sessions += o.Sessions
	c.AccessCodes += o.AccessCodes
	c.Logins += o.Logins
	c.CodeGuards += o.CodeGuards
	c.Views += o.Views
	c.AccountSessions += o.AccountSessions
	c.AccountLinks += o.AccountLinks
	c.Challenges += o.Challenges
}

// Full reports whether some kind reached batch: more may be left.
func (c PurgeCounts) Full(batch int) bool {
	return c.Sessions >= batch || c.AccessCodes >= batch || c.Logins >= batch || c.CodeGuards >= batch || c.Views >= batch ||
		c.AccountSessions >= batch || c.AccountLinks >= batch || c.Challenges >= batch
}

// purges are the purge's statements, each deleting at most $1 rows. A code guard that ever
// locked is kept: its count of locks numbers the owner's mails.
var purges = []struct {
	what string
	sql  string
	dst  func(*PurgeCounts) *int
}{
	{"Clave Única logins", `DELETE FROM claveunica_logins WHERE state_hash IN (
		SELECT state_hash FROM claveunica_logins WHERE expires_at < now() LIMIT $1)`, func(c *PurgeCounts) *int { return &c.Logins }},
	{"access codes", `DELETE FROM access_codes WHERE id IN (
		SELECT id FROM access_codes WHERE expires_at < now() - interval '1 hour' LIMIT $1)`, func(c *PurgeCounts) *int { return &c.AccessCodes }},
	{"signing sessions", `DELETE FROM ceremony_sessions WHERE id_hash IN (
		SELECT id_hash FROM ceremony_sessions WHERE expires_at < now() LIMIT $1)`, func(c *PurgeCounts) *int { return &c.Sessions }},
	{"access-code guards", `DELETE FROM access_code_guards WHERE recipient_id IN (
		SELECT g.recipient_id FROM access_code_guards g JOIN recipients r ON r.id = g.recipient_id
		WHERE g.locks = 0 AND (g.failures = 0 OR g.link_version <> r.link_version) LIMIT $1)`, func(c *PurgeCounts) *int { return &c.CodeGuards }},
	{"document views", `DELETE FROM document_views WHERE ctid = ANY(ARRAY(
		SELECT ctid FROM document_views WHERE viewed_at < now() - '` + ViewEvery.String() + `'::interval LIMIT $1))`, func(c *PurgeCounts) *int { return &c.Views }},
	{"account sessions", `DELETE FROM account_sessions WHERE id_hash IN (
		SELECT id_hash FROM account_sessions
		WHERE ended_at < now() - interval '1 day' OR last_seen_at < now() - interval '1 day' - make_interval(secs => ` +
		strconv.Itoa(int(AccountSessionIdleTTL.Seconds())) + `) LIMIT $1)`, func(c *PurgeCounts) *int { return &c.AccountSessions }},
	{"account links", `DELETE FROM account_links WHERE token_hash IN (
		SELECT token_hash FROM account_links WHERE expires_at < now() - interval '1 day' LIMIT $1)`, func(c *PurgeCounts) *int { return &c.AccountLinks }},
	{"WebAuthn challenges", `DELETE FROM webauthn_challenges WHERE challenge IN (
		SELECT challenge FROM webauthn_challenges WHERE expires_at < now() LIMIT $1)`, func(c *PurgeCounts) *int { return &c.Challenges }},
}

// PurgeExpired deletes up to batch rows of each kind of expired ceremony record and says how
// many it deleted; call it again while PurgeCounts.Full. Each statement commits on its own.
func (s *Store) PurgeExpired(ctx context.Context, batch int) (PurgeCounts, error) {
	var c PurgeCounts
	for _, p := range purges {
		tag, err := s.pool.Exec(ctx, p.sql, batch)
		if err != nil {
			return c, fmt.Errorf("purge expired %s: %w", p.what, err)
		}
		*p.dst(&c) = int(tag.RowsAffected())
	}
	return c, nil
}
