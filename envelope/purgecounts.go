package envelope

// PurgeCounts are the rows one step of the purge of expired signing-ceremony records deleted,
// by kind: what the purge workflow adds up and answers.
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
