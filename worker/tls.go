package worker

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// TLSFiles name the PEM files of the Temporal client's TLS: a client certificate and key for
// mutual TLS, the certification authority of the server, and the name the server's certificate
// must carry when it is not the host of the address.
type TLSFiles struct {
	CertFile   string // TEMPORAL_TLS_CERT_FILE
	KeyFile    string // TEMPORAL_TLS_KEY_FILE
	CAFile     string // TEMPORAL_TLS_CA_FILE
	ServerName string // TEMPORAL_TLS_SERVER_NAME
}

// Enabled reports whether any TLS setting is given.
func (f TLSFiles) Enabled() bool {
	return f.CertFile != "" || f.KeyFile != "" || f.CAFile != "" || f.ServerName != ""
}

// Config builds the client's TLS configuration, or nil when nothing is set (a plain connection,
// as to the local dev server). The server's certificate is always verified: against CAFile when
// given, the system's roots otherwise.
func (f TLSFiles) Config() (*tls.Config, error) {
	if !f.Enabled() {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: f.ServerName}
	if (f.CertFile == "") != (f.KeyFile == "") {
		return nil, errors.New("temporal tls: a client certificate needs both TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE")
	}
	if f.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("temporal tls: client certificate %s and key %s: %w", f.CertFile, f.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if f.CAFile != "" {
		pem, err := os.ReadFile(f.CAFile)
		if err != nil {
			return nil, fmt.Errorf("temporal tls: server CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("temporal tls: server CA %s holds no PEM certificate", f.CAFile)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}
