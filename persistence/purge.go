package persistence

import (
	"context"
	"fmt"
	"strconv"

	"github.com/sobre-sign/sobre/envelope"
)

// purges are the purge's statements, each deleting at most $1 rows. A code guard that ever
// locked is kept: its count of locks numbers the owner's mails.
var purges = []struct {
	what string
	sql  string
	dst  func(*envelope.PurgeCounts) *int
}{
	{"Clave Única logins", `DELETE FROM claveunica_logins WHERE state_hash IN (
		SELECT state_hash FROM claveunica_logins WHERE expires_at < now() LIMIT $1)`, func(c *envelope.PurgeCounts) *int { return &c.Logins }},
	{"access codes", `DELETE FROM access_codes WHERE id IN (
		SELECT id FROM access_codes WHERE expires_at < now() - interval '1 hour' LIMIT $1)`, func(c *envelope.PurgeCounts) *int { return &c.AccessCodes }},
	{"signing sessions", `DELETE FROM ceremony_sessions WHERE id_hash IN (
		SELECT id_hash FROM ceremony_sessions WHERE expires_at < now() LIMIT $1)`, func(c *envelope.PurgeCounts) *int { return &c.Sessions }},
	{"access-code guards", `DELETE FROM access_code_guards WHERE recipient_id IN (
		SELECT g.recipient_id FROM access_code_guards g JOIN recipients r ON r.id = g.recipient_id
		WHERE g.locks = 0 AND (g.failures = 0 OR g.link_version <> r.link_version) LIMIT $1)`, func(c *envelope.PurgeCounts) *int { return &c.CodeGuards }},
	{"document views", `DELETE FROM document_views WHERE ctid = ANY(ARRAY(
		SELECT ctid FROM document_views WHERE viewed_at < now() - '` + ViewEvery.String() + `'::interval LIMIT $1))`, func(c *envelope.PurgeCounts) *int { return &c.Views }},
	{"account sessions", `DELETE FROM account_sessions WHERE id_hash IN (
		SELECT id_hash FROM account_sessions
		WHERE ended_at < now() - interval '1 day' OR last_seen_at < now() - interval '1 day' - make_interval(secs => ` +
		strconv.Itoa(int(AccountSessionIdleTTL.Seconds())) + `) LIMIT $1)`, func(c *envelope.PurgeCounts) *int { return &c.AccountSessions }},
	{"account links", `DELETE FROM account_links WHERE token_hash IN (
		SELECT token_hash FROM account_links WHERE expires_at < now() - interval '1 day' LIMIT $1)`, func(c *envelope.PurgeCounts) *int { return &c.AccountLinks }},
	{"WebAuthn challenges", `DELETE FROM webauthn_challenges WHERE challenge IN (
		SELECT challenge FROM webauthn_challenges WHERE expires_at < now() LIMIT $1)`, func(c *envelope.PurgeCounts) *int { return &c.Challenges }},
}

// PurgeExpired deletes up to batch rows of each kind of expired ceremony record and says how
// many it deleted; call it again while envelope.PurgeCounts.Full. Each statement commits on its own.
func (s *Store) PurgeExpired(ctx context.Context, batch int) (envelope.PurgeCounts, error) {
	var c envelope.PurgeCounts
	for _, p := range purges {
		tag, err := s.pool.Exec(ctx, p.sql, batch)
		if err != nil {
			return c, fmt.Errorf("purge expired %s: %w", p.what, err)
		}
		*p.dst(&c) = int(tag.RowsAffected())
	}
	return c, nil
}
