package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseEmbedOrigin(t *testing.T) {
	for _, tc := range []struct {
		raw      string
		loopback bool
		want     string // "" when refused
	}{
		{"https://app.example.com", false, "https://app.example.com"},
		{"https://App.Example.com:443", false, "https://app.example.com"},
		{"https://app.example.com:8443/", false, "https://app.example.com:8443"},
		{" https://app.example.com ", false, "https://app.example.com"},
		{"https://[::1]:9000", false, "https://[::1]:9000"},
		{"http://localhost:3000", true, "http://localhost:3000"},
		{"http://127.0.0.1:3000", true, "http://127.0.0.1:3000"},
		{"http://127.0.0.1:80", true, "http://127.0.0.1"},
		{"http://[::1]:3000", true, "http://[::1]:3000"},
		{"http://localhost:3000", false, ""},
		{"http://app.example.com", true, ""},
		{"https://app.example.com/embed", false, ""},
		{"https://app.example.com?x=1", false, ""},
		{"https://app.example.com#x", false, ""},
		{"https://user@app.example.com", false, ""},
		{"https://*.example.com", false, ""},
		{"app.example.com", false, ""},
		{"ftp://app.example.com", false, ""},
		{"javascript:alert(1)", false, ""},
		{"*", false, ""},
		{"'self'", false, ""},
		{"https://", false, ""},
		// Written into a Content-Security-Policy: nothing that ends the directive or adds a source.
		{"https://a.example.com;report-uri", false, ""},
		{"https://a.example.com;script-src", false, ""},
		{"https://a.example.com,https://b.example.com", false, ""},
		{"https://a.example.com'unsafe-inline'", false, ""},
		{`https://a.example.com"`, false, ""},
		{"https://a.example.com$", false, ""},
		{"https://a_b.example.com", false, ""},
		{"https://-a.example.com", false, ""},
		{"https://a..example.com", false, ""},
		{"https://a.example.com.", false, ""},
		{"https://ünicode.example.com", false, ""},
		{"https://xn--nicode-2ya.example.com", false, "https://xn--nicode-2ya.example.com"},
		{"https://a.example.com:0", false, ""},
		{"https://a.example.com:99999", false, ""},
		{"https://a.example.com:65535", false, "https://a.example.com:65535"},
		{"https://192.0.2.1:8443", false, "https://192.0.2.1:8443"},
	} {
		got, err := ParseEmbedOrigin(tc.raw, tc.loopback)
		if tc.want == "" {
			if err == nil {
				t.Errorf("ParseEmbedOrigin(%q, %v) = %q, want refused", tc.raw, tc.loopback, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseEmbedOrigin(%q, %v) = %q, %v; want %q", tc.raw, tc.loopback, got, err, tc.want)
		}
	}
}

func TestEmbedOriginsVariable(t *testing.T) {
	env := func(vars map[string]string) Getenv {
		return func(k string) string { return vars[k] }
	}
	c, err := Load(env(map[string]string{"SOBRE_EMBED_ORIGINS": "https://a.example.com, https://A.example.com:443,http://localhost:3000"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://a.example.com", "http://localhost:3000"}; !reflect.DeepEqual(c.EmbedOrigins, want) {
		t.Errorf("EmbedOrigins = %q, want %q", c.EmbedOrigins, want)
	}
	if _, err := Load(env(map[string]string{"SOBRE_EMBED_ORIGINS": "https://a.example.com/path"})); err == nil {
		t.Error("an origin with a path was accepted")
	}
	if _, err := Load(env(map[string]string{"SOBRE_ENV": "production", "SOBRE_EMBED_ORIGINS": "http://localhost:3000"})); err == nil || !strings.Contains(err.Error(), "SOBRE_EMBED_ORIGINS") {
		t.Error("an http origin was accepted in production")
	}
}
