package ceremony_test

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/smallstep/pkcs7"

	"github.com/sobre-sign/sobre/auth/fea"
	"github.com/sobre-sign/sobre/auth/fea/featest"
	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
)

// What a FAO_HASH signature's revocation check leaves on the session that gave it: a good answer
// keeps the OCSP response and "good (OCSP, …)"; an unreachable responder under prefer keeps
// "not checked: …" and no response; a revoked certificate (and, under require, an unreachable
// responder) is refused and leaves the session as it was.
func TestSubmitFEAKeepsTheRevocationStatus(t *testing.T) {
	store, e, rec := pending(t, nil)
	ctx := context.Background()
	now := time.Now()
	root, err := featest.NewRoot("Ceremony Test Root CA", now.AddDate(-1, 0, 0), now.AddDate(5, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	issuing, err := root.IssueCA("Ceremony Test Issuing CA", now.AddDate(-1, 0, 0), now.AddDate(5, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	responder := featest.NewResponder(issuing)
	srv := httptest.NewServer(responder)
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/ocsp"
	l.Close()
	roots := x509.NewCertPool()
	roots.AddCert(root.Cert)
	digest, err := store.FAODigest(ctx, e.ID, rec.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		ocspURL  string
		revoke   bool
		mode     fea.RevocationMode
		refused  string // in the refusal's message
		status   string // the kept status begins so
		withOCSP bool
	}{
		{name: "good", ocspURL: srv.URL, mode: fea.RevocationPrefer, status: "good (OCSP, " + srv.URL + ", ", withOCSP: true},
		{name: "responder down, prefer", ocspURL: dead, mode: fea.RevocationPrefer, status: "not checked: OCSP responder " + dead + " unreachable"},
		{name: "responder down, require", ocspURL: dead, mode: fea.RevocationRequire, refused: "revocation status could not be checked"},
		{name: "revoked", ocspURL: srv.URL, revoke: true, mode: fea.RevocationPrefer, refused: "revoked"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := featest.Advanced("Tomás Ruiz", "44444444-4", now)
			h.OCSPServer = []string{c.ocspURL}
			holder, err := issuing.Issue(h)
			if err != nil {
				t.Fatal(err)
			}
			if c.revoke {
				responder.Revoke(holder.Cert.SerialNumber, now.Add(-time.Hour))
			}
			secret := sha256.Sum256([]byte{byte(i), 'f', 'e', 'a'})
			if err := store.StartCeremony(ctx, secret[:], rec.ID, rec.Token, now.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			session, err := store.CeremonyByHash(ctx, secret[:])
			if err != nil {
				t.Fatal(err)
			}
			cms, err := featest.Sign([]byte(digest), holder, []*x509.Certificate{issuing.Cert}, pkcs7.OIDDigestAlgorithmSHA256)
			if err != nil {
				t.Fatal(err)
			}
			s := &ceremony.Service{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
				FEA: &fea.Verifier{Roots: roots, Revocation: c.mode}}
			_, err = s.SubmitFEA(ctx, ceremony.Status{RecipientID: rec.ID, Session: &session, HasSession: true}, e, rec, cms, envelope.RecipientActor(rec, "", ""))
			kept, rerr := store.CeremonyByHash(ctx, secret[:])
			if rerr != nil {
				t.Fatal(rerr)
			}
			if c.refused != "" {
				if envelope.ErrorCode(err) != envelope.CodeVerificationFailed || !strings.Contains(err.Error(), c.refused) || kept.FEA != nil {
					t.Fatalf("SubmitFEA = %v (session keeps %+v); want %s mentioning %q", err, kept.FEA, envelope.CodeVerificationFailed, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if kept.FEA == nil || !strings.HasPrefix(kept.FEA.Revocation, c.status) || (len(kept.FEA.OCSP) > 0) != c.withOCSP || kept.FEA.Digest != digest {
				t.Fatalf("the session keeps %+v; want a status beginning %q, an OCSP response: %v", kept.FEA, c.status, c.withOCSP)
			}
		})
	}
}
