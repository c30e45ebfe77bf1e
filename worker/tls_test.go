package worker_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/worker"
)

// pki is a certification authority and the files of a server and a client certificate it issued.
type pki struct {
	caFile, serverCert, serverKey, clientCert, clientKey string
	pool                                                 *x509.CertPool
}

func newPKI(t *testing.T, dir string) pki {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	p := pki{pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	write := func(name, typ string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p.caFile = write("ca.pem", "CERTIFICATE", caDER)
	issue := func(serial int64, name string, usage x509.ExtKeyUsage) (string, string) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, _ := x509.MarshalPKCS8PrivateKey(key)
		return write(name+".pem", "CERTIFICATE", der), write(name+".key", "PRIVATE KEY", keyDER)
	}
	p.serverCert, p.serverKey = issue(2, "temporal.test", x509.ExtKeyUsageServerAuth)
	p.clientCert, p.clientKey = issue(3, "sobre-worker", x509.ExtKeyUsageClientAuth)
	return p
}

// serveMTLS listens on loopback with the server certificate, requiring a client certificate of
// the CA, and reports each handshake's outcome.
func serveMTLS(t *testing.T, p pki) (string, <-chan error) {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(p.serverCert, p.serverKey)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: p.pool, ClientAuth: tls.RequireAndVerifyClientCert})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	results := make(chan error, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			err = c.(*tls.Conn).Handshake()
			if err == nil {
				_, err = io.WriteString(c, "ok")
			}
			results <- err
			c.Close()
		}
	}()
	return ln.Addr().String(), results
}

func handshake(addr string, cfg *tls.Config) error {
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	buf := make([]byte, 2)
	_, err = io.ReadFull(c, buf)
	return err
}

func TestTLSConfigMutualHandshake(t *testing.T) {
	p := newPKI(t, t.TempDir())
	addr, server := serveMTLS(t, p)

	cfg, err := worker.TLSFiles{CertFile: p.clientCert, KeyFile: p.clientKey, CAFile: p.caFile, ServerName: "temporal.test"}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(addr, cfg); err != nil {
		t.Fatalf("mutual TLS with the client certificate: %v", err)
	}
	if err := <-server; err != nil {
		t.Fatalf("server side: %v", err)
	}

	// Without a client certificate the server refuses the connection.
	cfg, err = worker.TLSFiles{CAFile: p.caFile, ServerName: "temporal.test"}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(addr, cfg); err == nil {
		t.Error("a client without a certificate got through")
	}
	if err := <-server; err == nil {
		t.Error("the server accepted a client without a certificate")
	}

	// A server whose certificate another CA issued is refused by the client.
	other := newPKI(t, t.TempDir())
	cfg, err = worker.TLSFiles{CertFile: p.clientCert, KeyFile: p.clientKey, CAFile: other.caFile, ServerName: "temporal.test"}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(addr, cfg); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a server certificate of an unknown CA: %v, want a verification error", err)
	}
	<-server

	// The server's name is checked.
	cfg, _ = worker.TLSFiles{CertFile: p.clientCert, KeyFile: p.clientKey, CAFile: p.caFile, ServerName: "elsewhere.test"}.Config()
	if err := handshake(addr, cfg); err == nil {
		t.Error("a server certificate for another name was accepted")
	}
}

func TestTLSConfigLoading(t *testing.T) {
	dir := t.TempDir()
	p := newPKI(t, dir)
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err := (worker.TLSFiles{}).Config(); cfg != nil || err != nil {
		t.Errorf("nothing set: %v %v, want a plain connection", cfg, err)
	}
	if cfg, err := (worker.TLSFiles{ServerName: "temporal.test"}).Config(); err != nil || cfg == nil || cfg.RootCAs != nil || cfg.ServerName != "temporal.test" {
		t.Errorf("only a server name: %+v %v, want TLS with the system's roots", cfg, err)
	}
	cfg, err := worker.TLSFiles{CertFile: p.clientCert, KeyFile: p.clientKey}.Config()
	if err != nil || len(cfg.Certificates) != 1 || cfg.MinVersion != tls.VersionTLS12 {
		t.Errorf("client certificate only: %+v %v", cfg, err)
	}
	for _, c := range []struct {
		name  string
		files worker.TLSFiles
		want  string
	}{
		{"certificate without key", worker.TLSFiles{CertFile: p.clientCert}, "TEMPORAL_TLS_KEY_FILE"},
		{"key without certificate", worker.TLSFiles{KeyFile: p.clientKey}, "TEMPORAL_TLS_CERT_FILE"},
		{"missing certificate file", worker.TLSFiles{CertFile: filepath.Join(dir, "none.pem"), KeyFile: p.clientKey}, "none.pem"},
		{"key of another certificate", worker.TLSFiles{CertFile: p.clientCert, KeyFile: p.serverKey}, "private key does not match"},
		{"missing CA file", worker.TLSFiles{CAFile: filepath.Join(dir, "none-ca.pem")}, "none-ca.pem"},
		{"CA file without PEM", worker.TLSFiles{CAFile: notPEM}, "no PEM certificate"},
	} {
		if _, err := c.files.Config(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error mentioning %q", c.name, err, c.want)
		}
	}
}
