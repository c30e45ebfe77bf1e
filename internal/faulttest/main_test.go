package faulttest

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// parallelTests is how many of this package's tests may run at once: the crash tests take turns
// among themselves (crashTest) and the fault tests of batch_test.go, two at a time (faultTest),
// and the Temporal outage run beside them. Waiting for a turn holds one of go test's -parallel slots, which default to the number of
// CPUs: with two, two crash tests waiting on each other would leave the fault tests to run after
// them. With 16, every test of the package has a slot.
const parallelTests = 16

func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if p := flag.Lookup("test.parallel"); !set && p != nil {
		if n, err := strconv.Atoi(p.Value.String()); err == nil && n < parallelTests {
			_ = p.Value.Set(strconv.Itoa(parallelTests))
		}
	}
	os.Exit(m.Run())
}
