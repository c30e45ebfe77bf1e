// Package tsatest is an RFC 3161 timestamp authority for tests: it answers every timestamp
// request with a token over the request's hash, signed by a certificate of its own. It decides
// nothing and imports nothing of Sobre.
package tsatest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"time"

	"github.com/digitorus/timestamp"
)

// maxRequest bounds the body of a timestamp request the authority reads.
const maxRequest = 1 << 16

// Authority is an http.Handler answering RFC 3161 timestamp requests.
type Authority struct {
	key  *ecdsa.PrivateKey
	cert *x509.Certificate
}

// New returns an authority with a fresh P-256 key and a self-signed timestamping certificate
// valid from an hour ago for a day.
func New() (*Authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tsa key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "Sobre test TSA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("tsa certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("tsa certificate: %w", err)
	}
	return &Authority{key: key, cert: cert}, nil
}

// ServeHTTP answers a timestamp request with a token over its hash; a request it cannot parse
// is a 400.
func (a *Authority) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxRequest))
	req, err := timestamp.ParseRequest(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ts := timestamp.Timestamp{HashAlgorithm: req.HashAlgorithm, HashedMessage: req.HashedMessage, Time: time.Now(),
		Nonce: req.Nonce, Policy: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 99999, 1}, AddTSACertificate: req.Certificates}
	resp, err := ts.CreateResponseWithOpts(a.cert, a.key, crypto.SHA256)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/timestamp-reply")
	_, _ = w.Write(resp)
}
