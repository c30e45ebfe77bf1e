package account

import (
	_ "embed"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/sobre-sign/sobre/envelope"
)

// Bounds of a password, counted in characters (runes, after NFKC normalisation).
const (
	MinPasswordLength = 10
	MaxPasswordLength = 200
)

//go:embed common-passwords.txt
var commonPasswordsFile string

// commonPasswords is common-passwords.txt as a set, lower-cased.
var commonPasswords = func() map[string]struct{} {
	set := make(map[string]struct{}, 1000)
	for line := range strings.SplitSeq(commonPasswordsFile, "\n") {
		if w := strings.TrimSpace(line); w != "" {
			set[strings.ToLower(norm.NFKC.String(w))] = struct{}{}
		}
	}
	return set
}()

// normalisePassword is the form a password is checked and hashed in: NFKC, so that the same
// characters typed on two keyboards (a composed "ñ" or an "n" and a combining tilde) are one
// password.
func normalisePassword(p string) string { return norm.NFKC.String(p) }

// CheckPassword refuses a password that is shorter than 10 characters, is the email address, or
// is one of the most common passwords (common-passwords.txt): a 400 naming "password".
// Characters are counted as Unicode code points after NFKC normalisation; more than 200 are
// refused too. The comparisons with the email address (whole, or its part before the @) and with
// the common passwords disregard case.
func CheckPassword(email, password string) error {
	var p envelope.Problems
	checkPassword(&p, "password", email, password)
	return p.Err()
}

// checkPassword records at path what CheckPassword refuses.
func checkPassword(p *envelope.Problems, path, email, password string) {
	pw := normalisePassword(password)
	n := utf8.RuneCountInString(pw)
	switch {
	case n < MinPasswordLength:
		p.Add(path, "must be at least %d characters long", MinPasswordLength)
		return
	case n > MaxPasswordLength:
		p.Add(path, "must be at most %d characters long", MaxPasswordLength)
		return
	}
	email = strings.TrimSpace(email)
	local, _, _ := strings.Cut(email, "@")
	if email != "" && (strings.EqualFold(pw, email) || strings.EqualFold(pw, local)) {
		p.Add(path, "must not be your email address")
		return
	}
	if _, common := commonPasswords[strings.ToLower(pw)]; common {
		p.Add(path, "is one of the most common passwords; choose another")
	}
}
