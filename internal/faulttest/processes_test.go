package faulttest

import (
	"testing"
	"time"
)

// (c) One of two workers is killed with SIGKILL mid batch and not started again: the other
// carries the batch to its end.
func TestOneOfTwoWorkersKilledMidBatch(t *testing.T) {
	crashTest(t)
	s := newSystem(t)
	s.start("api")
	s.start("worker")
	s.start("worker2")
	s.key = s.adminKey()
	b := newBatch(s, faultBatch(t), nil)
	b.run(func() { s.kill("worker2"); b.waitSigned(b.recipients()) })
	b.check(3 * time.Minute)
}

// (d) One of two APIs is killed with SIGKILL mid batch and not started again: the signers on it
// see their connection refused and move to the other, and nothing is lost.
func TestOneOfTwoAPIsKilledMidBatch(t *testing.T) {
	crashTest(t)
	s := newSystem(t)
	s.start("api")
	s.start("api2")
	s.start("worker")
	s.key = s.adminKey()
	b := newBatch(s, faultBatch(t), nil)
	b.apis = []string{s.apis["api"], s.apis["api2"]}
	b.run(func() { s.kill("api2"); b.waitSigned(b.recipients()) })
	b.check(3 * time.Minute)
}
