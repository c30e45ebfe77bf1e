package config

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// The environments of SOBRE_ENV.
const (
	// EnvDevelopment runs on whatever is configured, development defaults included.
	EnvDevelopment = "development"
	// EnvProduction refuses to start on a development setting (CheckProduction).
	EnvProduction = "production"
)

// TestFEAAuthorities are the SHA-256 fingerprints of the public keys (of the DER
// SubjectPublicKeyInfo, lower-case hex) of the test certification authorities of testdata/fea,
// by file. The keys of the certificates they issue are committed to this repository: whoever
// trusts one of them accepts a FAO_HASH signature anybody can make. A production process
// recognises them by key, wherever the file is: not by the whole certificate's fingerprint, which
// a copy with a changed signature or a re-signed copy escapes while still trusted as an anchor
// (an anchor's own signature is never checked).
var TestFEAAuthorities = map[string]string{
	"2343d1583d704d45368066d0f108c486f769620ac9e6beceb03776ead2554c69": "testdata/fea/root.pem",
	"6cdaf6534751b34e1b086ddeefb2cbe54c758aed82903b6250a213fb648e8cf2": "testdata/fea/intermediate.pem",
	"eab6e48b1266ac2f97cd219fdd4b7cdd50567fbedc4fa0107f3b1e811851363e": "testdata/fea/untrusted-root.pem",
}

// Process is what a process does, for CheckProduction: serve the API, run the worker, or both.
type Process int

// The parts a process may play.
const (
	ProcessAPI    Process = 1 << iota // the HTTP API and signing pages (`sobre serve`)
	ProcessWorker                     // the Temporal worker: mails and seals (`sobre worker`)
)

// CheckProduction refuses, when Env is production, every setting that is only fit for
// development among those process p uses, and names the variable of each in one error (nil in
// development, or when nothing is refused). Every process:
//
//   - SOBRE_PUBLIC_URL not https://;
//   - DATABASE_URL not verifying the server: every TCP connection it may make must be
//     sslmode=verify-full (libpq's default, prefer, falls back to plain text; require encrypts
//     without checking whom to; verify-ca checks the chain but not the host name, so any server
//     with a certificate of the same CA passes, which for a managed database is often every
//     customer's); a Unix socket needs no TLS;
//   - no SOBRE_PAYLOAD_KEYS_FILE or SOBRE_AUDIT_KEY_FILE: the development key files;
//   - SOBRE_WEBHOOK_ALLOW_PRIVATE=true: webhooks could reach the private network (the API
//     checks URLs at creation, the worker at each connection).
//
// The API (which alone talks to Clave Única and checks FAO_HASH signatures):
//
//   - CLAVEUNICA_ISSUER_URL or CLAVEUNICA_LOGOUT_URL not https://;
//   - CLAVEUNICA_CLIENT_SECRET left at the secret of `sobre claveunica-dev` (or empty) while
//     Clave Única is configured;
//   - SOBRE_FEA_TRUST_ROOTS holding a test authority of testdata/fea (TestFEAAuthorities), or
//     unreadable.
//
// The worker (which alone seals): no seal (SOBRE_SEAL_P12 or SOBRE_SEAL_CERT_FILE), that is the
// self-signed development seal.
func (c Config) CheckProduction(p Process) error {
	if c.Env != EnvProduction {
		return nil
	}
	var refusals []string
	refuse := func(name, format string, args ...any) {
		refusals = append(refusals, name+": "+fmt.Sprintf(format, args...))
	}
	if !ServedOverHTTPS(c.PublicURL) {
		refuse("SOBRE_PUBLIC_URL", "must be an https:// URL, got %q", c.PublicURL)
	}
	if p&ProcessAPI != 0 {
		if c.ClaveUnicaIssuerURL != "" {
			if !ServedOverHTTPS(c.ClaveUnicaIssuerURL) {
				refuse("CLAVEUNICA_ISSUER_URL", "must be an https:// URL (https://accounts.claveunica.gob.cl/openid), got %q", c.ClaveUnicaIssuerURL)
			}
			if c.ClaveUnicaClientSecret == "" || c.ClaveUnicaClientSecret == defaultOf("CLAVEUNICA_CLIENT_SECRET") {
				refuse("CLAVEUNICA_CLIENT_SECRET", "is the development secret of `sobre claveunica-dev` (or empty); set the secret Clave Única registered (CLAVEUNICA_CLIENT_SECRET_FILE)")
			}
		}
		if c.ClaveUnicaLogoutURL != "" && !ServedOverHTTPS(c.ClaveUnicaLogoutURL) {
			refuse("CLAVEUNICA_LOGOUT_URL", "must be an https:// URL, got %q", c.ClaveUnicaLogoutURL)
		}
		if c.FEATrustRoots != "" {
			if found, err := testAuthoritiesIn(c.FEATrustRoots); err != nil {
				refuse("SOBRE_FEA_TRUST_ROOTS", "%v", err)
			} else if len(found) > 0 {
				refuse("SOBRE_FEA_TRUST_ROOTS", "holds the test certification authority %s, whose holders' keys are public", strings.Join(found, ", "))
			}
		}
	}
	if p&ProcessWorker != 0 && c.SealP12 == "" && c.SealCertFile == "" && c.SealKeyFile == "" {
		refuse("SOBRE_SEAL_P12", "no seal is configured (SOBRE_SEAL_P12, or SOBRE_SEAL_CERT_FILE and SOBRE_SEAL_KEY_FILE): the self-signed development seal is not for production")
	}
	if err := checkDatabaseTLS(c.DatabaseURL); err != nil {
		refuse("DATABASE_URL", "%v", err)
	}
	if c.PayloadKeysFile == "" {
		refuse("SOBRE_PAYLOAD_KEYS_FILE", "is required: without it a development key file is made in SOBRE_SEAL_DEV_DIR (`sobre keygen` prints a key line)")
	}
	if c.AuditKeyFile == "" {
		refuse("SOBRE_AUDIT_KEY_FILE", "is required: without it a development key file is made in SOBRE_SEAL_DEV_DIR (`sobre keygen` prints a key line)")
	}
	if c.WebhookAllowPrivate {
		refuse("SOBRE_WEBHOOK_ALLOW_PRIVATE", "must be false: webhooks could reach loopback, private and cloud metadata addresses")
	}
	if len(refusals) == 0 {
		return nil
	}
	return fmt.Errorf("SOBRE_ENV=production refuses to start on %d development setting(s): %s", len(refusals), strings.Join(refusals, "; "))
}

func defaultOf(name string) string {
	for _, v := range Vars() {
		if v.Name == name {
			return v.Default
		}
	}
	return ""
}

// testAuthoritiesIn names the test authorities (TestFEAAuthorities) among the certificates of
// the PEM file at path.
func testAuthoritiesIn(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read trust roots: %w", err)
	}
	var found []string
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			continue // not a certificate Go could trust either
		}
		sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
		if name, ok := TestFEAAuthorities[hex.EncodeToString(sum[:])]; ok {
			found = append(found, fmt.Sprintf("%s (public key SHA-256 %x)", name, sum))
		}
	}
	return found, nil
}

// checkDatabaseTLS fails unless every connection the store may make with dsn (its hosts and
// fallbacks, as pgx reads them, PG* environment variables included) is a Unix socket or TLS
// that verifies the server's certificate and host name (sslmode=verify-full, or
// sslrootcert=system). The connection string is never quoted: it may hold a password.
func checkDatabaseTLS(dsn string) error {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("cannot be read as a PostgreSQL connection string (malformed, or a file it names, such as sslrootcert, is missing)")
	}
	targets := append([]*pgconn.FallbackConfig{{Host: cfg.Host, Port: cfg.Port, TLSConfig: cfg.TLSConfig}}, cfg.Fallbacks...)
	for _, t := range targets {
		if network, _ := pgconn.NetworkAddress(t.Host, t.Port); network == "unix" {
			continue
		}
		switch {
		case t.TLSConfig == nil:
			return fmt.Errorf("connects to %s without TLS (sslmode disable, allow or prefer, the default): want sslmode=verify-full", t.Host)
		case t.TLSConfig.InsecureSkipVerify:
			return fmt.Errorf("connects to %s without checking its certificate's host name (sslmode require or verify-ca): want sslmode=verify-full", t.Host)
		}
	}
	return nil
}
