package mail

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// refusingRelay is an SMTP peer that greets, accepts MAIL FROM and answers RCPT TO with code.
func refusingRelay(t *testing.T, code string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				r := bufio.NewReader(c)
				write := func(s string) { _, _ = c.Write([]byte(s + "\r\n")) }
				write("220 relay ready")
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					cmd := strings.ToUpper(strings.TrimSpace(line))
					switch {
					case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
						write("250 relay")
					case strings.HasPrefix(cmd, "MAIL FROM"):
						write("250 ok")
					case strings.HasPrefix(cmd, "RCPT TO"):
						write(code + " not now")
					case strings.HasPrefix(cmd, "QUIT"):
						write("221 bye")
						return
					default:
						write("250 ok")
					}
				}
			}(conn)
		}
	}()
	return ln.Addr().String()
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
