package fea

import (
	"bytes"
	"context"
	"crypto"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ocsp"
)

// RevocationMode is how Verify asks whether the signer's certificate was revoked, by OCSP
// (RFC 6960) at the responders its authorityInfoAccess names.
type RevocationMode string

// Revocation modes. A revoked certificate is refused in every mode that asks.
const (
	// RevocationRequire refuses a signature unless a responder answers "good": a certificate
	// that names no responder, an unreachable responder or an unusable answer is refused.
	RevocationRequire RevocationMode = "require"
	// RevocationPrefer asks, refuses "revoked", and accepts the signature when no usable answer
	// comes (no responder named, unreachable, unusable, "unknown"), recording why it was not
	// checked.
	RevocationPrefer RevocationMode = "prefer"
	// RevocationOff never asks.
	RevocationOff RevocationMode = "off"
)

// ParseRevocationMode reads "require", "prefer" or "off".
func ParseRevocationMode(s string) (RevocationMode, error) {
	switch m := RevocationMode(s); m {
	case RevocationRequire, RevocationPrefer, RevocationOff:
		return m, nil
	}
	return "", fmt.Errorf("revocation mode %q is not require, prefer or off", s)
}

// Revocation is what was learnt of the signer's certificate's revocation status.
type Revocation struct {
	Checked    bool   // a responder answered "good"
	Reason     string // why it was not checked, when not Checked
	Responder  string // the responder that answered
	ThisUpdate time.Time
	NextUpdate time.Time // zero when the responder gave none
	Response   []byte    // the OCSP response (DER) as received, when one was read
}

// String is how the revocation status is told in the certificate of completion:
// "good (OCSP, <responder>, <thisUpdate>)" or "not checked: <reason>".
func (r Revocation) String() string {
	if r.Checked {
		return fmt.Sprintf("good (OCSP, %s, %s)", r.Responder, r.ThisUpdate.UTC().Format(time.RFC3339))
	}
	return "not checked: " + r.Reason
}

// Bounds of an OCSP request: its time, the size of the answer, redirects followed, how far a
// responder's clock may be from ours, and how old an answer without nextUpdate may be.
const (
	OCSPTimeout       = 5 * time.Second
	MaxOCSPResponse   = 64 << 10
	maxOCSPRedirects  = 3
	ocspClockSkew     = 5 * time.Minute
	ocspMaxAgeNoNext  = 7 * 24 * time.Hour
	ocspRequestMIME   = "application/ocsp-request"
	ocspResponseMIME  = "application/ocsp-response"
	revocationOffText = "revocation checking is off"
)

// OCSPClient is the HTTP client of OCSP requests: OCSPTimeout per request (redirects included),
// at most three redirects, and only to http or https URLs.
func OCSPClient() *http.Client {
	return &http.Client{Timeout: OCSPTimeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxOCSPRedirects {
			return fmt.Errorf("more than %d redirects", maxOCSPRedirects)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect to a %s URL", req.URL.Scheme)
		}
		return nil
	}}
}

// revocation asks cert's OCSP responders, in the order the certificate names them, until one
// gives a usable answer. It is called once the chain verified: only URLs a trusted CA wrote are
// fetched.
func (v Verifier) revocation(ctx context.Context, cert, issuer *x509.Certificate, now time.Time) (Revocation, error) {
	mode := v.Revocation
	if mode == "" {
		mode = RevocationPrefer
	}
	if mode == RevocationOff {
		return Revocation{Reason: revocationOffText}, nil
	}
	var reasons []string
	var last Revocation
	if len(cert.OCSPServer) == 0 {
		reasons = append(reasons, "the certificate names no OCSP responder")
	}
	for _, responder := range cert.OCSPServer {
		rev, err := v.askOCSP(ctx, responder, cert, issuer, now)
		if errors.Is(err, ErrRevoked) {
			return Revocation{}, err
		}
		if err == nil {
			return rev, nil
		}
		if rev.Response != nil {
			last = rev
		}
		reasons = append(reasons, err.Error())
	}
	reason := strings.Join(reasons, "; ")
	if mode == RevocationRequire {
		return Revocation{}, fmt.Errorf("%w: %s", ErrUnchecked, reason)
	}
	last.Reason = reason
	return last, nil
}

// askOCSP asks one responder about cert. An error other than ErrRevoked says why the answer is
// not usable; the Revocation then holds the response when one was read.
func (v Verifier) askOCSP(ctx context.Context, responder string, cert, issuer *x509.Certificate, now time.Time) (Revocation, error) {
	u, err := url.Parse(responder)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Revocation{}, fmt.Errorf("OCSP responder %q is not an http(s) URL", responder)
	}
	// The certificate is named by SHA-1 hashes of its issuer's name and key, as RFC 5019
	// responders require: an identifier, not a signature.
	body, err := ocsp.CreateRequest(cert, issuer, &ocsp.RequestOptions{Hash: crypto.SHA1})
	if err != nil {
		return Revocation{}, fmt.Errorf("OCSP request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, OCSPTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return Revocation{}, fmt.Errorf("OCSP request to %s: %w", responder, err)
	}
	req.Header.Set("Content-Type", ocspRequestMIME)
	req.Header.Set("Accept", ocspResponseMIME)
	client := v.HTTP
	if client == nil {
		client = OCSPClient()
	}
	res, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return Revocation{}, fmt.Errorf("OCSP responder %s unreachable: %w", responder, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return Revocation{}, fmt.Errorf("OCSP responder %s answered HTTP %d", responder, res.StatusCode)
	}
	der, err := io.ReadAll(io.LimitReader(res.Body, MaxOCSPResponse+1))
	if err != nil {
		return Revocation{}, fmt.Errorf("OCSP responder %s: reading the answer: %w", responder, err)
	}
	if len(der) > MaxOCSPResponse {
		return Revocation{}, fmt.Errorf("OCSP responder %s answered more than %d bytes", responder, MaxOCSPResponse)
	}
	resp, err := ocsp.ParseResponseForCert(der, cert, issuer)
	if err != nil {
		return Revocation{}, fmt.Errorf("OCSP responder %s gave an unusable answer: %w", responder, err)
	}
	rev := Revocation{Responder: responder, ThisUpdate: resp.ThisUpdate, NextUpdate: resp.NextUpdate, Response: der}
	if err := checkOCSPResponse(resp, issuer, now); err != nil {
		return rev, fmt.Errorf("OCSP responder %s gave an unusable answer: %w", responder, err)
	}
	switch resp.Status {
	case ocsp.Good:
		rev.Checked = true
		return rev, nil
	case ocsp.Revoked:
		return rev, fmt.Errorf("%w on %s (OCSP, %s)", ErrRevoked, resp.RevokedAt.UTC().Format(time.RFC3339), responder)
	}
	return rev, fmt.Errorf("OCSP responder %s does not know the certificate", responder)
}

// checkOCSPResponse is what ocsp.ParseResponseForCert leaves to its caller: the answer is
// signed with an accepted algorithm, by the issuer or by a responder the issuer delegated to
// (id-kp-OCSPSigning, valid now), and it is current.
func checkOCSPResponse(resp *ocsp.Response, issuer *x509.Certificate, now time.Time) error {
	switch resp.SignatureAlgorithm {
	case x509.SHA256WithRSA, x509.SHA384WithRSA, x509.SHA512WithRSA, x509.SHA256WithRSAPSS, x509.SHA384WithRSAPSS,
		x509.SHA512WithRSAPSS, x509.ECDSAWithSHA256, x509.ECDSAWithSHA384, x509.ECDSAWithSHA512, x509.PureEd25519:
	default:
		return fmt.Errorf("signed with %s", resp.SignatureAlgorithm)
	}
	if d := resp.Certificate; d != nil && !bytes.Equal(d.Raw, issuer.Raw) {
		if !slices.Contains(d.ExtKeyUsage, x509.ExtKeyUsageOCSPSigning) {
			return errors.New("signed by a certificate the issuer did not delegate OCSP to")
		}
		if now.Before(d.NotBefore) || now.After(d.NotAfter) {
			return errors.New("signed by an expired responder certificate")
		}
		if err := checkCertAlgorithm(d); err != nil {
			return err
		}
	}
	if resp.ThisUpdate.After(now.Add(ocspClockSkew)) {
		return fmt.Errorf("produced in the future (%s)", resp.ThisUpdate.UTC().Format(time.RFC3339))
	}
	if !resp.NextUpdate.IsZero() && resp.NextUpdate.Before(now.Add(-ocspClockSkew)) {
		return fmt.Errorf("out of date since %s", resp.NextUpdate.UTC().Format(time.RFC3339))
	}
	if resp.NextUpdate.IsZero() && resp.ThisUpdate.Before(now.Add(-ocspMaxAgeNoNext)) {
		return fmt.Errorf("older than %s", ocspMaxAgeNoNext)
	}
	return nil
}
