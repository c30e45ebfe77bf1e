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
	"github.com/wneessen/go-mail/smtp"
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

// Send delivers m. When transmitting is not nil it is called once the message's whole content
// has been written to the connection, just before the line that ends it: from that moment the
// message may have been delivered even if Send then fails, and the caller records it so as never
// to send it again. A failure before it (connecting, logging in, MAIL FROM, RCPT TO, DATA, the
// content, or transmitting itself) leaves the message undelivered (Undelivered), to be sent
// again.
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
	conn, err := client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return &stageError{stage: beforeMessage, err: fmt.Errorf("connect to %s for mail %s: %w", s.host, m.ID, err)}
	}
	defer func() {
		// QUIT, or, when it fails (a broken or timed-out connection), the socket closed anyway.
		if err := client.CloseWithSMTPClient(conn); err != nil {
			_ = conn.Close()
		}
	}()
	if err := conn.UpdateDeadline(sendTimeout); err != nil {
		return &stageError{stage: beforeMessage, err: fmt.Errorf("connection to %s for mail %s: %w", s.host, m.ID, err)}
	}
	if err := handOver(conn, msg, transmitting); err != nil {
		return fmt.Errorf("send mail %s to %s: %w", m.ID, m.To, err)
	}
	return nil
}

// sendTimeout bounds one message's exchange with the relay, from MAIL FROM to the reply to its
// content.
const sendTimeout = 30 * time.Second

// handOver runs one message's SMTP transaction on conn. The relay may deliver the message only
// once it has read the content's end, so transmitting is called as late as can be: after the
// whole content is written to the socket and before the line that ends it. An attempt killed
// before that leaves the mail claimed, not transmitting, and the next attempt sends it; one
// killed after it leaves the mail transmitting, taken as sent and never sent twice.
func handOver(conn *smtp.Client, msg *gomail.Msg, transmitting func() error) error {
	from, err := msg.GetSender(false)
	if err != nil {
		return &stageError{stage: beforeContentEnd, err: err}
	}
	rcpts, err := msg.GetRecipients()
	if err != nil {
		return &stageError{stage: beforeContentEnd, err: err}
	}
	if err := conn.Mail(from); err != nil {
		return &stageError{stage: beforeContentEnd, err: fmt.Errorf("MAIL FROM: %w", err)}
	}
	for _, rcpt := range rcpts {
		if err := conn.Rcpt(rcpt); err != nil {
			return &stageError{stage: beforeContentEnd, err: fmt.Errorf("RCPT TO: %w", err)}
		}
	}
	w, err := conn.Data()
	if err != nil {
		return &stageError{stage: beforeContentEnd, err: fmt.Errorf("DATA: %w", err)}
	}
	// Past DATA, a failure drops the connection: the relay throws away content that never
	// ended, where a QUIT would be read as more of it. The content is flushed to the socket
	// first, so that a connection already broken fails here, before transmitting.
	if _, err := msg.WriteTo(w); err != nil {
		_ = conn.Close()
		return &stageError{stage: beforeContentEnd, err: fmt.Errorf("content: %w", err)}
	}
	if err := conn.Text.W.Flush(); err != nil {
		_ = conn.Close()
		return &stageError{stage: beforeContentEnd, err: fmt.Errorf("content: %w", err)}
	}
	if transmitting != nil {
		if err := transmitting(); err != nil {
			_ = conn.Close()
			return &stageError{stage: beforeContentEnd, err: err}
		}
	}
	// The line that ends the content and the reply get a time limit of their own, whatever
	// transmitting took.
	if err := conn.UpdateDeadline(sendTimeout); err != nil {
		_ = conn.Close()
		return &stageError{stage: beforeContentEnd, err: fmt.Errorf("content: %w", err)}
	}
	if err := w.Close(); err != nil {
		if conn.Text.W.Flush() != nil {
			// The line that ends the content was not written (the connection broke while it
			// was): the relay cannot have delivered the message.
			return &stageError{stage: beforeContentEnd, err: fmt.Errorf("end of content: %w", err)}
		}
		return &stageError{stage: contentEnd, err: fmt.Errorf("end of content: %w", err)}
	}
	return nil
}

// stage is how far a message's SMTP transaction went when it failed.
type stage int

const (
	// beforeMessage: connecting, greeting, STARTTLS, logging in; nothing of the message was
	// sent, and a reply there refuses the connection, not the message.
	beforeMessage stage = iota
	// beforeContentEnd: MAIL FROM, RCPT TO, DATA or the content itself; the line that ends the
	// content was not written, so the relay cannot have delivered the message.
	beforeContentEnd
	// contentEnd: the line that ends the content, and the relay's reply to it.
	contentEnd
)

// stageError is a failure of a message's SMTP transaction, with the stage it failed at.
type stageError struct {
	stage stage
	err   error
}

func (e *stageError) Error() string { return e.err.Error() }
func (e *stageError) Unwrap() error { return e.err }

// Undelivered reports whether err, from Send, means the message was not delivered: the relay
// refused it (Refused, at any stage), or Send failed before the line that ends the message's
// content was written. Such a message may be sent again; after that line, without a refusal, it
// may have been delivered.
func Undelivered(err error) bool {
	if _, ok := Refused(err); ok {
		return true
	}
	var se *stageError
	return errors.As(err, &se) && se.stage != contentEnd
}
