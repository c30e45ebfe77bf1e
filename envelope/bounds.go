package envelope

import (
	"slices"
	"unicode/utf8"
)

// Bounds on what a request may put into an envelope's workflow, whose history Temporal keeps
// (and caps: a workflow past its history limit is terminated). The API refuses or trims the
// request before it is sent, and the workflow's Update validators refuse it again, so nothing
// larger reaches the history.
const (
	// MaxResendRecipients is the most recipient ids one redistribute may list: an envelope's
	// recipient limit (MaxRecipients).
	MaxResendRecipients = MaxRecipients
	// MaxActorName and MaxActorEmail bound an audit actor's name and email, in characters (as a
	// recipient's name and email).
	MaxActorName  = MaxRecipientName
	MaxActorEmail = MaxEmail
	// MaxActorUserAgent and MaxActorIP bound the User-Agent and client address an audit actor
	// carries, in bytes.
	MaxActorUserAgent = 512
	MaxActorIP        = 64
	// MaxSessionID bounds the signing-session id a completion names, in bytes.
	MaxSessionID = 128
)

// ResendIDs checks the recipient ids of a redistribute at path: at least one, at most
// MaxResendRecipients. It returns them without repeats, in their first order.
func ResendIDs(p *Problems, path string, ids []int64) []int64 {
	switch {
	case len(ids) == 0:
		p.Add(path, "must list at least one recipient id")
		return nil
	case len(ids) > MaxResendRecipients:
		p.Add(path, "must list at most %d recipient ids, got %d", MaxResendRecipients, len(ids))
		return nil
	}
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// TruncateRunes is s cut to at most n characters.
func TruncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// TruncateBytes is s cut to at most n bytes, on a character boundary.
func TruncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
