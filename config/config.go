package config

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is every setting of Sobre's processes.
type Config struct {
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
	TrustProxy        bool          // SOBRE_TRUST_PROXY

	ClaveUnicaIssuerURL    string // CLAVEUNICA_ISSUER_URL
	ClaveUnicaClientID     string // CLAVEUNICA_CLIENT_ID
	ClaveUnicaClientSecret string // CLAVEUNICA_CLIENT_SECRET
	ClaveUnicaLogoutURL    string // CLAVEUNICA_LOGOUT_URL
	ClaveUnicaDevAddr      string // SOBRE_CLAVEUNICA_DEV_ADDR: where `sobre claveunica-dev` listens
	FEATrustRoots          string // SOBRE_FEA_TRUST_ROOTS: PEM file of FAO_HASH trust roots

	SealP12         string // SOBRE_SEAL_P12
	SealP12Password string // SOBRE_SEAL_P12_PASSWORD
	SealCertFile    string // SOBRE_SEAL_CERT_FILE
	SealKeyFile     string // SOBRE_SEAL_KEY_FILE
	SealDevDir      string // SOBRE_SEAL_DEV_DIR: where a self-signed development seal is kept when no seal is given
	TSAURL          string // SOBRE_TSA_URL

	PDFMaxStreamMiB   int           // SOBRE_PDF_MAX_STREAM_MIB: decoded size of one stream of an upload
	PDFMaxDocumentMiB int           // SOBRE_PDF_MAX_DOCUMENT_MIB: decoded size of all streams of an upload
	PDFMaxImagePixels int           // SOBRE_PDF_MAX_IMAGE_PIXELS
	PDFMaxPages       int           // SOBRE_PDF_MAX_PAGES
	PDFiumMemoryMiB   int           // SOBRE_PDFIUM_MEMORY_MIB: memory cap of each PDFium instance
	PDFiumInstances   int           // SOBRE_PDFIUM_INSTANCES: 0 is one per CPU (2 to 8)
	PDFiumDeadline    time.Duration // SOBRE_PDFIUM_DEADLINE: longest one page may take to draw
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
		{"SOBRE_HTTP_ADDR", "127.0.0.1:8080", "address the HTTP API listens on"},
		{"SOBRE_PUBLIC_URL", "http://127.0.0.1:8080", "public base URL of the API, used in signing links (`{SOBRE_PUBLIC_URL}/sign/{token}`)"},
		{"DATABASE_URL", "postgres://sobre@127.0.0.1:5433/sobre?sslmode=disable", "PostgreSQL connection URL"},
		{"TEMPORAL_ADDRESS", "127.0.0.1:7233", "Temporal frontend host:port"},
		{"TEMPORAL_NAMESPACE", "default", "Temporal namespace"},
		{"SOBRE_TASK_QUEUE", "sobre-envelopes", "Temporal task queue of the envelope workflows"},
		{"SMTP_URL", "smtp://127.0.0.1:1025", "mail relay: smtp:// (plain), smtp+starttls:// (STARTTLS required) or smtps:// (TLS on connect), with optional user:password@"},
		{"SOBRE_MAIL_FROM", "Sobre <no-reply@sobre.localhost>", "From address of the mails Sobre sends"},
		{"SOBRE_LOG_LEVEL", "info", "debug, info, warn or error"},
		{"SOBRE_LOG_FORMAT", "json", "json or text"},
		{"SOBRE_MAX_BODY_BYTES", "1048576", "largest JSON request body, in bytes"},
		{"SOBRE_MAX_UPLOAD_BYTES", "52428800", "largest multipart request body (files), in bytes"},
		{"SOBRE_SHUTDOWN_TIMEOUT", "20s", "how long to drain requests and activities on SIGTERM"},
		{"SOBRE_TRUST_PROXY", "false", "take the client address from X-Forwarded-For (only behind a proxy that sets it)"},
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
		{"SOBRE_FEA_TRUST_ROOTS", "", "PEM file of the certification authorities trusted for FAO_HASH signatures; empty: FAO_HASH unavailable (`make run` and `make test` use the test CA in `testdata/fea`)"},
		{"SOBRE_PDF_MAX_STREAM_MIB", "64", "an uploaded PDF is refused when one of its streams decodes to more MiB than this"},
		{"SOBRE_PDF_MAX_DOCUMENT_MIB", "256", "an uploaded PDF is refused when all its streams together decode to more MiB than this"},
		{"SOBRE_PDF_MAX_IMAGE_PIXELS", "40000000", "an uploaded PDF is refused when one of its images declares more pixels than this"},
		{"SOBRE_PDF_MAX_PAGES", "2000", "an uploaded PDF is refused when it has more pages than this"},
		{"SOBRE_PDFIUM_MEMORY_MIB", "256", "memory cap of each PDFium instance (page images, normalisation checks, the seal's proof)"},
		{"SOBRE_PDFIUM_INSTANCES", "0", "PDFium instances run at once per process; 0: one per CPU, from 2 to 8"},
		{"SOBRE_PDFIUM_DEADLINE", "15s", "longest PDFium may take to draw one page before it is stopped"},
	}
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
		HTTPAddr:          get("SOBRE_HTTP_ADDR"),
		PublicURL:         strings.TrimRight(get("SOBRE_PUBLIC_URL"), "/"),
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

		SealP12:         get("SOBRE_SEAL_P12"),
		SealP12Password: get("SOBRE_SEAL_P12_PASSWORD"),
		SealCertFile:    get("SOBRE_SEAL_CERT_FILE"),
		SealKeyFile:     get("SOBRE_SEAL_KEY_FILE"),
		SealDevDir:      get("SOBRE_SEAL_DEV_DIR"),
		TSAURL:          get("SOBRE_TSA_URL"),
	}
	if err := c.LogLevel.UnmarshalText([]byte(get("SOBRE_LOG_LEVEL"))); err != nil {
		errs = append(errs, fmt.Sprintf("SOBRE_LOG_LEVEL: %v", err))
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
		"SOBRE_PDFIUM_INSTANCES": &c.PDFiumInstances} {
		n, err := strconv.Atoi(get(name))
		if err != nil || n < 0 || (n == 0 && name != "SOBRE_PDFIUM_INSTANCES") {
			errs = append(errs, fmt.Sprintf("%s: want a positive whole number, got %q", name, get(name)))
		}
		*dst = n
	}
	if c.PDFiumDeadline, err = time.ParseDuration(get("SOBRE_PDFIUM_DEADLINE")); err != nil || c.PDFiumDeadline <= 0 {
		errs = append(errs, fmt.Sprintf("SOBRE_PDFIUM_DEADLINE: want a positive duration like 15s, got %q", get("SOBRE_PDFIUM_DEADLINE")))
	}
	d, err := time.ParseDuration(get("SOBRE_SHUTDOWN_TIMEOUT"))
	if err != nil || d <= 0 {
		errs = append(errs, fmt.Sprintf("SOBRE_SHUTDOWN_TIMEOUT: want a positive duration like 20s, got %q", get("SOBRE_SHUTDOWN_TIMEOUT")))
	}
	c.ShutdownTimeout = d
	if c.TrustProxy, err = strconv.ParseBool(get("SOBRE_TRUST_PROXY")); err != nil {
		errs = append(errs, fmt.Sprintf("SOBRE_TRUST_PROXY: want true or false, got %q", get("SOBRE_TRUST_PROXY")))
	}
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Sprintf("SOBRE_PUBLIC_URL: want an http(s) URL, got %q", c.PublicURL))
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return c, nil
}
