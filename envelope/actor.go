package envelope

import "strings"

// Actor is who did what an audit entry records: an API user, a recipient or the system. The
// workflow's Updates carry it, so it holds nothing secret; its JSON names are those of the
// workflow's first releases, so that recorded histories still decode.
type Actor struct {
	Name      *string
	Email     *string
	UserID    *int64
	UserAgent *string
	IPAddress *string
}

// SystemActor is the actor of what Sobre does by itself (timers, the workflow).
func SystemActor() Actor {
	name := "Sobre"
	return Actor{Name: &name}
}

// MemberActor is the actor of a team member calling the API from ip with userAgent; a member
// without a name is named after the team.
func MemberActor(m Member, ip, userAgent string) Actor {
	name, email, id := m.UserName, m.UserEmail, m.UserID
	if name == "" {
		name = m.TeamName
	}
	return Actor{Name: &name, Email: &email, UserID: &id, UserAgent: ClientText(userAgent), IPAddress: ClientText(ip)}
}

// RecipientActor is the actor of a recipient acting through their signing link from ip with
// userAgent.
func RecipientActor(r Recipient, ip, userAgent string) Actor {
	name, email := r.Name, r.Email
	return Actor{Name: &name, Email: &email, UserAgent: ClientText(userAgent), IPAddress: ClientText(ip)}
}

// Capped is a with its client's text (UserAgent, IPAddress) capped as ClientText caps it: what
// is stored of an actor, whoever built it.
func (a Actor) Capped() Actor {
	if a.UserAgent != nil {
		a.UserAgent = ClientText(*a.UserAgent)
	}
	if a.IPAddress != nil {
		a.IPAddress = ClientText(*a.IPAddress)
	}
	return a
}

// MaxClientText is the most bytes of a caller's User-Agent or address that Sobre keeps: the
// rest is cut off (at a character boundary) before it is stored or sent anywhere.
const MaxClientText = 512

// CapClientText is s as text (IsText: valid UTF-8, NUL characters dropped) of at most
// MaxClientText bytes.
func CapClientText(s string) string {
	return TruncateBytes(strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", ""), MaxClientText)
}

// ClientText is CapClientText(s), nil when that is empty.
func ClientText(s string) *string {
	s = CapClientText(s)
	if s == "" {
		return nil
	}
	return &s
}
