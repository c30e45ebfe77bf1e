package loadtest

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Memory is a process's resident memory as /proc/<pid>/status reports it, in bytes: RSS now
// (VmRSS) and its peak since the process started (VmHWM).
type Memory struct {
	RSS, HWM int64
}

func (m Memory) String() string {
	return fmt.Sprintf("RSS %.0f MB (peak %.0f MB)", float64(m.RSS)/1e6, float64(m.HWM)/1e6)
}

// ReadMemory reads process pid's Memory from /proc.
func ReadMemory(pid int) (Memory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, fmt.Errorf("memory of process %d: %w", pid, err)
	}
	m, err := parseStatus(string(b))
	if err != nil {
		return Memory{}, fmt.Errorf("memory of process %d: %w", pid, err)
	}
	return m, nil
}

// parseStatus reads VmRSS and VmHWM ("VmRSS:\t  123456 kB") from a /proc/<pid>/status text;
// both must be there.
func parseStatus(status string) (Memory, error) {
	var m Memory
	found := 0
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			return Memory{}, fmt.Errorf("%s: want a size in kB, got %q", name, value)
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("%s: %w", name, err)
		}
		if name == "VmRSS" {
			m.RSS = kb * 1024
		} else {
			m.HWM = kb * 1024
		}
		found++
	}
	if found != 2 {
		return Memory{}, fmt.Errorf("VmRSS or VmHWM missing")
	}
	return m, nil
}
