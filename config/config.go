package config

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/internal/keyring"
)

// Config is every setting of Sobre's processes.
type Config struct {
	Env               string        // SOBRE_ENV: development or production (CheckProduction)
	HTTPAddr          string        // SOBRE_HTTP_ADDR
	PublicURL         string        // SOBRE_PUBLIC_URL, without a trailing slash
	DatabaseURL       string        // DATABASE_URL
	TemporalAddress   string        // TEMPORAL_ADDRESS
	TemporalNamespace string        // TEMPORAL_NAMESPACE
	TaskQueue         string        // SOBRE_TASK_QUEUE
	SMTPURL           string        // SMTP_URL
	MailFrom          string        // SOBRE_MAIL_FROM
	LogLevel          slog.Level    // SOBRE_LOG_LEVEL
	LogFormat         string        // SOBRE_LOG_FORMAT: json or text
	MaxBodyBytes      int64         // SOBRE_MAX_BODY_BYTES: JSON bodies
	MaxUploadBytes    int64         // SOBRE_MAX_UPLOAD_BYTES: multipart bodies with files
	ShutdownTimeout   time.Duration // SOBRE_SHUTDOWN_TIMEOUT
	// TrustedProxies are the addresses of the proxies in front of Sobre (SOBRE_TRUSTED_PROXIES):
	// X-Forwarded-For is read only from them (see api: the client address).
	TrustedProxies []netip.Prefix

	// The Temporal client's TLS (all empty: a plain connection) and API key.
	TemporalTLSCertFile   string // TEMPORAL_TLS_CERT_FILE
	TemporalTLSKeyFile    string // TEMPORAL_TLS_KEY_FILE
	TemporalTLSCAFile     string // TEMPORAL_TLS_CA_FILE
	TemporalTLSServerName string // TEMPORAL_TLS_SERVER_NAME
	TemporalAPIKey        string // TEMPORAL_API_KEY (or TEMPORAL_API_KEY_FILE)
	// `sobre codec-server`: where it listens, the Web UI origins it answers, and the bearer
	// token it requires (empty: none).
	CodecAddr        string   // SOBRE_CODEC_ADDR
	CodecCORSOrigins []string // SOBRE_CODEC_CORS_ORIGINS
	CodecToken       string   // SOBRE_CODEC_TOKEN (or SOBRE_CODEC_TOKEN_FILE)

	ClaveUnicaIssuerURL    string // CLAVEUNICA_ISSUER_URL
	ClaveUnicaClientID     string // CLAVEUNICA_CLIENT_ID
	ClaveUnicaClientSecret string // CLAVEUNICA_CLIENT_SECRET
	ClaveUnicaLogoutURL    string // CLAVEUNICA_LOGOUT_URL
	ClaveUnicaDevAddr      string // SOBRE_CLAVEUNICA_DEV_ADDR: where `sobre claveunica-dev` listens
	FEATrustRoots          string // SOBRE_FEA_TRUST_ROOTS: PEM file of FAO_HASH trust roots
	// FEAPolicyOIDs are the certificate policies a FAO_HASH certificate must carry one of
	// (SOBRE_FEA_POLICY_OIDS, dotted OIDs); empty accepts any.
	FEAPolicyOIDs []string
	FEARevocation string // SOBRE_FEA_REVOCATION: require, prefer or off

	SealP12         string // SOBRE_SEAL_P12
	SealP12Password string // SOBRE_SEAL_P12_PASSWORD
	SealCertFile    string // SOBRE_SEAL_CERT_FILE
	SealKeyFile     string // SOBRE_SEAL_KEY_FILE
	SealDevDir      string // SOBRE_SEAL_DEV_DIR: where a self-signed development seal is kept when no seal is given
	TSAURL          string // SOBRE_TSA_URL

	// PayloadKeysFile is the key file of the secrets only Sobre reads (Temporal payloads, signing
	// tokens kept for their owners); empty: a development key file in SealDevDir.
	PayloadKeysFile string // SOBRE_PAYLOAD_KEYS_FILE

	PDFMaxStreamMiB   int           // SOBRE_PDF_MAX_STREAM_MIB: decoded size of one stream of an upload
	PDFMaxDocumentMiB int           // SOBRE_PDF_MAX_DOCUMENT_MIB: decoded size of all streams of an upload
	PDFMaxImagePixels int           // SOBRE_PDF_MAX_IMAGE_PIXELS
	PDFMaxPages       int           // SOBRE_PDF_MAX_PAGES
	PDFiumMemoryMiB   int           // SOBRE_PDFIUM_MEMORY_MIB: memory cap of each PDFium instance
	PDFiumInstances   int           // SOBRE_PDFIUM_INSTANCES: 0 is one per CPU (2 to 8)
	PDFiumDeadline    time.Duration // SOBRE_PDFIUM_DEADLINE: longest one page may take to draw
	PageCacheMiB      int           // SOBRE_PAGE_CACHE_MIB: page images of signing pages kept in memory
	PDFReadMemoryMiB  int           // SOBRE_PDF_READ_MEMORY_MIB: memory cap of the process that reads one upload
	PDFReadTimeout    time.Duration // SOBRE_PDF_READ_TIMEOUT: longest one upload may take to read
	PDFReaders        int           // SOBRE_PDF_READERS: uploads read at once per process

	ActionProofMaxAge     time.Duration // SOBRE_ACTION_PROOF_MAX_AGE: how old a Clave Única login or FAO_HASH signature may be at completion
	AccessCodeMaxFailures int           // SOBRE_ACCESS_CODE_MAX_FAILURES: wrong access codes that lock a recipient's code entry
	LinkReadDays          int           // SOBRE_LINK_READ_DAYS: days a signing link shows the document after it ended

	APIKeyDays int // SOBRE_API_KEY_DAYS: lifetime of a new API key unless made with --no-expiry

	MetricsAddr string // SOBRE_METRICS_ADDR: the operations listener (/healthz, /readyz, /metrics)

	// AuditKeyFile is the key file of the audit chain's HMAC; empty: a development key file in
	// SealDevDir (see AuditKeys).
	AuditKeyFile string // SOBRE_AUDIT_KEY_FILE
	// AuditKeyedFrom is the first audit entry (audit_logs.seq) that must carry a hash and an
	// HMAC; entries before it may be unkeyed or predate the hash chain. It comes from
	// configuration, not from the database, so that a database writer cannot move it.
	AuditKeyedFrom int64 // SOBRE_AUDIT_KEYED_FROM

	RateLimitIP     RateLimit     // SOBRE_RATE_LIMIT_IP: requests per client address
	RateLimitAPIKey RateLimit     // SOBRE_RATE_LIMIT_API_KEY: requests per API key
	RateLimitLink   RateLimit     // SOBRE_RATE_LIMIT_SIGNING_LINK: requests per signing token
	MailQuota       int           // SOBRE_MAIL_QUOTA: mails per team in 24 hours; 0: no quota
	PurgeInterval   time.Duration // SOBRE_PURGE_INTERVAL: how often expired ceremony records are purged
}

// RateLimit is a number of requests allowed in a sliding window; zero Requests is no limit.
type RateLimit struct {
	Requests int
	Window   time.Duration
}

// Off reports whether the limit is disabled.
func (l RateLimit) Off() bool { return l.Requests == 0 }

// parseRateLimit reads "N/WINDOW" (600/1m) or 0 (no limit) from variable name.
func parseRateLimit(name, v string) (RateLimit, error) {
	if strings.TrimSpace(v) == "0" {
		return RateLimit{}, nil
	}
	n, w, ok := strings.Cut(strings.TrimSpace(v), "/")
	requests, err := strconv.Atoi(n)
	window, werr := time.ParseDuration(w)
	if !ok || err != nil || werr != nil || requests < 1 || window < time.Second || window%time.Second != 0 || window > 24*time.Hour {
		return RateLimit{}, fmt.Errorf("%s: want requests per whole-second window like 600/1m, or 0 for no limit, got %q", name, v)
	}
	return RateLimit{Requests: requests, Window: window}, nil
}

// Var is one documented environment variable.
type Var struct {
	Name    string
	Default string
	Help    string
}

// Vars lists every variable Sobre reads, with its default. The README's table is this list.
func Vars() []Var {
	return []Var{
		{"SOBRE_ENV", EnvDevelopment, "`development` or `production`; production refuses to start on a development setting (README, Security: production mode)"},
		{"SOBRE_HTTP_ADDR", "127.0.0.1:8080", "address the HTTP API listens on"},
		{"SOBRE_PUBLIC_URL", "http://127.0.0.1:8080", "public base URL of the API, used in signing links (`{SOBRE_PUBLIC_URL}/sign/{token}`)"},
		{"DATABASE_URL", "postgres://sobre@127.0.0.1:5433/sobre?sslmode=disable", "PostgreSQL connection URL"},
		{"TEMPORAL_ADDRESS", "127.0.0.1:7233", "Temporal frontend host:port"},
		{"TEMPORAL_NAMESPACE", "default", "Temporal namespace"},
		{"SOBRE_TASK_QUEUE", "sobre-envelopes", "Temporal task queue of the envelope workflows"},
		{"TEMPORAL_TLS_CERT_FILE", "", "PEM client certificate for mutual TLS to Temporal (with `TEMPORAL_TLS_KEY_FILE`); any `TEMPORAL_TLS_*` turns TLS on"},
		{"TEMPORAL_TLS_KEY_FILE", "", "PEM private key of `TEMPORAL_TLS_CERT_FILE`"},
		{"TEMPORAL_TLS_CA_FILE", "", "PEM certification authority of Temporal's server certificate; empty: the system's roots"},
		{"TEMPORAL_TLS_SERVER_NAME", "", "name Temporal's server certificate must carry, when not the host of `TEMPORAL_ADDRESS`"},
		{"TEMPORAL_API_KEY", "", "API key sent to Temporal with every call (Temporal Cloud); turns TLS on; use `TEMPORAL_API_KEY_FILE` in production"},
		{"SOBRE_CODEC_ADDR", "127.0.0.1:8234", "where `sobre codec-server` (decrypts payloads for the Temporal Web UI and CLI) listens; never expose it publicly"},
		{"SOBRE_CODEC_CORS_ORIGINS", "http://127.0.0.1:8233,http://localhost:8233", "comma-separated origins of the Temporal Web UI allowed to call `sobre codec-server` from the browser"},
		{"SOBRE_CODEC_TOKEN", "", "when set, `sobre codec-server` requires `Authorization: Bearer <token>` (or `SOBRE_CODEC_TOKEN_FILE`)"},
		{"SMTP_URL", "smtp://127.0.0.1:1025", "mail relay: smtp:// (plain), smtp+starttls:// (STARTTLS required) or smtps:// (TLS on connect), with optional user:password@"},
		{"SOBRE_MAIL_FROM", "Sobre <no-reply@sobre.localhost>", "From address of the mails Sobre sends"},
		{"SOBRE_LOG_LEVEL", "info", "debug, info, warn or error"},
		{"SOBRE_LOG_FORMAT", "json", "json or text"},
		{"SOBRE_MAX_BODY_BYTES", "1048576", "largest JSON request body, in bytes"},
		{"SOBRE_MAX_UPLOAD_BYTES", "52428800", "largest multipart request body (files), in bytes"},
		{"SOBRE_SHUTDOWN_TIMEOUT", "20s", "how long to drain requests and activities on SIGTERM"},
		{"SOBRE_TRUSTED_PROXIES", "", "comma-separated CIDRs (or addresses) of the proxies in front of Sobre; when the connection comes from one of them, the client is the rightmost `X-Forwarded-For` address outside the list; empty: the connection's address, `X-Forwarded-For` ignored (replaces `SOBRE_TRUST_PROXY`, which is refused when true)"},
		{"CLAVEUNICA_ISSUER_URL", "http://127.0.0.1:8091/openid", "Clave Única's issuer (production: `https://accounts.claveunica.gob.cl/openid`); the default is the local provider of `sobre claveunica-dev`"},
		{"CLAVEUNICA_CLIENT_ID", "sobre-dev", "client id registered with Clave Única"},
		{"CLAVEUNICA_CLIENT_SECRET", "sobre-dev-secret", "client secret registered with Clave Única (or `CLAVEUNICA_CLIENT_SECRET_FILE`)"},
		{"CLAVEUNICA_LOGOUT_URL", "", "Clave Única's logout endpoint (production: `https://accounts.claveunica.gob.cl/api/v1/accounts/app/logout`); when set, signers are logged out right after the login"},
		{"SOBRE_CLAVEUNICA_DEV_ADDR", "127.0.0.1:8091", "where `sobre claveunica-dev`, the local Clave Única for development, listens"},
		{"SOBRE_SEAL_P12", "", "PKCS#12 file holding the seal's certificate, chain and key, which sign every completed envelope's PDFs"},
		{"SOBRE_SEAL_P12_PASSWORD", "", "password of `SOBRE_SEAL_P12` (or `SOBRE_SEAL_P12_PASSWORD_FILE`)"},
		{"SOBRE_SEAL_CERT_FILE", "", "instead of a P12: PEM file of the seal's certificate followed by its chain"},
		{"SOBRE_SEAL_KEY_FILE", "", "with `SOBRE_SEAL_CERT_FILE`: PEM file of the seal's private key"},
		{"SOBRE_SEAL_DEV_DIR", ".data", "when no seal is given, a self-signed development seal is made and kept here (logged once; PDF readers show it as an unknown issuer)"},
		{"SOBRE_TSA_URL", "", "RFC 3161 timestamp authority for the seal's signature; empty: no timestamp"},
		{"SOBRE_PAYLOAD_KEYS_FILE", "", "AES-256 keys of what only Sobre reads (Temporal payloads, signing tokens kept for their owners): one `<id> <base64 of 32 bytes>` per line, the first encrypts, all decrypt (rotation adds a first line; `sobre keygen` prints one); empty: a development key file is made and kept in `SOBRE_SEAL_DEV_DIR`"},
		{"SOBRE_FEA_TRUST_ROOTS", "", "PEM file of the certification authorities trusted for FAO_HASH signatures; empty: FAO_HASH unavailable (`make run` and `make test` use the test CA in `testdata/fea`)"},
		{"SOBRE_FEA_POLICY_OIDS", "", "comma-separated certificate policy OIDs (e.g. an accredited provider's advanced-signature policy); a FAO_HASH certificate must carry one of them; empty: any policy is accepted ([docs/fao-hash.md](docs/fao-hash.md))"},
		{"SOBRE_FEA_REVOCATION", "prefer", "OCSP revocation check of FAO_HASH certificates: `require` (no good answer from the responder the certificate names: refused), `prefer` (revoked: refused; no usable answer: accepted, recorded as not checked) or `off`"},
		{"SOBRE_PDF_MAX_STREAM_MIB", "64", "an uploaded PDF is refused when one of its streams decodes to more MiB than this"},
		{"SOBRE_PDF_MAX_DOCUMENT_MIB", "256", "an uploaded PDF is refused when all its streams together decode to more MiB than this"},
		{"SOBRE_PDF_MAX_IMAGE_PIXELS", "40000000", "an uploaded PDF is refused when one of its images declares more pixels than this"},
		{"SOBRE_PDF_MAX_PAGES", "2000", "an uploaded PDF is refused when it has more pages than this"},
		{"SOBRE_PDFIUM_MEMORY_MIB", "256", "memory cap of each PDFium instance (page images, normalisation checks, the seal's proof)"},
		{"SOBRE_PDFIUM_INSTANCES", "0", "PDFium instances run at once per process; 0: one per CPU, from 2 to 8"},
		{"SOBRE_PDFIUM_DEADLINE", "15s", "longest PDFium may take to draw one page before it is stopped"},
		{"SOBRE_PDF_READ_MEMORY_MIB", "512", "each upload is read (parsed, checked, normalised) in a process of its own capped at this much writable memory; a PDF that needs more is refused"},
		{"SOBRE_PDF_READ_TIMEOUT", "30s", "an upload whose reading takes longer is refused"},
		{"SOBRE_PDF_READERS", "2", "uploads read at once per API process (each in its own capped process); more wait their turn"},
		{"SOBRE_PAGE_CACHE_MIB", "64", "page images of signing pages kept in memory, by document, page and width"},
		{"SOBRE_ACTION_PROOF_MAX_AGE", "15m", "how old a signer's Clave Única login or FAO_HASH signature may be when they complete"},
		{"SOBRE_ACCESS_CODE_MAX_FAILURES", "20", "wrong access codes, over every session and code, after which a recipient's code entry locks until the envelope is sent to them again (the owner is mailed)"},
		{"SOBRE_LINK_READ_DAYS", "30", "days a signing link still shows the document, page images and field values after the envelope completed, was rejected or cancelled, or the recipient's deadline passed; 0: none"},
		{"SOBRE_METRICS_ADDR", "127.0.0.1:9090", "address of the operations listener: liveness `/healthz`, readiness `/readyz` and Prometheus `/metrics` (the API listener serves only `/healthz` of these); keep it off the public network"},
		{"SOBRE_AUDIT_KEY_FILE", "", "key of the HMAC on every audit entry (kept outside the database, so that a database writer cannot rewrite an audit log unnoticed): one `<id> <base64 of 32 bytes>` per line, the first signs, all verify (`sobre keygen` prints one); every process and `sobre audit verify` need the same file; empty: a development key file is made and kept in `SOBRE_SEAL_DEV_DIR`"},
		{"SOBRE_AUDIT_KEYED_FROM", "0", "the first audit entry (`audit_logs.seq`) that must carry a hash and an HMAC: entries before it may be unkeyed, or predate the hash chain; 0: every entry must (a fresh deployment); an upgraded one sets it once, see Security"},
		{"SOBRE_API_KEY_DAYS", "365", "days an API key made by `sobre admin create-key` or `ensure-key` is valid, unless made with `--no-expiry` (or given `--expires-in`); keys made before keys expired keep no expiry"},
		{"SOBRE_RATE_LIMIT_IP", "1000/1m", "requests one client address may make in a sliding window (IPv6: per /64), on every route but `/healthz`, `/readyz` and `/metrics`; counted by each API process on its own; 0: no limit"},
		{"SOBRE_RATE_LIMIT_API_KEY", "1000/1m", "requests one API key may make in a sliding window, counted by each API process on its own; 0: no limit"},
		{"SOBRE_RATE_LIMIT_SIGNING_LINK", "300/1m", "requests one signing link (its pages, page images and signing API) may take in a sliding window, counted by each API process on its own; 0: no limit"},
		{"SOBRE_MAIL_QUOTA", "2000", "mails a team may have Sobre send in 24 hours: a distribute, redistribute or change of a pending envelope's recipients that would go past it is refused (429); mails the envelopes' workflows send on their own (reminders, the next signer, completion) always go and count; 0: no quota"},
		{"SOBRE_PURGE_INTERVAL", "1h", "how often the worker's Temporal Schedule purges expired signing sessions, access codes and Clave Única logins"},
	}
}

// LinkRead is how long a signing link shows the document after it ended (SOBRE_LINK_READ_DAYS).
func (c Config) LinkRead() time.Duration { return time.Duration(c.LinkReadDays) * 24 * time.Hour }

// APIKeyLifetime is how long a new API key is valid (SOBRE_API_KEY_DAYS).
func (c Config) APIKeyLifetime() time.Duration { return time.Duration(c.APIKeyDays) * 24 * time.Hour }

// devKeysFile is the name of the development key file, in SealDevDir.
const devKeysFile = "payload-keys.dev"

// Keyring loads the keys of SOBRE_PAYLOAD_KEYS_FILE or, when it is empty, those of a development
// key file kept in SealDevDir (made on first use; created reports that). Every process of one
// deployment must load the same keys.
func (c Config) Keyring() (ring *keyring.Ring, created bool, err error) {
	path := c.PayloadKeysFile
	if path == "" {
		if path, created, err = devKeyFile(c.SealDevDir, devKeysFile, "SOBRE_PAYLOAD_KEYS_FILE"); err != nil {
			return nil, false, err
		}
	}
	ring, err = keyring.Load(path)
	return ring, created, err
}

// devAuditKeyFile is the name of the development audit key file, in SealDevDir.
const devAuditKeyFile = "audit-key.dev"

// AuditKeyPath returns the audit key file: SOBRE_AUDIT_KEY_FILE or, when it is empty, a
// development key file kept in SealDevDir (made on first use; created reports that). Every
// process of one deployment must use the same keys.
func (c Config) AuditKeyPath() (path string, created bool, err error) {
	if c.AuditKeyFile != "" {
		return c.AuditKeyFile, false, nil
	}
	return devKeyFile(c.SealDevDir, devAuditKeyFile, "SOBRE_AUDIT_KEY_FILE")
}

// devKeyFile returns the development key file name in dir, making it with one new key when it
// does not exist yet (created reports that); variable is what replaces it in production.
func devKeyFile(dir, name, variable string) (path string, created bool, err error) {
	path = filepath.Join(dir, name)
	if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return path, false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, fmt.Errorf("config: development key file %s: %w", name, err)
	}
	text := "# development keys of Sobre: " + variable + " replaces them in production\n" + keyring.NewKeyLine("dev1") + "\n"
	// Written aside, then linked into place: of two processes starting at once, one makes the
	// file and both read it whole.
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		return "", false, fmt.Errorf("config: development key file %s: %w", name, err)
	}
	err = os.Link(tmp, path)
	_ = os.Remove(tmp)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return "", false, fmt.Errorf("config: development key file %s: %w", name, err)
	}
	return path, err == nil, nil
}

// parseProxies reads SOBRE_TRUSTED_PROXIES: comma-separated CIDRs or single addresses.
func parseProxies(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		if p, err := netip.ParsePrefix(part); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("SOBRE_TRUSTED_PROXIES: %q is neither a CIDR like 10.0.0.0/8 nor an address", part)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// Getenv is the lookup used by Load; tests pass their own.
type Getenv func(string) string

// Load reads the configuration from the environment.
func Load(getenv Getenv) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	defaults := map[string]string{}
	for _, v := range Vars() {
		defaults[v.Name] = v.Default
	}
	var errs []string
	var err error
	get := func(name string) string {
		if file := getenv(name + "_FILE"); file != "" {
			b, err := os.ReadFile(file)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s_FILE: %v", name, err))
				return ""
			}
			return strings.TrimSpace(string(b))
		}
		if v := getenv(name); v != "" {
			return v
		}
		return defaults[name]
	}
	c := Config{
		Env:               get("SOBRE_ENV"),
		HTTPAddr:          get("SOBRE_HTTP_ADDR"),
		PublicURL:         lowerScheme(strings.TrimRight(get("SOBRE_PUBLIC_URL"), "/")),
		DatabaseURL:       get("DATABASE_URL"),
		TemporalAddress:   get("TEMPORAL_ADDRESS"),
		TemporalNamespace: get("TEMPORAL_NAMESPACE"),
		TaskQueue:         get("SOBRE_TASK_QUEUE"),
		SMTPURL:           get("SMTP_URL"),
		MailFrom:          get("SOBRE_MAIL_FROM"),
		LogFormat:         get("SOBRE_LOG_FORMAT"),

		ClaveUnicaIssuerURL:    strings.TrimRight(get("CLAVEUNICA_ISSUER_URL"), "/"),
		ClaveUnicaClientID:     get("CLAVEUNICA_CLIENT_ID"),
		ClaveUnicaClientSecret: get("CLAVEUNICA_CLIENT_SECRET"),
		ClaveUnicaLogoutURL:    get("CLAVEUNICA_LOGOUT_URL"),
		ClaveUnicaDevAddr:      get("SOBRE_CLAVEUNICA_DEV_ADDR"),
		FEATrustRoots:          get("SOBRE_FEA_TRUST_ROOTS"),
		FEARevocation:          get("SOBRE_FEA_REVOCATION"),

		SealP12:         get("SOBRE_SEAL_P12"),
		SealP12Password: get("SOBRE_SEAL_P12_PASSWORD"),
		SealCertFile:    get("SOBRE_SEAL_CERT_FILE"),
		SealKeyFile:     get("SOBRE_SEAL_KEY_FILE"),
		SealDevDir:      get("SOBRE_SEAL_DEV_DIR"),
		TSAURL:          get("SOBRE_TSA_URL"),
		PayloadKeysFile: get("SOBRE_PAYLOAD_KEYS_FILE"),
		MetricsAddr:     get("SOBRE_METRICS_ADDR"),
		AuditKeyFile:    get("SOBRE_AUDIT_KEY_FILE"),

		TemporalTLSCertFile:   get("TEMPORAL_TLS_CERT_FILE"),
		TemporalTLSKeyFile:    get("TEMPORAL_TLS_KEY_FILE"),
		TemporalTLSCAFile:     get("TEMPORAL_TLS_CA_FILE"),
		TemporalTLSServerName: get("TEMPORAL_TLS_SERVER_NAME"),
		TemporalAPIKey:        get("TEMPORAL_API_KEY"),
		CodecAddr:             get("SOBRE_CODEC_ADDR"),
		CodecToken:            get("SOBRE_CODEC_TOKEN"),
	}
	if err := c.LogLevel.UnmarshalText([]byte(get("SOBRE_LOG_LEVEL"))); err != nil {
		errs = append(errs, fmt.Sprintf("SOBRE_LOG_LEVEL: %v", err))
	}
	if c.Env != EnvDevelopment && c.Env != EnvProduction {
		errs = append(errs, fmt.Sprintf("SOBRE_ENV: want %s or %s, got %q", EnvDevelopment, EnvProduction, c.Env))
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		errs = append(errs, fmt.Sprintf("SOBRE_LOG_FORMAT: %q is neither json nor text", c.LogFormat))
	}
	for name, dst := range map[string]*int64{"SOBRE_MAX_BODY_BYTES": &c.MaxBodyBytes, "SOBRE_MAX_UPLOAD_BYTES": &c.MaxUploadBytes} {
		n, err := strconv.ParseInt(get(name), 10, 64)
		if err != nil || n < 1024 {
			errs = append(errs, fmt.Sprintf("%s: want a byte count of at least 1024, got %q", name, get(name)))
		}
		*dst = n
	}
	for name, dst := range map[string]*int{"SOBRE_PDF_MAX_STREAM_MIB": &c.PDFMaxStreamMiB, "SOBRE_PDF_MAX_DOCUMENT_MIB": &c.PDFMaxDocumentMiB,
		"SOBRE_PDF_MAX_IMAGE_PIXELS": &c.PDFMaxImagePixels, "SOBRE_PDF_MAX_PAGES": &c.PDFMaxPages, "SOBRE_PDFIUM_MEMORY_MIB": &c.PDFiumMemoryMiB,
		"SOBRE_PDFIUM_INSTANCES": &c.PDFiumInstances, "SOBRE_PAGE_CACHE_MIB": &c.PageCacheMiB,
		"SOBRE_PDF_READ_MEMORY_MIB": &c.PDFReadMemoryMiB, "SOBRE_PDF_READERS": &c.PDFReaders} {
		n, err := strconv.Atoi(get(name))
		if err != nil || n < 0 || (n == 0 && name != "SOBRE_PDFIUM_INSTANCES") {
			errs = append(errs, fmt.Sprintf("%s: want a positive whole number, got %q", name, get(name)))
		}
		*dst = n
	}
	if c.PDFiumDeadline, err = time.ParseDuration(get("SOBRE_PDFIUM_DEADLINE")); err != nil || c.PDFiumDeadline <= 0 {
		errs = append(errs, fmt.Sprintf("SOBRE_PDFIUM_DEADLINE: want a positive duration like 15s, got %q", get("SOBRE_PDFIUM_DEADLINE")))
	}
	if c.PDFReadTimeout, err = time.ParseDuration(get("SOBRE_PDF_READ_TIMEOUT")); err != nil || c.PDFReadTimeout <= 0 {
		errs = append(errs, fmt.Sprintf("SOBRE_PDF_READ_TIMEOUT: want a positive duration like 30s, got %q", get("SOBRE_PDF_READ_TIMEOUT")))
	}
	if c.ActionProofMaxAge, err = time.ParseDuration(get("SOBRE_ACTION_PROOF_MAX_AGE")); err != nil || c.ActionProofMaxAge <= 0 {
		errs = append(errs, fmt.Sprintf("SOBRE_ACTION_PROOF_MAX_AGE: want a positive duration like 15m, got %q", get("SOBRE_ACTION_PROOF_MAX_AGE")))
	}
	if c.AccessCodeMaxFailures, err = strconv.Atoi(get("SOBRE_ACCESS_CODE_MAX_FAILURES")); err != nil || c.AccessCodeMaxFailures < 1 || c.AccessCodeMaxFailures > 1000 {
		errs = append(errs, fmt.Sprintf("SOBRE_ACCESS_CODE_MAX_FAILURES: want a whole number from 1 to 1000, got %q", get("SOBRE_ACCESS_CODE_MAX_FAILURES")))
	}
	if c.LinkReadDays, err = strconv.Atoi(get("SOBRE_LINK_READ_DAYS")); err != nil || c.LinkReadDays < 0 || c.LinkReadDays > 36500 {
		errs = append(errs, fmt.Sprintf("SOBRE_LINK_READ_DAYS: want a whole number of days from 0 to 36500, got %q", get("SOBRE_LINK_READ_DAYS")))
	}
	if c.AuditKeyedFrom, err = strconv.ParseInt(get("SOBRE_AUDIT_KEYED_FROM"), 10, 64); err != nil || c.AuditKeyedFrom < 0 {
		errs = append(errs, fmt.Sprintf("SOBRE_AUDIT_KEYED_FROM: want an audit entry seq, 0 or more, got %q", get("SOBRE_AUDIT_KEYED_FROM")))
	}
	if c.APIKeyDays, err = strconv.Atoi(get("SOBRE_API_KEY_DAYS")); err != nil || c.APIKeyDays < 1 || c.APIKeyDays > 36500 {
		errs = append(errs, fmt.Sprintf("SOBRE_API_KEY_DAYS: want a whole number of days from 1 to 36500, got %q", get("SOBRE_API_KEY_DAYS")))
	}
	for name, dst := range map[string]*RateLimit{"SOBRE_RATE_LIMIT_IP": &c.RateLimitIP, "SOBRE_RATE_LIMIT_API_KEY": &c.RateLimitAPIKey,
		"SOBRE_RATE_LIMIT_SIGNING_LINK": &c.RateLimitLink} {
		if *dst, err = parseRateLimit(name, get(name)); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if c.MailQuota, err = strconv.Atoi(get("SOBRE_MAIL_QUOTA")); err != nil || c.MailQuota < 0 {
		errs = append(errs, fmt.Sprintf("SOBRE_MAIL_QUOTA: want a whole number of mails, 0 for no quota, got %q", get("SOBRE_MAIL_QUOTA")))
	}
	if c.PurgeInterval, err = time.ParseDuration(get("SOBRE_PURGE_INTERVAL")); err != nil || c.PurgeInterval < time.Minute {
		errs = append(errs, fmt.Sprintf("SOBRE_PURGE_INTERVAL: want a duration of at least 1m like 1h, got %q", get("SOBRE_PURGE_INTERVAL")))
	}
	d, err := time.ParseDuration(get("SOBRE_SHUTDOWN_TIMEOUT"))
	if err != nil || d <= 0 {
		errs = append(errs, fmt.Sprintf("SOBRE_SHUTDOWN_TIMEOUT: want a positive duration like 20s, got %q", get("SOBRE_SHUTDOWN_TIMEOUT")))
	}
	c.ShutdownTimeout = d
	if c.TrustedProxies, err = parseProxies(get("SOBRE_TRUSTED_PROXIES")); err != nil {
		errs = append(errs, err.Error())
	}
	// SOBRE_TRUST_PROXY=true trusted any peer and took the leftmost X-Forwarded-For entry, which
	// the client writes: no list of proxies can be read from it, so it is refused, not mapped.
	if old := getenv("SOBRE_TRUST_PROXY"); old != "" {
		if trust, err := strconv.ParseBool(old); err != nil || trust {
			errs = append(errs, fmt.Sprintf("SOBRE_TRUST_PROXY is no longer read (got %q): set SOBRE_TRUSTED_PROXIES to the CIDRs of the proxies in front of Sobre instead", old))
		}
	}
	for _, oid := range strings.Split(get("SOBRE_FEA_POLICY_OIDS"), ",") {
		if oid = strings.TrimSpace(oid); oid == "" {
			continue
		}
		if _, err := x509.ParseOID(oid); err != nil {
			errs = append(errs, fmt.Sprintf("SOBRE_FEA_POLICY_OIDS: %q is not a dotted OID like 1.2.3.4", oid))
			continue
		}
		c.FEAPolicyOIDs = append(c.FEAPolicyOIDs, oid)
	}
	switch c.FEARevocation {
	case "require", "prefer", "off":
	default:
		errs = append(errs, fmt.Sprintf("SOBRE_FEA_REVOCATION: want require, prefer or off, got %q", c.FEARevocation))
	}
	if c.MetricsAddr == c.HTTPAddr {
		errs = append(errs, fmt.Sprintf("SOBRE_METRICS_ADDR: %q is SOBRE_HTTP_ADDR; the operations listener needs an address of its own", c.MetricsAddr))
	}
	if (c.TemporalTLSCertFile == "") != (c.TemporalTLSKeyFile == "") {
		errs = append(errs, "TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE: give both or neither")
	}
	for _, o := range strings.Split(get("SOBRE_CODEC_CORS_ORIGINS"), ",") {
		if o = strings.TrimRight(strings.TrimSpace(o), "/"); o == "" {
			continue
		}
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
			errs = append(errs, fmt.Sprintf("SOBRE_CODEC_CORS_ORIGINS: %q is not an origin like https://temporal.example.cl", o))
			continue
		}
		c.CodecCORSOrigins = append(c.CodecCORSOrigins, o)
	}
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Sprintf("SOBRE_PUBLIC_URL: want an http(s) URL, got %q", c.PublicURL))
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

// lowerScheme writes the scheme of URL s in lower case (schemes are case-insensitive, RFC 3986
// 3.1), so that SOBRE_PUBLIC_URL=HTTPS://… is taken, and served, as https everywhere.
func lowerScheme(s string) string {
	if i := strings.Index(s, "://"); i > 0 {
		return strings.ToLower(s[:i]) + s[i:]
	}
	return s
}

// ServedOverHTTPS reports whether publicURL (SOBRE_PUBLIC_URL) is an https URL, whatever the
// case of its scheme: the one rule behind production mode's check and the ceremony cookie's
// Secure attribute and __Host- prefix.
func ServedOverHTTPS(publicURL string) bool {
	u, err := url.Parse(publicURL) // url.Parse lower-cases the scheme
	return err == nil && u.Scheme == "https" && u.Host != ""
}
