package mail

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

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
// sender may try again later instead of counting it as possibly delivered, and the transmitting
// hook is not called.
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
		if transmitting {
			t.Fatalf("%s: the transmitting hook was called for a message the relay never had", code)
		}
	}
	if Undelivered(context.DeadlineExceeded) {
		t.Fatal("an unknown failure counted as undelivered")
	}
}

// A relay that cannot be reached never got the message: undelivered, and not a refusal of it.
func TestUndeliveredWhenUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s, err := NewSender("smtp://"+addr, "Sobre <no-reply@sobre.test>")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := Compose(envelope.MailSigningRequest, envelope.LanguageEnglish, Data{RecipientName: "Ana", Title: "T", URL: "https://x"})
	err = s.Send(context.Background(), Message{ID: "x@sobre.test", To: "ana@example.com", Composed: c}, func() error {
		t.Error("the transmitting hook was called without a relay")
		return nil
	})
	if err == nil || !Undelivered(err) {
		t.Fatalf("Send = %v, Undelivered %v; want an undelivered failure", err, Undelivered(err))
	}
	if _, ok := Refused(err); ok {
		t.Fatalf("an unreachable relay counted as a refusal: %v", err)
	}
}

// The transmitting hook marks the one point after which a message may have been delivered: the
// content's end. A relay that hangs up inside the content never had the message (undelivered,
// hook not called); one that hangs up after the content's end, before replying, may have it
// (not undelivered, not a refusal, hook called).
func TestTransmittingIsTheContentsEnd(t *testing.T) {
	// An attachment larger than the socket's buffers, so the hang-up meets a write in the content.
	big := Attachment{Name: "big.pdf", Data: bytes.Repeat([]byte("%PDF-1.7 "), 1<<20)}
	cases := []struct {
		name         string
		hangUp       smtptest.HangUp
		attachments  []Attachment
		undelivered  bool
		transmitting bool
	}{
		{"hang-up inside a large content", smtptest.InContent, []Attachment{big}, true, false},
		// A small content is written whole before the hang-up shows; the line that ends it
		// then fails to be written, so it is still undelivered.
		{"hang-up inside a small content", smtptest.InContent, nil, true, true},
		{"hang-up before the reply to the content's end", smtptest.BeforeReply, nil, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &smtptest.Relay{HangUp: c.hangUp}
			r.Start(t)
			s, err := NewSender(r.URL(), "Sobre <no-reply@sobre.test>")
			if err != nil {
				t.Fatal(err)
			}
			composed, _ := Compose(envelope.MailSigningRequest, envelope.LanguageEnglish, Data{RecipientName: "Ana", Title: "T", URL: "https://x"})
			transmitting := false
			err = s.Send(context.Background(), Message{ID: "x@sobre.test", To: "ana@example.com", Composed: composed, Attachments: c.attachments},
				func() error { transmitting = true; return nil })
			if err == nil {
				t.Fatal("sent through a relay that hung up")
			}
			if Undelivered(err) != c.undelivered || transmitting != c.transmitting {
				t.Fatalf("Undelivered(%v) = %v, transmitting %v; want %v, %v", err, Undelivered(err), transmitting, c.undelivered, c.transmitting)
			}
			if _, ok := Refused(err); ok {
				t.Fatalf("a hang-up counted as a refusal: %v", err)
			}
		})
	}
}

// A hook that fails (the attempt lost its claim on the mail) stops the message before its end:
// the relay never delivers it.
func TestFailingHookStopsTheMessage(t *testing.T) {
	r := &smtptest.Relay{}
	r.Start(t)
	s, err := NewSender(r.URL(), "Sobre <no-reply@sobre.test>")
	if err != nil {
		t.Fatal(err)
	}
	composed, _ := Compose(envelope.MailSigningRequest, envelope.LanguageEnglish, Data{RecipientName: "Ana", Title: "T", URL: "https://x"})
	lost := errors.New("claim lost")
	err = s.Send(context.Background(), Message{ID: "x@sobre.test", To: "ana@example.com", Composed: composed}, func() error { return lost })
	if !errors.Is(err, lost) {
		t.Fatalf("Send = %v, want the hook's error", err)
	}
	time.Sleep(100 * time.Millisecond)
	if got := r.Accepted(); len(got) != 0 {
		t.Fatalf("the relay accepted %v after the hook failed", got)
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
