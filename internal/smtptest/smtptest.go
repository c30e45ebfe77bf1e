// Package smtptest is an SMTP relay for tests that need what the mail sink cannot do: refuse a
// mailbox, refuse a message after taking its content, or answer slowly. It speaks enough SMTP
// for the mail package's client (EHLO, MAIL, RCPT, DATA, RSET, NOOP, QUIT) on a loopback port,
// and keeps the Message-ID of every message it accepted.
package smtptest

import (
	"bufio"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"
)

// Relay is a scripted SMTP relay.
type Relay struct {
	// Rcpt answers RCPT TO for an address; nil, or "", accepts it.
	Rcpt func(addr string) string
	// DataEnd answers the end of a message's content, given its Message-ID and how many times
	// that message was handed over before; nil, or "", accepts it.
	DataEnd func(messageID string, before int) string
	// Delay is how long the relay waits before answering the end of a message's content.
	Delay time.Duration
	// HangUp, when set, is where the relay drops the connection instead of going on.
	HangUp HangUp
	// BeforeData, when set, is called before the relay answers DATA: a test holds a message's
	// handover there (to kill its sender mid-way, say) by not returning.
	BeforeData func()

	mu       sync.Mutex
	handed   map[string]int
	accepted []string
	addr     string
}

// HangUp is a point in a message's transaction where a relay drops the connection.
type HangUp int

const (
	// InContent: after the DATA command's reply, before the content's end; the message is
	// not delivered.
	InContent HangUp = iota + 1
	// BeforeReply: after the content's end, before replying to it; the message may have been
	// delivered, and the sender cannot know.
	BeforeReply
)

// Start listens on a loopback port until the test ends; Addr is then set.
func (r *Relay) Start(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	r.addr = ln.Addr().String()
	r.handed = map[string]int{}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go r.serve(conn)
		}
	}()
}

// URL is the relay's SMTP_URL.
func (r *Relay) URL() string { return "smtp://" + r.addr }

// Accepted lists the Message-IDs of the messages the relay accepted, in order, with repeats.
func (r *Relay) Accepted() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.accepted...)
}

// AcceptedTo counts the accepted messages whose Message-ID starts with prefix.
func (r *Relay) AcceptedTo(prefix string) int {
	n := 0
	for _, id := range r.Accepted() {
		if strings.HasPrefix(id, prefix) {
			n++
		}
	}
	return n
}

func (r *Relay) serve(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	tp := textproto.NewConn(conn)
	reply := func(s string) { _ = tp.PrintfLine("%s", s) }
	reply("220 smtptest ready")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		cmd := strings.ToUpper(line)
		switch {
		case strings.HasPrefix(cmd, "EHLO"):
			reply("250-smtptest\r\n250 8BITMIME")
		case strings.HasPrefix(cmd, "HELO"), strings.HasPrefix(cmd, "MAIL FROM"), strings.HasPrefix(cmd, "RSET"), strings.HasPrefix(cmd, "NOOP"):
			reply("250 ok")
		case strings.HasPrefix(cmd, "RCPT TO"):
			addr := strings.Trim(strings.TrimSpace(line[len("RCPT TO:"):]), "<>")
			if i := strings.Index(addr, ">"); i >= 0 {
				addr = addr[:i]
			}
			reply(answer(r.Rcpt, addr))
		case cmd == "DATA":
			if r.BeforeData != nil {
				r.BeforeData()
			}
			reply("354 go ahead")
			if r.HangUp == InContent {
				return
			}
			id, err := r.readContent(tp.R)
			if err != nil || r.HangUp == BeforeReply {
				return
			}
			time.Sleep(r.Delay)
			r.mu.Lock()
			before := r.handed[id]
			r.handed[id]++
			r.mu.Unlock()
			a := "250 ok"
			if r.DataEnd != nil {
				if s := r.DataEnd(id, before); s != "" {
					a = s
				}
			}
			if strings.HasPrefix(a, "2") {
				r.mu.Lock()
				r.accepted = append(r.accepted, id)
				r.mu.Unlock()
			}
			reply(a)
		case strings.HasPrefix(cmd, "QUIT"):
			reply("221 bye")
			return
		default:
			reply("502 not implemented")
		}
	}
}

func answer(f func(string) string, addr string) string {
	if f != nil {
		if s := f(addr); s != "" {
			return s
		}
	}
	return "250 ok"
}

// readContent reads a message's content up to its final dot and returns its Message-ID.
func (r *Relay) readContent(br *bufio.Reader) (string, error) {
	id := ""
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return "", err
		}
		if l == ".\r\n" {
			return id, nil
		}
		if id == "" && strings.HasPrefix(strings.ToLower(l), "message-id:") {
			id = strings.Trim(strings.TrimSpace(l[len("message-id:"):]), "<>")
		}
	}
}
