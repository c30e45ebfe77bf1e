package fea_test

import (
	"context"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ocsp"

	"github.com/sobre-sign/sobre/auth/fea"
	"github.com/sobre-sign/sobre/auth/fea/featest"
)

// testPKI is a CA made for one test: a root, an issuing CA under it and the issuing CA's OCSP
// responder, served locally.
type testPKI struct {
	dir       string
	root      *featest.Issued
	issuing   *featest.Issued
	responder *featest.Responder
	ocspURL   string
	deadURL   string // an OCSP URL where nothing listens
	now       time.Time
}

func newPKI(t *testing.T) *testPKI {
	t.Helper()
	now := time.Now()
	root, err := featest.NewRoot("Rules Test Root CA", now.AddDate(-1, 0, 0), now.AddDate(10, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	issuing, err := root.IssueCA("Rules Test Issuing CA", now.AddDate(-1, 0, 0), now.AddDate(10, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	p := &testPKI{dir: t.TempDir(), root: root, issuing: issuing, responder: featest.NewResponder(issuing), now: now}
	srv := httptest.NewServer(p.responder)
	t.Cleanup(srv.Close)
	p.ocspURL = srv.URL + "/ocsp"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.deadURL = "http://" + l.Addr().String() + "/ocsp"
	l.Close()
	if err := issuing.WriteFiles(p.dir, "issuing", false); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *testPKI) roots() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(p.root.Cert)
	return pool
}

// issue makes a holder under issuer (the issuing CA when nil), written to the PKI's folder as
// name.pem and name.key; it returns the file base.
func (p *testPKI) issue(t *testing.T, name string, issuer *featest.Issued, h featest.Holder) (string, *featest.Issued) {
	t.Helper()
	if issuer == nil {
		issuer = p.issuing
	}
	leaf, err := issuer.Issue(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := leaf.WriteFiles(p.dir, name, true); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(p.dir, name), leaf
}

var (
	oidDocumentSigning = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 36}
	oidAdobeAuthentic  = asn1.ObjectIdentifier{1, 2, 840, 113583, 1, 1, 5}
)

// The rules of an advanced signature's certificate, each shown by a certificate of its own made
// by the test CA generator, signed with openssl: key usage, extended key usage, policies,
// algorithms and revocation by OCSP (a local responder signed by the issuing CA).
func TestCertificateRules(t *testing.T) {
	p := newPKI(t)
	digest := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	wanted, err := x509.OIDFromInts([]uint64{1, 3, 6, 1, 4, 1, 99999, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	other, err := x509.OIDFromInts([]uint64{1, 3, 6, 1, 4, 1, 99999, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	sha1CA, err := p.root.IssueCAWith("Rules Test SHA-1 Issuing CA", p.now.AddDate(-1, 0, 0), p.now.AddDate(10, 0, 0), x509.ECDSAWithSHA1)
	if err != nil {
		t.Fatal(err)
	}
	if err := sha1CA.WriteFiles(p.dir, "sha1-issuing", false); err != nil {
		t.Fatal(err)
	}
	oversized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(make([]byte, fea.MaxOCSPResponse+1))
	}))
	defer oversized.Close()
	toFTP := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://127.0.0.1/ocsp", http.StatusFound)
	}))
	defer toFTP.Close()

	cases := []struct {
		name       string
		holder     func(h *featest.Holder) // changes to a good holder whose responder answers
		issuer     *featest.Issued
		md         string
		verifier   func(v *fea.Verifier)
		revoke     bool
		unknown    bool
		want       error
		revocation string // what the accepted signature's revocation status starts with
	}{
		{name: "good", revocation: "good (OCSP, " + p.ocspURL + ", "},
		{name: "key usage for encryption only", holder: func(h *featest.Holder) { h.KeyUsage = x509.KeyUsageKeyEncipherment }, want: fea.ErrKeyUsage},
		{name: "no key usage", holder: func(h *featest.Holder) { h.KeyUsage = 0 }, want: fea.ErrKeyUsage},
		{name: "contentCommitment alone", holder: func(h *featest.Holder) { h.KeyUsage = x509.KeyUsageContentCommitment }, revocation: "good"},
		{name: "TLS server and client EKU", holder: func(h *featest.Holder) {
			h.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
		}, want: fea.ErrExtKeyUsage},
		{name: "code signing EKU", holder: func(h *featest.Holder) { h.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning} }, want: fea.ErrExtKeyUsage},
		{name: "anyExtendedKeyUsage alone", holder: func(h *featest.Holder) { h.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageAny} }, want: fea.ErrExtKeyUsage},
		{name: "no EKU", holder: func(h *featest.Holder) { h.ExtKeyUsage = nil }, revocation: "good"},
		{name: "clientAuth and emailProtection", holder: func(h *featest.Holder) {
			h.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageEmailProtection}
		}, revocation: "good"},
		{name: "document signing EKU", holder: func(h *featest.Holder) {
			h.ExtKeyUsage, h.UnknownExtKeyUsage = nil, []asn1.ObjectIdentifier{oidDocumentSigning}
		}, revocation: "good"},
		{name: "Adobe authentic documents EKU", holder: func(h *featest.Holder) {
			h.ExtKeyUsage, h.UnknownExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, []asn1.ObjectIdentifier{oidAdobeAuthentic}
		}, revocation: "good"},
		{name: "SHA-1 digest", md: "sha1", want: fea.ErrWeakAlgorithm},
		{name: "SHA-512 digest", md: "sha512", revocation: "good"},
		{name: "certificate signed with SHA-1", holder: func(h *featest.Holder) { h.SignatureAlgorithm = x509.ECDSAWithSHA1 }, want: fea.ErrWeakAlgorithm},
		{name: "issuing CA signed with SHA-1", issuer: sha1CA, holder: func(h *featest.Holder) { h.OCSPServer = nil }, want: fea.ErrWeakAlgorithm},
		{name: "unknown policy when policies are configured", holder: func(h *featest.Holder) { h.Policies = []x509.OID{other} },
			verifier: func(v *fea.Verifier) { v.Policies = []x509.OID{wanted} }, want: fea.ErrPolicy},
		{name: "no policy when policies are configured", verifier: func(v *fea.Verifier) { v.Policies = []x509.OID{wanted} }, want: fea.ErrPolicy},
		{name: "a configured policy", holder: func(h *featest.Holder) { h.Policies = []x509.OID{other, wanted} },
			verifier: func(v *fea.Verifier) { v.Policies = []x509.OID{wanted} }, revocation: "good"},
		{name: "any policy when none is configured", holder: func(h *featest.Holder) { h.Policies = []x509.OID{other} }, revocation: "good"},
		{name: "revoked", revoke: true, want: fea.ErrRevoked},
		{name: "revoked, require", revoke: true, verifier: func(v *fea.Verifier) { v.Revocation = fea.RevocationRequire }, want: fea.ErrRevoked},
		{name: "revoked, but checks are off", revoke: true, verifier: func(v *fea.Verifier) { v.Revocation = fea.RevocationOff },
			revocation: "not checked: revocation checking is off"},
		{name: "good, require", verifier: func(v *fea.Verifier) { v.Revocation = fea.RevocationRequire }, revocation: "good (OCSP, "},
		{name: "responder down, require", holder: func(h *featest.Holder) { h.OCSPServer = []string{p.deadURL} },
			verifier: func(v *fea.Verifier) { v.Revocation = fea.RevocationRequire }, want: fea.ErrUnchecked},
		{name: "responder down, prefer", holder: func(h *featest.Holder) { h.OCSPServer = []string{p.deadURL} },
			revocation: "not checked: OCSP responder " + p.deadURL + " unreachable"},
		{name: "first responder down, second answers", holder: func(h *featest.Holder) { h.OCSPServer = []string{p.deadURL, p.ocspURL} },
			verifier: func(v *fea.Verifier) { v.Revocation = fea.RevocationRequire }, revocation: "good (OCSP, " + p.ocspURL},
		{name: "no responder named, require", holder: func(h *featest.Holder) { h.OCSPServer = nil },
			verifier: func(v *fea.Verifier) { v.Revocation = fea.RevocationRequire }, want: fea.ErrUnchecked},
		{name: "no responder named, prefer", holder: func(h *featest.Holder) { h.OCSPServer = nil },
			revocation: "not checked: the certificate names no OCSP responder"},
		{name: "responder does not know the certificate, prefer", unknown: true, revocation: "not checked: OCSP responder " + p.ocspURL + " does not know"},
		{name: "responder does not know the certificate, require", unknown: true,
			verifier: func(v *fea.Verifier) { v.Revocation = fea.RevocationRequire }, want: fea.ErrUnchecked},
		{name: "oversized answer", holder: func(h *featest.Holder) { h.OCSPServer = []string{oversized.URL} },
			revocation: "not checked: OCSP responder " + oversized.URL + " answered more than 65536 bytes"},
		{name: "redirect to another scheme", holder: func(h *featest.Holder) { h.OCSPServer = []string{toFTP.URL} },
			revocation: "not checked: OCSP responder " + toFTP.URL + " unreachable: redirect to a ftp URL"},
		{name: "responder named by an ldap URL", holder: func(h *featest.Holder) { h.OCSPServer = []string{"ldap://ca.example/ocsp"} },
			revocation: `not checked: OCSP responder "ldap://ca.example/ocsp" is not an http(s) URL`},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := featest.Advanced("Rosa Ávila Fuentes", "44444444-4", p.now)
			h.OCSPServer = []string{p.ocspURL}
			if c.holder != nil {
				c.holder(&h)
			}
			chain := filepath.Join(p.dir, "issuing.pem")
			if c.issuer == sha1CA {
				chain = filepath.Join(p.dir, "sha1-issuing.pem")
			}
			base, leaf := p.issue(t, "holder-"+strings.Repeat("x", i+1), c.issuer, h)
			if c.revoke {
				p.responder.Revoke(leaf.Cert.SerialNumber, p.now.Add(-time.Hour))
			}
			if c.unknown {
				p.responder.Unknown(leaf.Cert.SerialNumber)
			}
			md := c.md
			if md == "" {
				md = "sha256"
			}
			cms := opensslSign(t, digest, base, chain, md, "DER")
			v := fea.Verifier{Roots: p.roots()}
			if c.verifier != nil {
				c.verifier(&v)
			}
			asked := p.responder.Asked()
			got, err := v.Verify(context.Background(), cms, digest, time.Now())
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("Verify: %v; want %v", err, c.want)
			}
			if c.want != nil {
				t.Logf("refused: %v", err)
				return
			}
			if s := got.Revocation.String(); !strings.HasPrefix(s, c.revocation) {
				t.Fatalf("revocation %q, want it to begin %q", s, c.revocation)
			}
			if got.Revocation.Checked {
				r, err := ocsp.ParseResponseForCert(got.Revocation.Response, leaf.Cert, p.issuing.Cert)
				if err != nil || r.Status != ocsp.Good {
					t.Fatalf("the kept OCSP response: %v, %+v", err, r)
				}
			}
			if v.Revocation == fea.RevocationOff && p.responder.Asked() != asked {
				t.Fatal("the responder was asked while checks are off")
			}
		})
	}
}

// The committed test CA still verifies under the new rules: its holders carry
// digitalSignature, contentCommitment and emailProtection, name no responder, and are accepted
// as "not checked" under the default mode.
func TestCommittedHoldersNameNoResponder(t *testing.T) {
	roots, err := fea.LoadTrustRoots(filepath.Join(dir, "root.pem"))
	if err != nil {
		t.Fatal(err)
	}
	digest := strings.Repeat("ab", 32)
	h, err := fea.Verifier{Roots: roots}.Verify(context.Background(), sign(t, digest, "holder-44444444-4", "DER"), digest, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if h.Revocation.Checked || h.Revocation.String() != "not checked: the certificate names no OCSP responder" {
		t.Fatalf("revocation %+v", h.Revocation)
	}
}
