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
	for _, cmd := range []string{"serve", "worker", "dev"} {
		var out bytes.Buffer
		err := run([]string{cmd}, &out, &out)
		if err == nil {
			t.Fatalf("%s started", cmd)
		}
		for _, name := range []string{"SOBRE_PUBLIC_URL", "DATABASE_URL", "CLAVEUNICA_ISSUER_URL", "CLAVEUNICA_CLIENT_SECRET", "SOBRE_SEAL_P12", "SOBRE_PAYLOAD_KEYS_FILE"} {
			if !strings.Contains(err.Error(), name+": ") {
				t.Errorf("%s: the refusal does not name %s: %v", cmd, name, err)
			}
		}
	}
}
