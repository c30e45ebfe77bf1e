package envelope

import (
	"unicode/utf8"
)

// Bounded is the actor with each of its strings cut to its bound (MaxActorName,
// MaxActorEmail, MaxActorUserAgent, MaxActorIP): what the API sends to an envelope's workflow,
// whose history keeps it. A client's User-Agent or forwarded address of any length costs the
// history no more than the bound.
func (a Actor) Bounded() Actor {
	cut := func(s *string, f func(string) string) *string {
		if s == nil {
			return nil
		}
		v := f(*s)
		return &v
	}
	a.Name = cut(a.Name, func(s string) string { return TruncateRunes(s, MaxActorName) })
	a.Email = cut(a.Email, func(s string) string { return TruncateRunes(s, MaxActorEmail) })
	a.UserAgent = cut(a.UserAgent, func(s string) string { return TruncateBytes(s, MaxActorUserAgent) })
	a.IPAddress = cut(a.IPAddress, func(s string) string { return TruncateBytes(s, MaxActorIP) })
	return a
}

// CheckBounds records a problem at path for each of the actor's strings longer than its bound
// (Bounded cuts them): the workflow's Update validators refuse such an actor.
func (a Actor) CheckBounds(p *Problems, path string) {
	check := func(member string, s *string, n int, bytes bool) {
		switch {
		case s == nil:
		case bytes && len(*s) > n:
			p.Add(Join(path, member), "must be at most %d bytes, got %d", n, len(*s))
		case !bytes && utf8.RuneCountInString(*s) > n:
			p.Add(Join(path, member), "must be at most %d characters, got %d", n, utf8.RuneCountInString(*s))
		}
	}
	check("name", a.Name, MaxActorName, false)
	check("email", a.Email, MaxActorEmail, false)
	check("userAgent", a.UserAgent, MaxActorUserAgent, true)
	check("ipAddress", a.IPAddress, MaxActorIP, true)
}
