package workflows_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"go.temporal.io/sdk/worker"

	"github.com/sobre-sign/sobre/internal/keyring"
	"github.com/sobre-sign/sobre/internal/payloadcodec"
	"github.com/sobre-sign/sobre/workflows"
)

// Histories recorded from earlier versions of EnvelopeWorkflow (testdata/*.json) must replay
// through today's code: a change that breaks them needs workflow.GetVersion. They replay with
// the payload codec, as a worker reads the histories written before it (their payloads in
// clear).
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("recorded histories in testdata: %v, want the first release's and today's", files)
	}
	ring, err := keyring.Parse([]byte(keyring.NewKeyLine("replay")))
	if err != nil {
		t.Fatal(err)
	}
	dc := payloadcodec.DataConverter(ring)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{DataConverter: dc, FailureConverter: payloadcodec.FailureConverter(dc)})
			if err != nil {
				t.Fatal(err)
			}
			replayer.RegisterWorkflow(workflows.EnvelopeWorkflow)
			if err := replayer.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Fatalf("replay %s: %v", f, err)
			}
		})
	}
}

// The recorded histories are committed: none holds a signing token (a recipient's "token" in
// any payload).
func TestRecordedHistoriesHoldNoToken(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	token := regexp.MustCompile(`"(?i:token)"\s*:\s*"[^"]`)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		payloads := 0
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if data, ok := v["data"].(string); ok && v["metadata"] != nil {
					var b []byte
					if err := json.Unmarshal([]byte(`"`+data+`"`), &b); err == nil { // base64, as protojson writes bytes
						payloads++
						if token.Match(b) {
							t.Errorf("%s: a payload holds a signing token: %.200s", f, b)
						}
					}
				}
				for _, x := range v {
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		walk(doc)
		if payloads < 10 {
			t.Errorf("%s: only %d payloads read", f, payloads)
		}
	}
}
