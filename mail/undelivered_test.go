package mail

import (
	"context"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/smtptest"
)

// refusingRelay is an SMTP relay that answers RCPT TO with code.
func refusingRelay(t *testing.T, code string) string {
	return scriptedRelay(t, code+" not now", "")
}

// scriptedRelay is an SMTP relay that answers RCPT TO with rcpt and the end of the message's
// content with dataEnd ("" accepts).
func scriptedRelay(t *testing.T, rcpt, dataEnd string) string {
	r := &smtptest.Relay{Rcpt: func(string) string { return rcpt }, DataEnd: func(string, int) string { return dataEnd }}
	r.Start(t)
	return strings.TrimPrefix(r.URL(), "smtp://")
}

// A relay that refuses the recipient never got the message: Undelivered says so, so the
// sender may try again later instead of counting it as possibly delivered.
func TestUndeliveredBeforeData(t *testing.T) {
	for _, code := range []string{"451", "550"} {
		s, err := NewSender("smtp://"+refusingRelay(t, code), "Sobre <no-reply@sobre.test>")
		if err != nil {
			t.Fatal(err)
		}
		c, _ := Compose(envelope.MailSigningRequest, envelope.LanguageEnglish, Data{RecipientName: "Ana", Title: "T", URL: "https://x"})
		transmitting := false
		err = s.Send(context.Background(), Message{ID: "x@sobre.test", To: "ana@example.com", Composed: c}, func() error { transmitting = true; return nil })
		if err == nil {
			t.Fatalf("%s: sent through a relay that refuses the recipient", code)
		}
		if !Undelivered(err) {
			t.Fatalf("%s: Undelivered(%v) = false", code, err)
		}
		if !transmitting {
			t.Fatalf("%s: the transmitting hook was not called", code)
		}
	}
	if Undelivered(context.DeadlineExceeded) {
		t.Fatal("an unknown failure counted as undelivered")
	}
}

// A relay's reply refuses a mail at any stage, the end of its content included: Refused reads
// the code and the answer, and Permanent tells 5xx (for good) from 4xx (try later). A mail
// refused after its content was handed over was still not delivered.
func TestRefused(t *testing.T) {
	cases := []struct {
		name, rcpt, dataEnd string
		code                int
		permanent           bool
		answer              string
	}{
		{"no such mailbox", "550 5.1.1 no such mailbox", "", 550, true, "550 5.1.1 no such mailbox"},
		{"greylisted", "451 4.7.1 greylisted", "", 451, false, "451 4.7.1 greylisted"},
		{"refused after DATA, for now", "", "451 4.3.0 queue full", 451, false, "451 4.3.0 queue full"},
		{"refused after DATA, for good", "", "554 5.7.1 message refused", 554, true, "554 5.7.1 message refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewSender("smtp://"+scriptedRelay(t, c.rcpt, c.dataEnd), "Sobre <no-reply@sobre.test>")
			if err != nil {
				t.Fatal(err)
			}
			composed, _ := Compose(envelope.MailSigningRequest, envelope.LanguageEnglish, Data{RecipientName: "Ana", Title: "T", URL: "https://x"})
			err = s.Send(context.Background(), Message{ID: "x@sobre.test", To: "ana@example.com", Composed: composed}, nil)
			ref, ok := Refused(err)
			if !ok {
				t.Fatalf("Refused(%v) = false", err)
			}
			if ref.Code != c.code || ref.Permanent() != c.permanent || ref.Answer != c.answer {
				t.Fatalf("Refused = %+v (permanent %v), want code %d permanent %v answer %q", ref, ref.Permanent(), c.code, c.permanent, c.answer)
			}
			if !Undelivered(err) {
				t.Fatal("a refused mail counted as maybe delivered")
			}
		})
	}
	if _, ok := Refused(context.DeadlineExceeded); ok {
		t.Fatal("a failure without a reply counted as a refusal")
	}
}
