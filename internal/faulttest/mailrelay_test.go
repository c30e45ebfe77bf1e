package faulttest

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// mailSink is a mailpit of the test's own (bin/mailpit), its messages in a database file so that
// they survive a stop: the mail relay the test takes down and brings back on the same ports.
type mailSink struct {
	t      *testing.T
	bin    string
	smtp   string // SMTP listener
	http   string // HTTP API
	dir    string
	starts int
	cmd    *exec.Cmd
}

// newMailSink starts a sink on free loopback ports; it is stopped with the test.
func newMailSink(t *testing.T) *mailSink {
	m := &mailSink{t: t, bin: toolBinary(t, "mailpit"), smtp: freeAddr(t), http: freeAddr(t), dir: t.TempDir()}
	m.start()
	t.Cleanup(func() {
		m.stop()
		logsOnFailure(t, m.dir, "mailpit", m.starts)
	})
	return m
}

// ownMail is svc with a mail sink of the test's own, so that a batch's mails are counted apart
// from every other test's (and the shared sink's cap on messages never drops them).
func ownMail(t *testing.T, svc services) services {
	sink := newMailSink(t)
	svc.smtp, svc.mailpit = "smtp://"+sink.smtp, "http://"+sink.http
	return svc
}

// start runs the sink (as scripts/stack.sh does) and waits until its API answers.
func (m *mailSink) start() {
	m.t.Helper()
	m.starts++
	m.cmd = exec.Command(m.bin, "--listen", m.http, "--smtp", m.smtp, "--database", filepath.Join(m.dir, "mailpit.db"),
		"--disable-version-check", "--max", "100000")
	startLogged(m.t, m.cmd, m.dir, "mailpit", m.starts)
	waitFor(m.t, "mailpit to answer", 30*time.Second, func() bool {
		res, err := http.Get("http://" + m.http + "/api/v1/info")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})
}

// stop shuts the sink down (SIGTERM: it keeps what it accepted) and waits until it is gone.
func (m *mailSink) stop() {
	if m.cmd == nil {
		return
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = m.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = m.cmd.Process.Kill()
		<-done
	}
	m.cmd = nil
}

// (e) The mail relay is down for SOBRE_FAULT_MAIL_OUTAGE (20s unless set; `make faults` sets
// 10m) mid batch, then back: the signers sign on without noticing, the mails wait and are sent
// once the relay is back, each once.
func TestMailRelayDownMidBatch(t *testing.T) {
	faultTest(t)
	sink := newMailSink(t)
	s := newSystemAt(t, services{smtp: "smtp://" + sink.smtp, mailpit: "http://" + sink.http})
	s.startAPIAndWorker()
	b := newBatch(s, faultBatch(t), nil)
	b.relayMayDrop = true // mailpit, stopped, drops a message whose last line it was reading
	outage := envDuration(t, "SOBRE_FAULT_MAIL_OUTAGE", 20*time.Second)
	b.patience += outage // a completion may wait for its mails (503 meanwhile)
	b.run(func() {
		sink.stop()
		time.Sleep(outage)
		sink.start()
	})
	// Delivery backs off up to 10 minutes between attempts (workflows/delivery.go).
	b.check(outage + 11*time.Minute)
}
