package config

import (
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
