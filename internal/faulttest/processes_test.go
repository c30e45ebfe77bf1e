package faulttest

import (
	"testing"
	"time"
)

// (c) One of two workers is killed with SIGKILL mid batch and not started again: the other
// carries the batch to its end.
func TestOneOfTwoWorkersKilledMidBatch(t *testing.T) {
	oneOfTwoKilledMidBatch(t, "worker2")
}

// (d) One of two APIs is killed with SIGKILL mid batch and not started again: the signers on it
// see their connection refused or cut and move to the other, and nothing is lost.
func TestOneOfTwoAPIsKilledMidBatch(t *testing.T) {
	oneOfTwoKilledMidBatch(t, "api2")
}

// oneOfTwoKilledMidBatch runs a batch on two APIs and two workers, their signers spread over
// both APIs, and kills the process victim ("api2" or "worker2") once a quarter of the signatures
// are in. What the signers see from the kill to the batch's end is the fault's. The kill follows
// the batch's progress, not a clock, so it runs beside the crash tests (faultTest).
func oneOfTwoKilledMidBatch(t *testing.T, victim string) {
	faultTest(t)
	s := newSystemAt(t, ownMail(t, services{}))
	for _, name := range []string{"api", "api2", "worker", "worker2"} {
		s.start(name)
	}
	s.key = s.adminKey()
	b := newBatch(s, faultBatch(t), nil)
	b.apis = []string{s.apis["api"], s.apis["api2"]}
	b.run(func() {
		s.kill(victim)
		b.waitSigned(b.recipients())
	})
	b.check(3 * time.Minute)
}
