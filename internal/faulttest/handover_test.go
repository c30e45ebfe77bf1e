package faulttest

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/internal/smtptest"
)

// The worker is killed with SIGKILL while it hands the signing requests to the relay, after the
// relay accepted the connection and the recipient, while it waits for the answer to DATA: the
// relay never had the mails, so the restarted worker sends each of them, once, once the killed
// attempt's claim has lapsed. (A mail is only taken as sent, never sent again, when its sender
// was killed after writing the content's end, when the relay may have delivered it; that the
// point is past the content itself, mail's TestTransmittingIsTheContentsEnd shows.)
func TestWorkerKilledMidHandover(t *testing.T) {
	// Not a crashTest: the relay holds the handover, so the kill lands at its point whatever else
	// runs, and the test mostly waits for the claim to lapse.
	t.Parallel()
	reached := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	relay := &smtptest.Relay{BeforeData: func() {
		select {
		case <-release:
			return
		default:
		}
		once.Do(func() { close(reached) })
		<-release
	}}
	relay.Start(t)
	s := newSystemAt(t, services{smtp: relay.URL()})
	s.start("api")
	s.start("worker")
	s.key = s.adminKey()
	id := s.create(1)
	s.distribute(id)
	select {
	case <-reached:
	case <-time.After(60 * time.Second):
		t.Fatal("no signing request reached the relay")
	}
	s.kill("worker")
	close(release)
	s.start("worker")
	requests := func() int { return relay.AcceptedTo("signing_request." + strings.TrimPrefix(id, "envelope_") + ".") }
	// The killed attempt's claim holds for the activity's time limit and 30 s more.
	waitFor(t, "both signing requests sent", 4*time.Minute, func() bool { return requests() >= 2 })
	time.Sleep(2 * time.Second)
	if n := requests(); n != 2 {
		t.Errorf("%d signing requests accepted, want one to each signer: %v", n, relay.Accepted())
	}
	status, e := s.call("GET", "/api/v2/envelope/"+id, nil, true)
	recipients, _ := e["recipients"].([]any)
	if status != 200 || len(recipients) != 2 {
		t.Fatalf("GET envelope %s: %d %v", id, status, e)
	}
	for _, r := range recipients {
		if r, _ := r.(map[string]any); r["sendStatus"] != "SENT" {
			t.Errorf("recipient %v: sendStatus %v, want SENT", r["email"], r["sendStatus"])
		}
	}
}
