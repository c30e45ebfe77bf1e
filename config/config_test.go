package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/internal/keyring"
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
	if c.AccessCodeMaxFailures != 20 || c.LinkReadDays != 30 || c.LinkRead() != 30*24*time.Hour {
		t.Errorf("access code ceiling %d, link read days %d (%v); want 20 and 30", c.AccessCodeMaxFailures, c.LinkReadDays, c.LinkRead())
	}
}

func TestLoadCodeCeilingAndLinkDays(t *testing.T) {
	c, err := Load(env(map[string]string{"SOBRE_ACCESS_CODE_MAX_FAILURES": "5", "SOBRE_LINK_READ_DAYS": "0"}))
	if err != nil || c.AccessCodeMaxFailures != 5 || c.LinkRead() != 0 {
		t.Fatalf("got %d, %v, %v", c.AccessCodeMaxFailures, c.LinkRead(), err)
	}
	for _, bad := range []map[string]string{
		{"SOBRE_ACCESS_CODE_MAX_FAILURES": "0"}, {"SOBRE_ACCESS_CODE_MAX_FAILURES": "many"},
		{"SOBRE_LINK_READ_DAYS": "-1"}, {"SOBRE_LINK_READ_DAYS": "30d"},
	} {
		_, err := Load(env(bad))
		for name := range bad {
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%v: error %v does not name %s", bad, err, name)
			}
		}
	}
}

func TestFEADefaults(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.FEARevocation != "prefer" || c.FEAPolicyOIDs != nil {
		t.Errorf("FEA defaults: revocation %q, policies %v", c.FEARevocation, c.FEAPolicyOIDs)
	}
}

func TestFEAPolicies(t *testing.T) {
	c, err := Load(env(map[string]string{"SOBRE_FEA_POLICY_OIDS": " 2.16.152.1.1.1 ,1.3.6.1.4.1.99999.1,", "SOBRE_FEA_REVOCATION": "require"}))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.FEAPolicyOIDs, " ") != "2.16.152.1.1.1 1.3.6.1.4.1.99999.1" || c.FEARevocation != "require" {
		t.Errorf("got %v %q", c.FEAPolicyOIDs, c.FEARevocation)
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
	_, err = Load(env(map[string]string{"SOBRE_LOG_LEVEL": "loud", "SOBRE_MAX_BODY_BYTES": "x", "SOBRE_PUBLIC_URL": "ftp://a",
		"SOBRE_FEA_POLICY_OIDS": "2.16.152.1, not-an-oid", "SOBRE_FEA_REVOCATION": "sometimes"}))
	for _, want := range []string{"SOBRE_LOG_LEVEL", "SOBRE_MAX_BODY_BYTES", "SOBRE_PUBLIC_URL", `SOBRE_FEA_POLICY_OIDS: "not-an-oid"`, "SOBRE_FEA_REVOCATION"} {
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

// Without SOBRE_PAYLOAD_KEYS_FILE, the first process makes a development key file and every
// later one reads the same keys; with it, that file's keys are used.
func TestKeyring(t *testing.T) {
	dir := t.TempDir()
	c := Config{SealDevDir: dir}
	first, created, err := c.Keyring()
	if err != nil || !created {
		t.Fatalf("first: created %v, %v", created, err)
	}
	again, created, err := c.Keyring()
	if err != nil || created {
		t.Fatalf("again: created %v, %v", created, err)
	}
	id, sealed := first.Seal([]byte("x"), nil)
	if got, err := again.Open(id, sealed, nil); err != nil || string(got) != "x" {
		t.Errorf("the second load opens %q, %v", got, err)
	}

	file := filepath.Join(dir, "keys")
	if err := os.WriteFile(file, []byte(keyring.NewKeyLine("prod1")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.PayloadKeysFile = file
	ring, created, err := c.Keyring()
	if err != nil || created || ring.PrimaryID() != "prod1" {
		t.Errorf("from the file: %v, created %v, %v", ring, created, err)
	}
	c.PayloadKeysFile = filepath.Join(dir, "missing")
	if _, _, err := c.Keyring(); err == nil {
		t.Error("a missing key file was accepted")
	}
}

func TestTrustedProxies(t *testing.T) {
	c, err := Load(env(map[string]string{"SOBRE_TRUSTED_PROXIES": " 10.0.0.0/8, 192.168.1.7 ,fd00::/8,10.1.2.3/16", "SOBRE_TRUST_PROXY": "false"}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.TrustedProxies {
		got = append(got, p.String())
	}
	if strings.Join(got, " ") != "10.0.0.0/8 192.168.1.7/32 fd00::/8 10.1.0.0/16" {
		t.Errorf("trusted proxies %v", got)
	}
	if c, err := Load(env(nil)); err != nil || c.TrustedProxies != nil {
		t.Errorf("default: %v, %v", c.TrustedProxies, err)
	}
	for _, bad := range []map[string]string{
		{"SOBRE_TRUSTED_PROXIES": "10.0.0.0/33"}, {"SOBRE_TRUSTED_PROXIES": "proxy.internal"}, {"SOBRE_TRUSTED_PROXIES": "fe80::1%eth0"},
	} {
		if _, err := Load(env(bad)); err == nil || !strings.Contains(err.Error(), "SOBRE_TRUSTED_PROXIES") {
			t.Errorf("%v: error %v does not name SOBRE_TRUSTED_PROXIES", bad, err)
		}
	}
	// The old variable trusted every peer's leftmost entry: true is refused, naming the new one.
	for _, old := range []string{"true", "1", "yes"} {
		_, err := Load(env(map[string]string{"SOBRE_TRUST_PROXY": old}))
		if err == nil || !strings.Contains(err.Error(), "SOBRE_TRUST_PROXY") || !strings.Contains(err.Error(), "SOBRE_TRUSTED_PROXIES") {
			t.Errorf("SOBRE_TRUST_PROXY=%s: %v", old, err)
		}
	}
}

func TestTemporalTLSAndCodecServer(t *testing.T) {
	key := filepath.Join(t.TempDir(), "temporal-api-key")
	if err := os.WriteFile(key, []byte("tk_123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(env(map[string]string{"TEMPORAL_TLS_CERT_FILE": "c.pem", "TEMPORAL_TLS_KEY_FILE": "k.pem", "TEMPORAL_API_KEY_FILE": key,
		"SOBRE_CODEC_CORS_ORIGINS": "https://temporal.example.cl/, http://127.0.0.1:8233"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.TemporalAPIKey != "tk_123" || c.TemporalTLSCertFile != "c.pem" || c.CodecAddr != "127.0.0.1:8234" ||
		strings.Join(c.CodecCORSOrigins, " ") != "https://temporal.example.cl http://127.0.0.1:8233" {
		t.Errorf("got %+v", c)
	}
	if c, _ := Load(env(nil)); strings.Join(c.CodecCORSOrigins, " ") != "http://127.0.0.1:8233 http://localhost:8233" || c.CodecToken != "" {
		t.Errorf("codec server defaults: origins %v, token %q", c.CodecCORSOrigins, c.CodecToken)
	}
	for name, bad := range map[string]map[string]string{
		"TEMPORAL_TLS_KEY_FILE":    {"TEMPORAL_TLS_CERT_FILE": "c.pem"},
		"TEMPORAL_TLS_CERT_FILE":   {"TEMPORAL_TLS_KEY_FILE": "k.pem"},
		"SOBRE_CODEC_CORS_ORIGINS": {"SOBRE_CODEC_CORS_ORIGINS": "https://ui.example.cl/namespaces"},
	} {
		if _, err := Load(env(bad)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%v: error %v does not name %s", bad, err, name)
		}
	}
}

// A scheme's case does not matter (RFC 3986): SOBRE_PUBLIC_URL=HTTPS://… is loaded as https://…,
// and served over HTTPS for every part that asks (ServedOverHTTPS).
func TestPublicURLSchemeCase(t *testing.T) {
	c, err := Load(env(map[string]string{"SOBRE_PUBLIC_URL": "HTTPS://Sign.example.cl/Firma/"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.PublicURL != "https://Sign.example.cl/Firma" {
		t.Errorf("PublicURL %q, want https://Sign.example.cl/Firma", c.PublicURL)
	}
	for s, want := range map[string]bool{"https://a.cl": true, "HTTPS://a.cl": true, "HtTpS://a.cl/x": true,
		"http://a.cl": false, "https://": false, "httpsx://a.cl": false, "": false} {
		if got := ServedOverHTTPS(s); got != want {
			t.Errorf("ServedOverHTTPS(%q) = %v, want %v", s, got, want)
		}
	}
}
