package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// Every go_* and process_* name that deploy/grafana/exported-metrics.txt lists (and so the
// dashboard may query) is one that the registry of every Sobre process (newRegistry) exports.
func TestRegistryExportsRuntimeMetrics(t *testing.T) {
	families, err := newRegistry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range families {
		have[f.GetName()] = true
	}
	f, err := os.Open("../../deploy/grafana/exported-metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checked := 0
	s := bufio.NewScanner(f)
	for s.Scan() {
		name := strings.TrimSpace(s.Text())
		if !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_") {
			continue
		}
		checked++
		if !have[name] {
			t.Errorf("exported-metrics.txt lists %s, which newRegistry does not export", name)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Error("exported-metrics.txt lists no go_* or process_* metric")
	}
}
