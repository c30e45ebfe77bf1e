// Actor: who did what an audit entry records.

package persistence

import (
	"strings"
	"unicode/utf8"

	"github.com/sobre-sign/sobre/envelope"
)

// Actor is who did what an audit entry records: an API user, a recipient or the system.
type Actor struct {
	Name      *string
	Email     *string
	UserID    *int64
	UserAgent *string
	IPAddress *string
}

// MemberActor is the actor for a team member calling the API from ip with userAgent.
func MemberActor(m envelope.Member, ip, userAgent string) Actor {
	name, email, id := m.UserName, m.UserEmail, m.UserID
	if name == "" {
		name = m.TeamName
	}
	return Actor{Name: &name, Email: &email, UserID: &id, UserAgent: clientText(userAgent), IPAddress: clientText(ip)}
}

// SystemActor is the audit actor of what Sobre does by itself (timers, the workflow).
func SystemActor() Actor {
	name := "Sobre"
	return Actor{Name: &name}
}

// RecipientActor is the audit actor of a recipient acting through their signing link.
func RecipientActor(r envelope.Recipient, ip, userAgent string) Actor {
	name, email := r.Name, r.Email
	return Actor{Name: &name, Email: &email, UserAgent: clientText(userAgent), IPAddress: clientText(ip)}
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// MaxClientText is the most bytes of a caller's User-Agent or address that Sobre keeps: the
// rest is cut off (at a character boundary) before it is stored or sent anywhere.
const MaxClientText = 512

// CapClientText is s as valid UTF-8 of at most MaxClientText bytes.
func CapClientText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= MaxClientText {
		return s
	}
	n := MaxClientText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// clientText is CapClientText(s), nil when empty.
func clientText(s string) *string { return nonEmpty(CapClientText(s)) }

// capped is p capped by CapClientText.
func capped(p *string) *string {
	if p == nil {
		return nil
	}
	return clientText(*p)
}
