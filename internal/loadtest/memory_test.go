package loadtest

import (
	"os"
	"testing"
)

func TestParseStatus(t *testing.T) {
	for _, tc := range []struct {
		name, status string
		want         Memory
		wantErr      bool
	}{
		{"both", "Name:\tsobre\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t9\n", Memory{RSS: 100 << 20, HWM: 200 << 20}, false},
		{"RSS missing", "VmHWM:\t 1 kB\n", Memory{}, true},
		{"no unit", "VmHWM:\t 1\nVmRSS:\t 1 kB\n", Memory{}, true},
		{"not a number", "VmHWM:\t x kB\nVmRSS:\t 1 kB\n", Memory{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStatus(tc.status)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("parseStatus = %+v, %v; want %+v, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// The test's own process has a resident size, and its peak is at least that.
func TestReadMemoryOfThisProcess(t *testing.T) {
	m, err := ReadMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.HWM < m.RSS {
		t.Errorf("ReadMemory = %+v", m)
	}
}

func TestParseProcesses(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []Process
		wantErr bool
	}{
		{"", nil, false},
		{"api-1=12,worker-1=34", []Process{{"api-1", 12}, {"worker-1", 34}}, false},
		{"api-1=", nil, true},
		{"=12", nil, true},
		{"api-1=-3", nil, true},
		{"api-1", nil, true},
	} {
		got, err := ParseProcesses(tc.in)
		if (err != nil) != tc.wantErr || len(got) != len(tc.want) {
			t.Errorf("ParseProcesses(%q) = %v, %v", tc.in, got, err)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("ParseProcesses(%q)[%d] = %v, want %v", tc.in, i, got[i], tc.want[i])
			}
		}
	}
}
