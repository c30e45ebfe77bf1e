package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) Getenv { return func(k string) string { return m[k] } }

func TestLoadDefaults(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != "127.0.0.1:8080" || c.TaskQueue != "sobre-envelopes" || c.ShutdownTimeout != 20*time.Second {
		t.Errorf("defaults: %+v", c)
	}
}

func TestLoadFileAndErrors(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "db")
	if err := os.WriteFile(secret, []byte("postgres://x@y/z\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(env(map[string]string{"DATABASE_URL_FILE": secret, "SOBRE_PUBLIC_URL": "https://sign.example.cl/"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.DatabaseURL != "postgres://x@y/z" || c.PublicURL != "https://sign.example.cl" {
		t.Errorf("got %q %q", c.DatabaseURL, c.PublicURL)
	}
	_, err = Load(env(map[string]string{"SOBRE_LOG_LEVEL": "loud", "SOBRE_MAX_BODY_BYTES": "x", "SOBRE_PUBLIC_URL": "ftp://a"}))
	for _, want := range []string{"SOBRE_LOG_LEVEL", "SOBRE_MAX_BODY_BYTES", "SOBRE_PUBLIC_URL"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
}

// The README documents every variable with its default.
func TestREADMEListsEveryVariable(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Vars() {
		row := "| `" + v.Name + "` | `" + v.Default + "` |"
		if !strings.Contains(string(readme), row) {
			t.Errorf("README lacks the row %q", row)
		}
	}
}
