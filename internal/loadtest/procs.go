package loadtest

import (
	"fmt"
	"strconv"
	"strings"
)

// Process is one Sobre process whose memory a run reports: its name (api-1, worker-1) and pid.
type Process struct {
	Name string
	PID  int
}

// ParseProcesses reads "name=pid,name=pid" (the -procs flag); empty is none.
func ParseProcesses(s string) ([]Process, error) {
	var out []Process
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, pid, ok := strings.Cut(part, "=")
		n, err := strconv.Atoi(pid)
		if !ok || name == "" || err != nil || n <= 0 {
			return nil, fmt.Errorf("process %q: want name=pid like worker-1=1234", part)
		}
		out = append(out, Process{Name: name, PID: n})
	}
	return out, nil
}

// MemoryReport is one line per process: its name and Memory, or why it could not be read.
func MemoryReport(ps []Process) string {
	var b strings.Builder
	for _, p := range ps {
		m, err := ReadMemory(p.PID)
		if err != nil {
			fmt.Fprintf(&b, "  %-9s %v\n", p.Name, err)
			continue
		}
		fmt.Fprintf(&b, "  %-9s %s\n", p.Name, m)
	}
	return b.String()
}
