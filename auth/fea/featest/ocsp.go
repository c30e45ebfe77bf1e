package featest

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/smallstep/pkcs7"
	"golang.org/x/crypto/ocsp"
)

// Responder is an OCSP responder for the certificates Issuer issued: it answers every request
// (GET or POST, RFC 6960 appendix A) with a response signed by Issuer's own key, "good" unless
// the serial was revoked or marked unknown. Serve it with httptest.NewServer.
type Responder struct {
	Issuer *Issued

	mu      sync.Mutex
	revoked map[string]time.Time
	unknown map[string]bool
	asked   int
}

// NewResponder answers for issuer.
func NewResponder(issuer *Issued) *Responder {
	return &Responder{Issuer: issuer, revoked: map[string]time.Time{}, unknown: map[string]bool{}}
}

// Revoke makes the responder say serial was revoked at at.
func (r *Responder) Revoke(serial *big.Int, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.revoked[serial.String()] = at
}

// Unknown makes the responder say it does not know serial.
func (r *Responder) Unknown(serial *big.Int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.unknown[serial.String()] = true
}

// Asked is how many requests the responder answered.
func (r *Responder) Asked() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.asked
}

func (r *Responder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var der []byte
	var err error
	switch req.Method {
	case http.MethodPost:
		der, err = io.ReadAll(io.LimitReader(req.Body, 10<<10))
	case http.MethodGet:
		var raw string
		if raw, err = url.PathUnescape(strings.TrimPrefix(req.URL.Path, "/")); err == nil {
			der, err = base64.StdEncoding.DecodeString(raw)
		}
	default:
		http.Error(w, "GET or POST", http.StatusMethodNotAllowed)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	q, err := ocsp.ParseRequest(der)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	now := time.Now()
	tmpl := ocsp.Response{Status: ocsp.Good, SerialNumber: q.SerialNumber, ThisUpdate: now.Add(-time.Minute).Truncate(time.Second),
		NextUpdate: now.Add(time.Hour).Truncate(time.Second), IssuerHash: q.HashAlgorithm}
	r.mu.Lock()
	r.asked++
	if at, ok := r.revoked[q.SerialNumber.String()]; ok {
		tmpl.Status, tmpl.RevokedAt, tmpl.RevocationReason = ocsp.Revoked, at.Truncate(time.Second), ocsp.KeyCompromise
	}
	if r.unknown[q.SerialNumber.String()] {
		tmpl.Status = ocsp.Unknown
	}
	r.mu.Unlock()
	resp, err := ocsp.CreateResponse(r.Issuer.Cert, r.Issuer.Cert, tmpl, r.Issuer.Key)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/ocsp-response")
	_, _ = w.Write(resp)
}

// Sign makes a detached CMS signature over content with signer's key, its certificate and chain
// included, hashing with digest (pkcs7.OIDDigestAlgorithmSHA256, …SHA1, …).
func Sign(content []byte, signer *Issued, chain []*x509.Certificate, digest asn1.ObjectIdentifier) ([]byte, error) {
	sd, err := pkcs7.NewSignedData(content)
	if err != nil {
		return nil, fmt.Errorf("CMS: %w", err)
	}
	sd.SetDigestAlgorithm(digest)
	if err := sd.AddSignerChain(signer.Cert, signer.Key, chain, pkcs7.SignerInfoConfig{}); err != nil {
		return nil, fmt.Errorf("CMS signer: %w", err)
	}
	sd.Detach()
	return sd.Finish()
}
