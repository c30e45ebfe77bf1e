package mail

import (
	"errors"
	"net/textproto"
	"strconv"
	"strings"
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

// Refused reports whether err, from Send, is the relay's refusal of the message: a reply with a
// 4xx or 5xx code to MAIL FROM, RCPT TO, DATA or the end of the content. A reply to the end of the
// content is one too: a relay that answers "451 try later" there did not take the message, so it
// is not "maybe delivered". An error without a reply (a connection cut while the content was
// being handed over) is not a refusal, nor is a reply before the message (a greeting or a login
// refused), which says nothing of this message.
func Refused(err error) (Refusal, bool) {
	var se *stageError
	if !errors.As(err, &se) || se.stage == beforeMessage {
		return Refusal{}, false
	}
	var reply *textproto.Error
	if !errors.As(se.err, &reply) || reply.Code < 400 || reply.Code > 599 {
		return Refusal{}, false
	}
	return Refusal{Code: reply.Code, Answer: BoundedAnswer(strconv.Itoa(reply.Code) + " " + reply.Msg)}, true
}
