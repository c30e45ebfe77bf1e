package main

import (
	"bytes"
	"strings"
	"testing"
)

// In production, the long-running commands stop before they connect to anything when a
// development setting is left, and say which.
func TestProductionRefusesDevelopmentSettings(t *testing.T) {
	t.Setenv("SOBRE_ENV", "production")
	t.Setenv("DATABASE_URL", "postgres://sobre@127.0.0.1:1/sobre?sslmode=disable")
	t.Setenv("SOBRE_LOG_LEVEL", "error")
	every := []string{"SOBRE_PUBLIC_URL", "DATABASE_URL", "SOBRE_PAYLOAD_KEYS_FILE", "SOBRE_AUDIT_KEY_FILE"}
	api := []string{"CLAVEUNICA_ISSUER_URL", "CLAVEUNICA_CLIENT_SECRET"}
	worker := []string{"SOBRE_SEAL_P12"}
	for _, c := range []struct {
		cmd        string
		named, not []string
	}{
		{"serve", append(every, api...), worker},
		{"worker", append(every, worker...), api},
		{"dev", append(append(every, api...), worker...), nil},
	} {
		var out bytes.Buffer
		err := run([]string{c.cmd}, &out, &out)
		if err == nil {
			t.Fatalf("%s started", c.cmd)
		}
		for _, name := range c.named {
			if !strings.Contains(err.Error(), name+": ") {
				t.Errorf("%s: the refusal does not name %s: %v", c.cmd, name, err)
			}
		}
		for _, name := range c.not {
			if strings.Contains(err.Error(), name+": ") {
				t.Errorf("%s: the refusal names %s, which it does not use: %v", c.cmd, name, err)
			}
		}
	}
}
