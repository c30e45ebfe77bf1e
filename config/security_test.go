package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadAPIKeyDays(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil || c.APIKeyDays != 365 || c.APIKeyLifetime() != 365*24*time.Hour {
		t.Fatalf("default: %d days, %v", c.APIKeyDays, err)
	}
	if c, err = Load(env(map[string]string{"SOBRE_API_KEY_DAYS": "30"})); err != nil || c.APIKeyLifetime() != 30*24*time.Hour {
		t.Fatalf("30 days: %v, %v", c.APIKeyLifetime(), err)
	}
	for _, bad := range []string{"0", "-1", "1y", "36501"} {
		if _, err := Load(env(map[string]string{"SOBRE_API_KEY_DAYS": bad})); err == nil || !strings.Contains(err.Error(), "SOBRE_API_KEY_DAYS") {
			t.Errorf("SOBRE_API_KEY_DAYS=%s: %v", bad, err)
		}
	}
}

func TestLoadMetricsAddr(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil || c.MetricsAddr != "127.0.0.1:9090" {
		t.Fatalf("default: %q, %v", c.MetricsAddr, err)
	}
	_, err = Load(env(map[string]string{"SOBRE_HTTP_ADDR": "0.0.0.0:8080", "SOBRE_METRICS_ADDR": "0.0.0.0:8080"}))
	if err == nil || !strings.Contains(err.Error(), "SOBRE_METRICS_ADDR") {
		t.Errorf("one address for both listeners: %v", err)
	}
}

// Without SOBRE_AUDIT_KEY_FILE, the first process makes a development audit key file beside the
// development seal and every later one uses the same; with it, that file is used.
func TestAuditKeyPath(t *testing.T) {
	dir := t.TempDir()
	c := Config{SealDevDir: filepath.Join(dir, "dev")}
	path, created, err := c.AuditKeyPath()
	if err != nil || !created || filepath.Dir(path) != c.SealDevDir {
		t.Fatalf("first: %q, created %v, %v", path, created, err)
	}
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("development key file mode %v", info.Mode().Perm())
	}
	again, created, err := c.AuditKeyPath()
	if err != nil || created || again != path {
		t.Fatalf("again: %q, created %v, %v", again, created, err)
	}
	if second, _ := os.ReadFile(again); string(second) != string(first) {
		t.Error("the development key changed")
	}
	c.AuditKeyFile = filepath.Join(dir, "audit.key")
	if got, created, err := c.AuditKeyPath(); got != c.AuditKeyFile || created || err != nil {
		t.Errorf("SOBRE_AUDIT_KEY_FILE: %q, %v, %v", got, created, err)
	}
}
