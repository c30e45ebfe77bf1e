package config

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The public keys production refuses are those of the files in testdata/fea today: a
// regenerated test CA fails here until TestFEAAuthorities follows it.
func TestTestFEAAuthoritiesMatchTestdata(t *testing.T) {
	seen := map[string]bool{}
	for sum, name := range TestFEAAuthorities {
		data, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		block, _ := pem.Decode(data)
		if block == nil {
			t.Fatalf("%s: no PEM block", name)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s has SHA-256 %x, TestFEAAuthorities says %s", name, got, sum)
		}
		seen[name] = true
	}
	for _, name := range []string{"testdata/fea/root.pem", "testdata/fea/intermediate.pem", "testdata/fea/untrusted-root.pem"} {
		if !seen[name] {
			t.Errorf("%s is not among TestFEAAuthorities", name)
		}
	}
}

// productionEnv is a production configuration CheckProduction accepts: every row of the table
// changes one thing of it.
func productionEnv(t *testing.T) map[string]string {
	dir := t.TempDir()
	keys := filepath.Join(dir, "payload-keys")
	if err := os.WriteFile(keys, []byte("k1 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"SOBRE_ENV":                EnvProduction,
		"SOBRE_PUBLIC_URL":         "https://firma.example.cl",
		"DATABASE_URL":             "postgres://sobre@db.example.cl:5432/sobre?sslmode=verify-full",
		"CLAVEUNICA_ISSUER_URL":    "https://accounts.claveunica.gob.cl/openid",
		"CLAVEUNICA_CLIENT_SECRET": "a-registered-secret",
		"SOBRE_SEAL_P12":           "/run/secrets/seal.p12",
		"SOBRE_PAYLOAD_KEYS_FILE":  keys,
		"SOBRE_AUDIT_KEY_FILE":     keys,
	}
}

func TestCheckProduction(t *testing.T) {
	t.Setenv("PGSSLMODE", "") // the rows name their sslmode, or mean libpq's default
	dir := t.TempDir()
	// A bundle holding another certificate and, further down, the test root: refused all the same.
	testRoot, err := os.ReadFile("../testdata/fea/root.pem")
	if err != nil {
		t.Fatal(err)
	}
	holder, err := os.ReadFile("../testdata/fea/holder-44444444-4.pem")
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(dir, "bundle.pem")
	if err := os.WriteFile(bundle, append(append([]byte{}, holder...), testRoot...), 0o600); err != nil {
		t.Fatal(err)
	}
	intermediate := filepath.Join(dir, "renamed.pem")
	data, err := os.ReadFile("../testdata/fea/intermediate.pem")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(intermediate, data, 0o600); err != nil {
		t.Fatal(err)
	}
	holderOnly := filepath.Join(dir, "holder.pem")
	if err := os.WriteFile(holderOnly, holder, 0o600); err != nil {
		t.Fatal(err)
	}

	both := ProcessAPI | ProcessWorker
	tests := []struct {
		name    string
		process Process // both when 0
		change  map[string]string
		refused []string // variables named, in any order; none: accepted
	}{
		{"production as it should be", 0, nil, nil},
		{"development accepts the defaults", 0, map[string]string{"SOBRE_ENV": "", "SOBRE_PUBLIC_URL": "", "DATABASE_URL": "", "CLAVEUNICA_ISSUER_URL": "",
			"CLAVEUNICA_CLIENT_SECRET": "", "SOBRE_SEAL_P12": "", "SOBRE_PAYLOAD_KEYS_FILE": ""}, nil},
		{"http public URL", 0, map[string]string{"SOBRE_PUBLIC_URL": "http://firma.example.cl"}, []string{"SOBRE_PUBLIC_URL"}},
		{"http issuer", 0, map[string]string{"CLAVEUNICA_ISSUER_URL": "http://127.0.0.1:8091/openid"}, []string{"CLAVEUNICA_ISSUER_URL"}},
		{"default issuer and secret", 0, map[string]string{"CLAVEUNICA_ISSUER_URL": "", "CLAVEUNICA_CLIENT_SECRET": ""},
			[]string{"CLAVEUNICA_ISSUER_URL", "CLAVEUNICA_CLIENT_SECRET"}},
		{"development secret", 0, map[string]string{"CLAVEUNICA_CLIENT_SECRET": "sobre-dev-secret"}, []string{"CLAVEUNICA_CLIENT_SECRET"}},
		{"http logout", 0, map[string]string{"CLAVEUNICA_LOGOUT_URL": "http://accounts.claveunica.gob.cl/api/v1/accounts/app/logout"}, []string{"CLAVEUNICA_LOGOUT_URL"}},
		{"https logout", 0, map[string]string{"CLAVEUNICA_LOGOUT_URL": "https://accounts.claveunica.gob.cl/api/v1/accounts/app/logout"}, nil},
		{"no seal: the development seal", 0, map[string]string{"SOBRE_SEAL_P12": ""}, []string{"SOBRE_SEAL_P12"}},
		{"a seal in PEM files", 0, map[string]string{"SOBRE_SEAL_P12": "", "SOBRE_SEAL_CERT_FILE": "/s/cert.pem", "SOBRE_SEAL_KEY_FILE": "/s/key.pem"}, nil},
		{"the test root among others", 0, map[string]string{"SOBRE_FEA_TRUST_ROOTS": bundle}, []string{"SOBRE_FEA_TRUST_ROOTS"}},
		{"the test intermediate under another name", 0, map[string]string{"SOBRE_FEA_TRUST_ROOTS": intermediate}, []string{"SOBRE_FEA_TRUST_ROOTS"}},
		{"a certificate that is no test authority", 0, map[string]string{"SOBRE_FEA_TRUST_ROOTS": holderOnly}, nil},
		{"trust roots that cannot be read", 0, map[string]string{"SOBRE_FEA_TRUST_ROOTS": filepath.Join(dir, "missing.pem")}, []string{"SOBRE_FEA_TRUST_ROOTS"}},
		{"sslmode=disable", 0, map[string]string{"DATABASE_URL": "postgres://sobre@db.example.cl/sobre?sslmode=disable"}, []string{"DATABASE_URL"}},
		{"no sslmode: prefer", 0, map[string]string{"DATABASE_URL": "postgres://sobre@db.example.cl/sobre"}, []string{"DATABASE_URL"}},
		{"sslmode=require", 0, map[string]string{"DATABASE_URL": "postgres://sobre@db.example.cl/sobre?sslmode=require"}, []string{"DATABASE_URL"}},
		{"sslmode=verify-ca", 0, map[string]string{"DATABASE_URL": "postgres://sobre@db.example.cl/sobre?sslmode=verify-ca&sslrootcert=../testdata/fea/root.pem"}, []string{"DATABASE_URL"}},
		{"keyword/value verify-full", 0, map[string]string{"DATABASE_URL": "host=db.example.cl user=sobre dbname=sobre sslmode=verify-full"}, nil},
		{"sslrootcert=system is verify-full", 0, map[string]string{"DATABASE_URL": "postgres://sobre@db.example.cl/sobre?sslrootcert=system"}, nil},
		{"a second host that falls back to plain text", 0, map[string]string{"DATABASE_URL": "postgres://sobre@db1.example.cl,db2.example.cl/sobre?sslmode=prefer"}, []string{"DATABASE_URL"}},
		{"a Unix socket", 0, map[string]string{"DATABASE_URL": "host=/var/run/postgresql user=sobre dbname=sobre"}, nil},
		{"no payload key file", 0, map[string]string{"SOBRE_PAYLOAD_KEYS_FILE": ""}, []string{"SOBRE_PAYLOAD_KEYS_FILE"}},
		{"no audit key file", 0, map[string]string{"SOBRE_AUDIT_KEY_FILE": ""}, []string{"SOBRE_AUDIT_KEY_FILE"}},
		{"a worker holds no Clave Única secret and trusts no FAO_HASH root", ProcessWorker,
			map[string]string{"CLAVEUNICA_CLIENT_SECRET": "", "SOBRE_FEA_TRUST_ROOTS": "../testdata/fea/root.pem"}, nil},
		{"a worker needs a seal", ProcessWorker, map[string]string{"SOBRE_SEAL_P12": ""}, []string{"SOBRE_SEAL_P12"}},
		{"an API process seals nothing", ProcessAPI, map[string]string{"SOBRE_SEAL_P12": ""}, nil},
		{"an API process needs the Clave Única secret", ProcessAPI, map[string]string{"CLAVEUNICA_CLIENT_SECRET": ""}, []string{"CLAVEUNICA_CLIENT_SECRET"}},
		{"an API process trusts no test root", ProcessAPI, map[string]string{"SOBRE_FEA_TRUST_ROOTS": "../testdata/fea/root.pem"}, []string{"SOBRE_FEA_TRUST_ROOTS"}},
		{"webhooks reaching private addresses", 0, map[string]string{"SOBRE_WEBHOOK_ALLOW_PRIVATE": "true"}, []string{"SOBRE_WEBHOOK_ALLOW_PRIVATE"}},
		{"a worker's webhooks reaching private addresses", ProcessWorker, map[string]string{"SOBRE_WEBHOOK_ALLOW_PRIVATE": "true"}, []string{"SOBRE_WEBHOOK_ALLOW_PRIVATE"}},
		{"an API process's webhooks reaching private addresses", ProcessAPI, map[string]string{"SOBRE_WEBHOOK_ALLOW_PRIVATE": "true"}, []string{"SOBRE_WEBHOOK_ALLOW_PRIVATE"}},
		{"webhooks through a proxy", 0, map[string]string{"SOBRE_WEBHOOK_PROXY": "http://proxy.example.cl:3128"}, nil},
		{"everything at once, all reported", 0, map[string]string{"SOBRE_PUBLIC_URL": "", "DATABASE_URL": "", "CLAVEUNICA_ISSUER_URL": "", "CLAVEUNICA_CLIENT_SECRET": "",
			"SOBRE_SEAL_P12": "", "SOBRE_PAYLOAD_KEYS_FILE": "", "SOBRE_AUDIT_KEY_FILE": "", "SOBRE_FEA_TRUST_ROOTS": "../testdata/fea/root.pem",
			"SOBRE_WEBHOOK_ALLOW_PRIVATE": "true"},
			[]string{"SOBRE_PUBLIC_URL", "DATABASE_URL", "CLAVEUNICA_ISSUER_URL", "CLAVEUNICA_CLIENT_SECRET", "SOBRE_SEAL_P12", "SOBRE_PAYLOAD_KEYS_FILE",
				"SOBRE_AUDIT_KEY_FILE", "SOBRE_FEA_TRUST_ROOTS", "SOBRE_WEBHOOK_ALLOW_PRIVATE"}},
	}
	all := []string{"SOBRE_PUBLIC_URL", "DATABASE_URL", "CLAVEUNICA_ISSUER_URL", "CLAVEUNICA_CLIENT_SECRET", "CLAVEUNICA_LOGOUT_URL",
		"SOBRE_SEAL_P12", "SOBRE_FEA_TRUST_ROOTS", "SOBRE_PAYLOAD_KEYS_FILE", "SOBRE_AUDIT_KEY_FILE", "SOBRE_WEBHOOK_ALLOW_PRIVATE"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := productionEnv(t)
			for k, v := range tt.change {
				vars[k] = v
			}
			c, err := Load(env(vars))
			if err != nil {
				t.Fatal(err)
			}
			process := tt.process
			if process == 0 {
				process = both
			}
			err = c.CheckProduction(process)
			if len(tt.refused) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted; want %v refused", tt.refused)
			}
			for _, name := range all {
				want := strings.Contains(strings.Join(tt.refused, " "), name)
				if got := strings.Contains(err.Error(), name+": "); got != want {
					t.Errorf("names %s: %v, want %v (%v)", name, got, want, err)
				}
			}
			if strings.Contains(err.Error(), "sobre@") {
				t.Errorf("the refusal quotes the database URL: %v", err)
			}
		})
	}
}

func TestLoadEnv(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil || c.Env != EnvDevelopment {
		t.Fatalf("default: %q, %v", c.Env, err)
	}
	if _, err := Load(env(map[string]string{"SOBRE_ENV": "prod"})); err == nil || !strings.Contains(err.Error(), "SOBRE_ENV") {
		t.Errorf("SOBRE_ENV=prod: %v", err)
	}
}

// A test authority is recognised by its public key: a copy of the test root with a bit of its
// signature flipped has another certificate fingerprint, and Go still trusts it as a root (an
// anchor's own signature is never checked), so it must be found all the same.
func TestTestAuthorityWithAnotherSignature(t *testing.T) {
	read := func(name string) []byte {
		t.Helper()
		data, err := os.ReadFile(filepath.Join("..", "testdata", "fea", name))
		if err != nil {
			t.Fatal(err)
		}
		block, _ := pem.Decode(data)
		if block == nil {
			t.Fatalf("%s: no PEM block", name)
		}
		return block.Bytes
	}
	der := read("root.pem")
	flipped := append([]byte(nil), der...)
	flipped[len(flipped)-1] ^= 0x01 // the last byte of the signature
	root, err := x509.ParseCertificate(flipped)
	if err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(flipped) == sha256.Sum256(der) {
		t.Fatal("the copy has the same fingerprint")
	}
	// Go trusts the copy as an anchor: the intermediate the test root issued verifies under it.
	inter, err := x509.ParseCertificate(read("intermediate.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(root)
	if _, err := inter.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: inter.NotBefore.Add(time.Minute),
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		t.Fatalf("the intermediate under the altered root: %v", err)
	}
	path := filepath.Join(t.TempDir(), "roots.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: flipped}), 0o600); err != nil {
		t.Fatal(err)
	}
	found, err := testAuthoritiesIn(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !strings.Contains(found[0], "testdata/fea/root.pem") {
		t.Errorf("found %v in a root with another signature, want testdata/fea/root.pem", found)
	}
}
