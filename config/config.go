package config

import (
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is every setting of Sobre's processes.
type Config struct {
	Env               string // SOBRE_ENV: development or production (CheckProduction)
	HTTPAddr          string // SOBRE_HTTP_ADDR
	PublicURL         string // SOBRE_PUBLIC_URL, without a trailing slash
	DatabaseURL       string // DATABASE_URL
	TemporalAddress   string // TEMPORAL_ADDRESS
	TemporalNamespace string // TEMPORAL_NAMESPACE
	TaskQueue         string // SOBRE_TASK_QUEUE
	// TemporalCallTimeout is the deadline of one call of the API to Temporal
	// (SOBRE_TEMPORAL_CALL_TIMEOUT).
	TemporalCallTimeout time.Duration
	SMTPURL             string        // SMTP_URL
	MailFrom            string        // SOBRE_MAIL_FROM
	LogLevel            slog.Level    // SOBRE_LOG_LEVEL
	LogFormat           string        // SOBRE_LOG_FORMAT: json or text
	MaxBodyBytes        int64         // SOBRE_MAX_BODY_BYTES: JSON bodies
	MaxUploadBytes      int64         // SOBRE_MAX_UPLOAD_BYTES: multipart bodies with files
	ShutdownTimeout     time.Duration // SOBRE_SHUTDOWN_TIMEOUT
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
	// TSARetryFor is how long an unavailable TSA is retried (SOBRE_TSA_RETRY_FOR); past it, the
	// seal waits when TSARequired (SOBRE_TSA_REQUIRED), or seals without a timestamp.
	TSARetryFor     time.Duration
	TSARequired     bool
	SealConcurrency int // SOBRE_SEAL_CONCURRENCY: seals a worker runs at once
	// StickyCacheSize is how many workflows a worker process keeps in memory between their tasks
	// (Temporal's sticky cache, SOBRE_STICKY_CACHE_SIZE); one evicted is replayed from its history.
	StickyCacheSize int

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

	// WebhookAllowPrivate lets webhook URLs be http and reach loopback and private addresses
	// (SOBRE_WEBHOOK_ALLOW_PRIVATE; development only, refused by CheckProduction).
	WebhookAllowPrivate bool
	WebhookProxy        *url.URL // SOBRE_WEBHOOK_PROXY: the proxy of webhook deliveries; nil: none

	// EmbedOrigins may frame every team's embedded signing page (SOBRE_EMBED_ORIGINS,
	// ParseEmbedOrigin); a team adds its own through the API.
	EmbedOrigins []string
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

// LinkRead is how long a signing link shows the document after it ended (SOBRE_LINK_READ_DAYS).
func (c Config) LinkRead() time.Duration { return time.Duration(c.LinkReadDays) * 24 * time.Hour }

// APIKeyLifetime is how long a new API key is valid (SOBRE_API_KEY_DAYS).
func (c Config) APIKeyLifetime() time.Duration { return time.Duration(c.APIKeyDays) * 24 * time.Hour }

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
	if c.TSARetryFor, err = time.ParseDuration(get("SOBRE_TSA_RETRY_FOR")); err != nil || c.TSARetryFor < 0 || c.TSARetryFor > 12*time.Hour {
		errs = append(errs, fmt.Sprintf("SOBRE_TSA_RETRY_FOR: want a duration from 0 to 12h like 1h, got %q", get("SOBRE_TSA_RETRY_FOR")))
	}
	if c.TSARequired, err = strconv.ParseBool(get("SOBRE_TSA_REQUIRED")); err != nil {
		errs = append(errs, fmt.Sprintf("SOBRE_TSA_REQUIRED: want true or false, got %q", get("SOBRE_TSA_REQUIRED")))
	}
	if c.SealConcurrency, err = strconv.Atoi(get("SOBRE_SEAL_CONCURRENCY")); err != nil || c.SealConcurrency < 1 || c.SealConcurrency > 64 {
		errs = append(errs, fmt.Sprintf("SOBRE_SEAL_CONCURRENCY: want a whole number from 1 to 64, got %q", get("SOBRE_SEAL_CONCURRENCY")))
	}
	if c.StickyCacheSize, err = strconv.Atoi(get("SOBRE_STICKY_CACHE_SIZE")); err != nil || c.StickyCacheSize < 1 || c.StickyCacheSize > 1000000 {
		errs = append(errs, fmt.Sprintf("SOBRE_STICKY_CACHE_SIZE: want a whole number of workflows from 1 to 1000000, got %q", get("SOBRE_STICKY_CACHE_SIZE")))
	}
	if c.WebhookAllowPrivate, err = strconv.ParseBool(get("SOBRE_WEBHOOK_ALLOW_PRIVATE")); err != nil {
		errs = append(errs, fmt.Sprintf("SOBRE_WEBHOOK_ALLOW_PRIVATE: want true or false, got %q", get("SOBRE_WEBHOOK_ALLOW_PRIVATE")))
	}
	if c.WebhookProxy, err = parseWebhookProxy(get("SOBRE_WEBHOOK_PROXY")); err != nil {
		errs = append(errs, err.Error())
	}
	if c.EmbedOrigins, err = parseEmbedOrigins(get("SOBRE_EMBED_ORIGINS"), c.Env); err != nil {
		errs = append(errs, err.Error())
	}
	if c.TemporalCallTimeout, err = time.ParseDuration(get("SOBRE_TEMPORAL_CALL_TIMEOUT")); err != nil || c.TemporalCallTimeout <= 0 {
		errs = append(errs, fmt.Sprintf("SOBRE_TEMPORAL_CALL_TIMEOUT: want a positive duration like 10s, got %q", get("SOBRE_TEMPORAL_CALL_TIMEOUT")))
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
