package api

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/smallstep/pkcs7"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/auth/claveunica"
	"github.com/sobre-sign/sobre/auth/claveunicadev"
	"github.com/sobre-sign/sobre/auth/fea"
	"github.com/sobre-sign/sobre/auth/fea/featest"
	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/seal"
	"github.com/sobre-sign/sobre/worker"
	"github.com/sobre-sign/sobre/workflows"
)

// newTestAPIWithWorkflows is newTestAPI with a real worker on the dev server behind it, for the
// endpoints that start workflows; no rate limit or mail quota applies.
func newTestAPIWithWorkflows(tb testing.TB) *testAPI {
	return newTestAPIWithWorkflowsConfig(tb, func(c *config.Config) { *c = unlimited(*c) })
}

// newTestAPIWithWorkflowsConfig is newTestAPIWithWorkflows with the configuration changed by
// configure.
func newTestAPIWithWorkflowsConfig(tb testing.TB, configure func(c *config.Config)) *testAPI {
	a := newTestAPI(tb)
	smtpURL := os.Getenv("SOBRE_TEST_SMTP_URL")
	if smtpURL == "" {
		tb.Skip("SOBRE_TEST_SMTP_URL not set: run `make bench`")
	}
	c := temporaltest.Client(tb, nil)
	queue := temporaltest.TaskQueue(tb)
	sender, err := mail.NewSender(smtpURL, "Sobre <no-reply@sobre.test>")
	if err != nil {
		tb.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := testConfig(tb)
	configure(&cfg)
	a.fea = newTestFEA(tb)
	flows := &workflows.Client{Temporal: c, TaskQueue: queue}
	cer := testCeremony(tb, a.store, sender, cfg.PublicURL, a.fea)
	// The bulk send distributes through the workflows client, as `sobre worker` wires it.
	a.acts = &activities.Activities{Store: a.store, Mail: sender, PublicURL: "http://sobre.test", Log: log, Seal: testSeal(tb),
		Bulk: activities.BulkSend{Distribute: flows.Distribute, Signable: cer.CheckSignable, MailQuota: cfg.MailQuota}}
	w, err := worker.New(c, worker.Options{TaskQueue: queue, StopTimeout: time.Second, Log: log, Activities: a.acts})
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(w.Stop)
	server, err := NewServer(Deps{Config: cfg, Log: log, Store: a.store, Registry: prometheus.NewRegistry(), Workflows: flows, Ceremony: cer})
	if err != nil {
		tb.Fatal(err)
	}
	a.srv.Config.Handler = checkedHandler(tb, server.Handler())
	a.server = server
	return a
}

// testCeremony is a signing ceremony that takes every method: mail for access codes, a local
// Clave Única provider served for the test, advanced signatures by certificates of f, and
// signer accounts.
func testCeremony(tb testing.TB, store *persistence.Store, sender *mail.Sender, publicURL string, f *testFEA) *ceremony.Service {
	tb.Helper()
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	tb.Cleanup(srv.Close)
	p, err := claveunicadev.New(srv.URL+"/openid", []claveunicadev.Client{{ID: "sobre", Secret: "s", RedirectPrefixes: []string{publicURL + "/"}}},
		claveunicadev.Options{}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	h = p.Handler()
	log := slog.New(slog.DiscardHandler)
	relyingParty, err := account.NewWebAuthn(publicURL)
	if err != nil {
		tb.Fatal(err)
	}
	return &ceremony.Service{Store: store, Mail: sender, PublicURL: publicURL, Log: log, FEA: f.verifier,
		Accounts: &account.Service{Store: store, Mail: sender, PublicURL: publicURL, WebAuthn: relyingParty, Log: log},
		ClaveUnica: claveunica.New(claveunica.Config{IssuerURL: srv.URL + "/openid", ClientID: "sobre", ClientSecret: "s",
			RedirectURL: publicURL + "/auth/claveunica/callback"})}
}

// threeRecipients is a payload with an approver and two signers, each signer with a signature.
func threeRecipients(typ string) map[string]any {
	sig := func(y int) []any {
		return []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": y, "width": 10, "height": 5}}
	}
	return map[string]any{"title": "Contrato", "type": typ, "recipients": []any{
		map[string]any{"email": "a@bench.test", "name": "A", "role": "APPROVER", "signingOrder": 1},
		map[string]any{"email": "b@bench.test", "name": "B", "role": "SIGNER", "signingOrder": 2, "fields": sig(10)},
		map[string]any{"email": "c@bench.test", "name": "C", "role": "SIGNER", "signingOrder": 2, "fields": sig(30)},
	}}
}

// BenchmarkUseTemplate measures documents made and distributed from one template with three
// recipients, next to plain creates of the same envelope in the same run.
func BenchmarkUseTemplate(b *testing.B) {
	// A mail quota applies, as by default, so that a use with distribute pays for counting and
	// reserving its requests; it is large enough never to be reached.
	a := newTestAPIWithWorkflowsConfig(b, func(c *config.Config) {
		*c = unlimited(*c)
		c.MailQuota = 1_000_000_000
	})
	key := a.key("Bench", "bench@example.com", envelope.TeamRoleAdmin)
	pdfBytes := minimalPDF("bench")
	status, body := a.createRaw(key, threeRecipients("TEMPLATE"), map[string][]byte{"a.pdf": pdfBytes})
	if status != 200 {
		b.Fatalf("template: %d %v", status, body)
	}
	templateID := body["id"].(string)
	var createRate float64
	b.Run("create", func(b *testing.B) {
		var t timings
		b.SetParallelism(2)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				s := time.Now()
				if status, body := a.createRaw(key, threeRecipients("DOCUMENT"), map[string][]byte{"a.pdf": pdfBytes}); status != 200 {
					b.Fatalf("create: %d %v", status, body)
				}
				t.add(time.Since(s))
			}
		})
		t.report(b, 0)
		createRate = float64(b.N) / b.Elapsed().Seconds()
	})
	b.Run("use-distribute", func(b *testing.B) {
		var t timings
		b.SetParallelism(2)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				s := time.Now()
				body, ct := multipartBody(b, map[string]any{"envelopeId": templateID, "distributeDocument": true}, nil)
				req, _ := http.NewRequest("POST", a.srv.URL+"/api/v2/envelope/use", body)
				req.Header.Set("Authorization", key)
				req.Header.Set("Content-Type", ct)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				raw, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					b.Fatalf("use: %d %s", res.StatusCode, raw)
				}
				t.add(time.Since(s))
			}
		})
		t.report(b, 0)
		if createRate > 0 {
			b.ReportMetric((float64(b.N)/b.Elapsed().Seconds())/createRate, "x-create")
		}
	})
	n, _ := a.store.CountRows(context.Background(), "envelopes")
	b.Logf("%d envelopes in the database at the end", n)
}

// testSeal is a self-signed seal made for the test.
func testSeal(t testing.TB) *seal.Signer {
	t.Helper()
	s, _, err := seal.DevSeal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testFEA is a certification authority made for a test, with an OCSP responder, and one holder
// of an advanced certificate whose signatures its verifier takes (revocation checked).
type testFEA struct {
	verifier *fea.Verifier
	issuing  *featest.Issued
	holder   *featest.Issued
}

// testFEARUT is the RUT of the testFEA holder's certificate.
const testFEARUT = "44444444-4"

func newTestFEA(tb testing.TB) *testFEA {
	tb.Helper()
	now := time.Now()
	root, err := featest.NewRoot("Test Root CA", now.AddDate(-1, 0, 0), now.AddDate(5, 0, 0))
	if err != nil {
		tb.Fatal(err)
	}
	issuing, err := root.IssueCA("Test Issuing CA", now.AddDate(-1, 0, 0), now.AddDate(5, 0, 0))
	if err != nil {
		tb.Fatal(err)
	}
	ocspSrv := httptest.NewServer(featest.NewResponder(issuing))
	tb.Cleanup(ocspSrv.Close)
	h := featest.Advanced("Rosa Ávila Fuentes", testFEARUT, now)
	h.OCSPServer = []string{ocspSrv.URL + "/ocsp"}
	holder, err := issuing.Issue(h)
	if err != nil {
		tb.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(root.Cert)
	return &testFEA{verifier: &fea.Verifier{Roots: roots, Revocation: fea.RevocationRequire}, issuing: issuing, holder: holder}
}

// sign is the holder's detached CMS signature over digest, base64 of DER as the signing API
// takes it.
func (f *testFEA) sign(digest string) (string, error) {
	cms, err := featest.Sign([]byte(digest), f.holder, []*x509.Certificate{f.issuing.Cert}, pkcs7.OIDDigestAlgorithmSHA256)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(cms), nil
}
