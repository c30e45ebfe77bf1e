package mail

import (
	"errors"
	"strconv"
	"strings"

	gomail "github.com/wneessen/go-mail"
)

// maxAnswer bounds the answer kept with a refused mail (BoundedAnswer).
const maxAnswer = 300

// BoundedAnswer is answer cut to the length kept with a refused or undeliverable mail, at a
// whole character.
func BoundedAnswer(answer string) string {
	if len(answer) > maxAnswer {
		return strings.ToValidUTF8(answer[:maxAnswer], "")
	}
	return answer
}

// Refusal is a relay refusing a mail with an SMTP reply: the mail was not delivered, whatever
// the stage (MAIL FROM, RCPT TO, DATA, or the reply to the message's content).
type Refusal struct {
	Code   int    // the reply code, 4xx or 5xx
	Answer string // the relay's reply, as it gave it (at most maxAnswer bytes)
}

// Permanent reports whether the relay refused the mail for good (a 5xx reply, such as "550 no
// such mailbox"): sending it again would be refused again. A 4xx reply asks to try later.
func (r Refusal) Permanent() bool { return r.Code >= 500 }

// Refused reports whether err, from Send, is the relay's refusal. A reply to the end of the
// message's content is one too: a relay that answers "451 try later" there did not take the
// message, so it is not "maybe delivered". An error without a reply (a connection cut while the
// content was being handed over) is not a refusal.
func Refused(err error) (Refusal, bool) {
	var se *gomail.SendError
	if !errors.As(err, &se) {
		return Refusal{}, false
	}
	code := se.ErrorCode()
	if code < 400 || code > 599 {
		return Refusal{}, false
	}
	return Refusal{Code: code, Answer: relayAnswer(se.Error(), code)}, true
}

// relayAnswer is the relay's reply within msg, a SendError's text: from its code to the
// recipients and Message-ID the text adds after it.
func relayAnswer(msg string, code int) string {
	if i := strings.Index(msg, strconv.Itoa(code)); i >= 0 {
		msg = msg[i:]
	}
	if i := strings.Index(msg, ", affected "); i >= 0 {
		msg = msg[:i]
	}
	msg = strings.TrimSpace(msg)
	// The client quotes the reply's text: `550 "5.1.1 no such mailbox"`.
	if rest, ok := strings.CutPrefix(msg, strconv.Itoa(code)+" "); ok {
		if text, err := strconv.Unquote(rest); err == nil {
			msg = strconv.Itoa(code) + " " + text
		}
	}
	return BoundedAnswer(msg)
}
