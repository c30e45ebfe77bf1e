package webhook

import (
	"strings"
	"unicode/utf8"
)

// keptAnswer is the part of an answer's body kept with its attempt: valid UTF-8 of at most
// MaxAnswerKept bytes, each run of invalid bytes replaced by one U+FFFD, cut at a rune boundary. head is the
// body's beginning, read to a few bytes past the bound so that a rune crossing it is whole (and
// left out) rather than invalid.
func keptAnswer(head []byte) string {
	s := strings.ToValidUTF8(string(head), "\uFFFD")
	if len(s) <= MaxAnswerKept {
		return s
	}
	i := MaxAnswerKept
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
