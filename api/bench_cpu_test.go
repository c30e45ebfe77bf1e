package api

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// On a machine whose cores are all busy, a life cycle's rate is set by the CPU it costs, wherever
// that CPU is spent. cpuMeter tells where: this process (the API, the worker and the benchmark's
// clients), and each service named in SOBRE_BENCH_PIDS ("temporal=PID postgres=PID
// mailpit=PID", set by scripts/bench.sh), a process counted with its children (PostgreSQL's
// backends, live and exited).

// clockTicks is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const clockTicks = 100

// cpuMeter is a reading of the CPU time spent so far by this process and each named service.
type cpuMeter map[string]time.Duration

// readCPU reads the CPU time of this process and of the services in SOBRE_BENCH_PIDS.
func readCPU(b *testing.B) cpuMeter {
	m := cpuMeter{"self": selfCPU(b)}
	for _, entry := range strings.Fields(os.Getenv("SOBRE_BENCH_PIDS")) {
		name, pid, ok := strings.Cut(entry, "=")
		if !ok {
			b.Fatalf("SOBRE_BENCH_PIDS: %q is not name=pid", entry)
		}
		if _, err := strconv.Atoi(pid); err != nil {
			continue // a service not started here: not counted
		}
		if d, ok := treeCPU(pid); ok {
			m[name] = d
		}
	}
	return m
}

// report reports, per life cycle, the CPU each process spent since m was read, and their sum.
func (m cpuMeter) report(b *testing.B) {
	now := readCPU(b)
	var all time.Duration
	for name, before := range m {
		spent := now[name] - before
		all += spent
		b.ReportMetric(float64(spent.Milliseconds())/float64(b.N), name+"-cpu-ms/op")
	}
	b.ReportMetric(float64(all.Milliseconds())/float64(b.N), "cpu-ms/op")
}

func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// treeCPU is the CPU time of process pid, of the children it reaped, and of its live children.
func treeCPU(pid string) (time.Duration, bool) {
	own, ok := statCPU(filepath.Join("/proc", pid, "stat"), true)
	if !ok {
		return 0, false
	}
	children, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range children {
		if ppidOf(path) == pid {
			d, _ := statCPU(path, false)
			own += d
		}
	}
	return own, true
}

// statFields are the fields of /proc/PID/stat after the command's closing parenthesis.
func statFields(path string) []string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := string(raw)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

func ppidOf(path string) string {
	if f := statFields(path); len(f) > 1 {
		return f[1]
	}
	return ""
}

// statCPU reads utime and stime (fields 14 and 15 of proc(5)), and with reaped also cutime and
// cstime.
func statCPU(path string, reaped bool) (time.Duration, bool) {
	f := statFields(path)
	if len(f) < 15 {
		return 0, false
	}
	// The fields after the command start at the state, field 3: utime is f[11].
	end := 13
	if reaped {
		end = 15
	}
	var ticks int64
	for _, v := range f[11:end] {
		n, _ := strconv.ParseInt(v, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, true
}
