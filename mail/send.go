package mail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Attachment is a file attached to a message.
type Attachment struct {
	Name string
	Data []byte
}

// Message is one mail to send.
type Message struct {
	ID          string // the Message-ID without angle brackets; stable across retries
	To          string
	ToName      string
	ReplyTo     string
	EnvelopeID  string
	Composed    Composed
	Attachments []Attachment
}

// Sender sends messages through one SMTP relay.
type Sender struct {
	from    string
	host    string
	options []gomail.Option
}

// NewSender reads an SMTP_URL: smtp://host:port (no TLS, for local sinks), smtp+starttls://
// (STARTTLS required) or smtps:// (TLS from the first byte), with optional user:password@.
func NewSender(smtpURL, from string) (*Sender, error) {
	u, err := url.Parse(smtpURL)
	if err != nil {
		return nil, fmt.Errorf("parse SMTP_URL: %w", err)
	}
	s := &Sender{from: from, host: u.Hostname()}
	port := u.Port()
	opts := []gomail.Option{gomail.WithTimeout(30 * time.Second)}
	switch u.Scheme {
	case "smtp":
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
		if port == "" {
			port = "25"
		}
	case "smtp+starttls":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
		if port == "" {
			port = "587"
		}
	case "smtps":
		opts = append(opts, gomail.WithSSL())
		if port == "" {
			port = "465"
		}
	default:
		return nil, fmt.Errorf("SMTP_URL: scheme %q is none of smtp, smtp+starttls, smtps", u.Scheme)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, fmt.Errorf("SMTP_URL: port %q: %w", port, err)
	}
	opts = append(opts, gomail.WithPort(p))
	if u.User != nil {
		pass, _ := u.User.Password()
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(u.User.Username()), gomail.WithPassword(pass))
	}
	if s.host == "" {
		return nil, fmt.Errorf("SMTP_URL %q has no host", smtpURL)
	}
	s.options = opts
	return s, nil
}

// Send delivers m. When transmitting is not nil it is called after the relay accepted the
// connection and before the message is handed over: from that moment the message may have been
// delivered even if Send then fails, and the caller records it so as never to send it again.
func (s *Sender) Send(ctx context.Context, m Message, transmitting func() error) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.from); err != nil {
		return fmt.Errorf("from address %q: %w", s.from, err)
	}
	if err := msg.AddToFormat(m.ToName, m.To); err != nil {
		return fmt.Errorf("to address %q: %w", m.To, err)
	}
	if m.ReplyTo != "" {
		if err := msg.ReplyTo(m.ReplyTo); err != nil {
			return fmt.Errorf("reply-to address %q: %w", m.ReplyTo, err)
		}
	}
	msg.SetMessageIDWithValue(m.ID)
	msg.SetDate()
	msg.Subject(m.Composed.Subject)
	if m.EnvelopeID != "" {
		msg.SetGenHeader("X-Sobre-Envelope-Id", m.EnvelopeID)
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.Composed.Text)
	msg.AddAlternativeString(gomail.TypeTextHTML, m.Composed.HTML)
	for _, a := range m.Attachments {
		if err := msg.AttachReader(a.Name, bytes.NewReader(a.Data)); err != nil {
			return fmt.Errorf("attach %s: %w", a.Name, err)
		}
	}
	client, err := gomail.NewClient(s.host, s.options...)
	if err != nil {
		return fmt.Errorf("smtp client for %s: %w", s.host, err)
	}
	if err := client.DialWithContext(ctx); err != nil {
		return fmt.Errorf("connect to %s for mail %s: %w", s.host, m.ID, err)
	}
	defer client.Close()
	if transmitting != nil {
		if err := transmitting(); err != nil {
			return err
		}
	}
	if err := client.Send(msg); err != nil {
		return fmt.Errorf("send mail %s to %s: %w", m.ID, m.To, err)
	}
	return nil
}

// Undelivered reports whether err, from Send, means the message was not delivered: the relay
// refused it (Refused, at any stage), or Send failed before the message's content reached the
// relay. Such a message may be sent again; after that point, without a refusal, it may have been
// delivered.
func Undelivered(err error) bool {
	if _, ok := Refused(err); ok {
		return true
	}
	var se *gomail.SendError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Reason {
	case gomail.ErrGetSender, gomail.ErrGetRcpts, gomail.ErrSMTPMailFrom, gomail.ErrSMTPRcptTo, gomail.ErrSMTPData, gomail.ErrNoUnencoded, gomail.ErrConnCheck:
		return true
	}
	return false
}
