package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smallstep/pkcs7"
	"go.temporal.io/sdk/testsuite"
	"golang.org/x/crypto/ocsp"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/auth/fea"
	"github.com/sobre-sign/sobre/auth/fea/featest"
	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/seal"
)

// signer is a recipient's browser on the test API: it keeps the ceremony's cookie.
type signer struct {
	t      *testing.T
	a      *testAPI
	client *http.Client
	token  string
}

func (s *signer) call(method, path string, body any) (int, []byte) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.a.srv.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, raw
}

// complete completes the signer's recipient as a browser or an SDK does: a 503 (Temporal busy,
// as a loaded CI machine may make it) is sent again after its Retry-After, and a repeat answered
// "already signed" is the first attempt's success.
func (s *signer) complete() (int, []byte) {
	s.t.Helper()
	for attempt := 1; ; attempt++ {
		status, raw := s.call(http.MethodPost, "/api/v2/signing/"+s.token+"/complete", map[string]any{})
		switch {
		case status == http.StatusServiceUnavailable && attempt < 5:
			time.Sleep(2 * time.Second)
			continue
		case attempt > 1 && status == http.StatusBadRequest && bytes.Contains(raw, []byte(envelope.CodeRecipientAlreadySigned)):
			return http.StatusOK, raw
		}
		return status, raw
	}
}

// download GETs path with key and returns the status, body and headers.
func (a *testAPI) download(path, key string) (int, []byte, http.Header) {
	a.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, a.srv.URL+path, nil)
	req.Header.Set("Authorization", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, body, res.Header
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatalf("%s is missing", name)
		}
		t.Skipf("%s is missing", name)
	}
}

// A FAO_HASH signature given through the signing API, with its certificate's revocation checked
// by a local OCSP responder, is kept by the session, copied to the recipient's identity when it
// completes, told on the certificate of completion, and its digest input, CMS and OCSP response
// are downloadable by the owner (and by no other team): SHA-256 of the digest input is the
// recorded digest, and openssl verifies the signature over it as docs/fao-hash.md says.
func TestFAOHashProofReachesIdentityCertificateAndOwner(t *testing.T) {
	needTool(t, "openssl")
	needTool(t, "pdftotext")
	ctx := context.Background()
	now := time.Now()
	root, err := featest.NewRoot("Integration Test Root CA", now.AddDate(-1, 0, 0), now.AddDate(5, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	issuing, err := root.IssueCA("Integration Test Issuing CA", now.AddDate(-1, 0, 0), now.AddDate(5, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	responder := featest.NewResponder(issuing)
	ocspSrv := httptest.NewServer(responder)
	defer ocspSrv.Close()
	h := featest.Advanced("Rosa Ávila Fuentes", "44444444-4", now)
	h.OCSPServer = []string{ocspSrv.URL + "/ocsp"}
	holder, err := issuing.Issue(h)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(root.Cert)
	a := newTestAPIWith(t, func(d *Deps) {
		d.Ceremony = &ceremony.Service{Store: d.Store, PublicURL: d.Config.PublicURL, Log: d.Log,
			FEA: &fea.Verifier{Roots: roots, Revocation: fea.RevocationRequire}}
	})
	owner := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	stranger := a.key("Other", "eve@other.cl", envelope.TeamRoleAdmin)

	// An envelope whose signer must give an advanced signature, with a signature and a text field.
	payload := map[string]any{"title": "Arriendo", "type": "DOCUMENT", "recipients": []any{map[string]any{
		"email": "rosa@example.cl", "name": "Rosa", "role": "SIGNER", "actionAuth": []string{"FAO_HASH"},
		"fields": []any{
			map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5},
			map[string]any{"type": "TEXT", "page": 1, "positionX": 10, "positionY": 20, "width": 20, "height": 5,
				"fieldMeta": map[string]any{"type": "text", "required": true}},
		}}}}
	status, created := a.createRaw(owner, payload, map[string][]byte{"a.pdf": minimalPDF("CONTRATO")})
	if status != http.StatusOK {
		t.Fatalf("create: %d %v", status, created)
	}
	envelopeID := created["id"].(string)
	if _, err := a.store.MarkPending(ctx, envelopeID, nil); err != nil {
		t.Fatal(err)
	}
	e, err := a.store.EnvelopeForRecipient(ctx, envelopeID)
	if err != nil {
		t.Fatal(err)
	}
	rec := e.Recipients[0]
	var sigField, textField int64
	for _, f := range e.Fields {
		switch f.Type {
		case envelope.FieldSignature:
			sigField = f.ID
		case envelope.FieldText:
			textField = f.ID
		}
	}

	// The signer opens the link (the page starts the ceremony), fills the fields, signs the digest.
	jar, _ := cookiejar.New(nil)
	b := &signer{t: t, a: a, client: &http.Client{Jar: jar}, token: rec.Token}
	if status, body := b.call(http.MethodGet, "/sign/"+rec.Token, nil); status != http.StatusOK {
		t.Fatalf("signing page: %d %s", status, body)
	}
	for id, value := range map[int64]string{sigField: "Rosa Ávila", textField: "two\nlines"} {
		if status, body := b.call(http.MethodPost, "/api/v2/signing/"+rec.Token+"/fields", map[string]any{"fieldId": id, "value": value}); status != http.StatusOK {
			t.Fatalf("fill field %d: %d %s", id, status, body)
		}
	}
	status, raw := b.call(http.MethodGet, "/api/v2/signing/"+rec.Token+"/fea", nil)
	var d struct{ Digest string }
	if err := json.Unmarshal(raw, &d); status != http.StatusOK || err != nil || len(d.Digest) != 64 {
		t.Fatalf("digest: %d %s", status, raw)
	}
	cms, err := featest.Sign([]byte(d.Digest), holder, []*x509.Certificate{issuing.Cert}, pkcs7.OIDDigestAlgorithmSHA256)
	if err != nil {
		t.Fatal(err)
	}
	status, raw = b.call(http.MethodPost, "/api/v2/signing/"+rec.Token+"/fea", map[string]any{"signature": base64.StdEncoding.EncodeToString(cms)})
	var verified struct {
		Verified   bool
		RUT        string
		Revocation string
	}
	if err := json.Unmarshal(raw, &verified); status != http.StatusOK || err != nil || !verified.Verified {
		t.Fatalf("FEA: %d %s", status, raw)
	}
	wantRevocation := "good (OCSP, " + ocspSrv.URL + "/ocsp, "
	if !strings.HasPrefix(verified.Revocation, wantRevocation) || responder.Asked() != 1 {
		t.Fatalf("revocation %q (responder asked %d times), want %q…", verified.Revocation, responder.Asked(), wantRevocation)
	}

	// The session keeps the proof with its OCSP response.
	var session persistence.Ceremony
	for _, ck := range jar.Cookies(mustURL(t, a.srv.URL+"/")) {
		if strings.HasPrefix(ck.Name, "sobre_ceremony_") {
			sum := sha256.Sum256([]byte(ck.Value))
			if session, err = a.store.CeremonyByHash(ctx, sum[:]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if session.FEA == nil || len(session.FEA.OCSP) == 0 || session.FEA.Revocation != verified.Revocation || session.FEA.Digest != d.Digest {
		t.Fatalf("session proof %+v", session.FEA)
	}

	// Nothing to download before the recipient completes.
	path := fmt.Sprintf("/api/v2/envelope/recipient/%d/fao-digest-input", rec.ID)
	if status, body, _ := a.download(path, owner); status != http.StatusNotFound {
		t.Fatalf("digest input before completion: %d %s", status, body)
	}

	// Completion (what the workflow's activity runs) copies the proof to the identity.
	if _, err := a.store.CompleteRecipient(ctx, persistence.CompleteInput{RecipientCompletion: envelope.RecipientCompletion{EnvelopeID: envelopeID, RecipientID: rec.ID,
		Now: time.Now(), SessionID: session.ID, Actor: envelope.RecipientActor(rec, "203.0.113.9", "test")}}); err != nil {
		t.Fatal(err)
	}
	id, err := a.store.RecipientIdentity(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if id.FEARevocation != verified.Revocation || !bytes.Equal(id.FEAOCSP, session.FEA.OCSP) || id.FEADigest != d.Digest {
		t.Fatalf("identity %+v", id)
	}
	resp, err := ocsp.ParseResponseForCert(id.FEAOCSP, holder.Cert, issuing.Cert)
	if err != nil || resp.Status != ocsp.Good {
		t.Fatalf("the identity's OCSP response: %v %+v", err, resp)
	}
	status, log := a.do(http.MethodGet, "/api/v2/envelope/"+envelopeID+"/audit-log?orderByDirection=asc", owner, "")
	found := false
	for _, entry := range log["data"].([]any) {
		entry := entry.(map[string]any)
		if entry["type"] != "DOCUMENT_RECIPIENT_COMPLETED" {
			continue
		}
		cert, _ := entry["data"].(map[string]any)["identity"].(map[string]any)["certificate"].(map[string]any)
		found = cert["revocation"] == verified.Revocation && cert["digest"] == d.Digest
	}
	if status != http.StatusOK || !found {
		t.Fatalf("the audit log does not record the certificate's revocation: %d %v", status, log)
	}

	// The owner downloads the digest input: its SHA-256 is the recorded, signed digest.
	status, input, hdr := a.download(path, owner)
	if status != http.StatusOK {
		t.Fatalf("digest input: %d %s", status, input)
	}
	sum := sha256.Sum256(input)
	if hex.EncodeToString(sum[:]) != id.FEADigest || hdr.Get("Repr-Digest") != "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":" {
		t.Fatalf("SHA-256 of the digest input %x, recorded digest %s (Repr-Digest %s)", sum, id.FEADigest, hdr.Get("Repr-Digest"))
	}
	want := fmt.Sprintf("sobre-fao-hash v1\nenvelope %d:%s\nrecipient %d\n", len(envelopeID), envelopeID, rec.ID)
	if !strings.HasPrefix(string(input), want) || !strings.Contains(string(input), fmt.Sprintf("field %d TEXT 9:two\nlines\n", textField)) {
		t.Fatalf("digest input:\n%s", input)
	}
	// Another team's key sees no such recipient.
	for _, p := range []string{"fao-digest-input", "fao-signature", "fao-ocsp"} {
		if status, body, _ := a.download(fmt.Sprintf("/api/v2/envelope/recipient/%d/%s", rec.ID, p), stranger); status != http.StatusNotFound {
			t.Fatalf("%s for another team: %d %s", p, status, body)
		}
	}

	// A third party checks it with openssl, as docs/fao-hash.md says.
	dir := t.TempDir()
	status, sig, _ := a.download(fmt.Sprintf("/api/v2/envelope/recipient/%d/fao-signature", rec.ID), owner)
	if status != http.StatusOK || !bytes.Equal(sig, cms) {
		t.Fatalf("signature: %d", status)
	}
	status, ocspDER, _ := a.download(fmt.Sprintf("/api/v2/envelope/recipient/%d/fao-ocsp", rec.ID), owner)
	if status != http.StatusOK || !bytes.Equal(ocspDER, id.FEAOCSP) {
		t.Fatalf("OCSP response: %d", status)
	}
	for name, data := range map[string][]byte{"fao-digest-input.txt": input, "signature.p7s": sig, "ocsp.der": ocspDER, "root.pem": root.CertPEM()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := `set -e
openssl dgst -sha256 -r fao-digest-input.txt | cut -c1-64 | tr -d '\n' > digest.txt
openssl cms -verify -binary -inform DER -in signature.p7s -content digest.txt -CAfile root.pem -purpose any -out /dev/null
openssl pkcs7 -inform DER -in signature.p7s -print_certs > chain.pem
awk '/BEGIN/{n++} n==1' chain.pem > holder.pem
awk '/BEGIN/{n++} n==2' chain.pem > issuer.pem
openssl ocsp -respin ocsp.der -issuer issuer.pem -cert holder.pem -VAfile issuer.pem -no_nonce`
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "holder.pem: good") {
		t.Fatalf("openssl: %v\n%s", err, out)
	}
	if digest, _ := os.ReadFile(filepath.Join(dir, "digest.txt")); string(digest) != d.Digest {
		t.Fatalf("openssl's digest %q, signed %q", digest, d.Digest)
	}

	// The certificate of completion tells the revocation status.
	if err := a.store.FinishEnvelope(ctx, envelope.CompletedEvent(envelopeID, "test", time.Now()), envelope.SystemActor()); err != nil {
		t.Fatal(err)
	}
	sealer, _, err := seal.DevSeal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(&activities.Activities{Store: a.store, Seal: sealer, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if _, err := env.ExecuteActivity((&activities.Activities{}).SealEnvelope, envelopeID); err != nil {
		t.Fatal(err)
	}
	status, pdf, _ := a.download("/api/v2/envelope/"+envelopeID+"/certificate/download", owner)
	if status != http.StatusOK {
		t.Fatalf("certificate: %d %s", status, pdf)
	}
	file := filepath.Join(dir, "certificate.pdf")
	if err := os.WriteFile(file, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	text, err := exec.Command("pdftotext", "-raw", file, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(string(text)), " ")
	// The digest input's item is the document the certificate lists as shown and sealed.
	var item string
	for _, line := range strings.Split(string(input), "\n") {
		if strings.HasPrefix(line, "item ") {
			item = line[strings.LastIndexByte(line, ' ')+1:]
		}
	}
	if item == "" || !strings.Contains(flat, "shown and sealed: "+item) {
		t.Fatalf("the digest input's item %q is not the certificate's shown document:\n%s", item, text)
	}
	if !strings.Contains(flat, "Revocation: good (OCSP, "+ocspSrv.URL+"/ocsp, ") || !strings.Contains(flat, "RUT 44444444-4") {
		t.Fatalf("the certificate of completion does not tell the revocation status:\n%s", text)
	}
}
