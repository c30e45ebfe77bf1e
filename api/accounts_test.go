package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// The signer-account methods as an attacker meets them: another person holding a forwarded
// signing link, another browser, another account, a server that cannot take a method.

// accountBrowser is a browser: its own cookies, no redirect followed, every request same-origin.
type accountBrowser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newAccountBrowser(t *testing.T, a *testAPI) *accountBrowser {
	jar, _ := cookiejar.New(nil)
	return &accountBrowser{t: t, base: a.srv.URL, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *accountBrowser) send(method, path, contentType string, body io.Reader) (int, http.Header, string) {
	b.t.Helper()
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(raw)
}

func (b *accountBrowser) get(path string) (int, http.Header, string) {
	b.t.Helper()
	return b.send(http.MethodGet, path, "", nil)
}

func (b *accountBrowser) form(path string, v url.Values) (int, http.Header, string) {
	b.t.Helper()
	return b.send(http.MethodPost, path, "application/x-www-form-urlencoded", strings.NewReader(v.Encode()))
}

func (b *accountBrowser) json(path string, body any) (int, string) {
	b.t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		b.t.Fatal(err)
	}
	status, _, out := b.send(http.MethodPost, path, "application/json", bytes.NewReader(raw))
	return status, out
}

// signIn signs the browser in to email with password; it fails the test when refused.
func (b *accountBrowser) signIn(email, password string) {
	b.t.Helper()
	if status, _, body := b.form("/account/signin", url.Values{"email": {email}, "password": {password}}); status != http.StatusSeeOther {
		b.t.Fatalf("sign in %s: %d\n%s", email, status, body)
	}
}

// accountEnvelope creates and distributes an envelope with one recipient of email, role and auth,
// with a signature and a text field for a SIGNER, and returns its id, the recipient and the
// ids of the signature and text fields.
func (a *testAPI) accountEnvelope(key, email, role string, access, action []string) (string, envelope.Recipient, int64, int64) {
	a.t.Helper()
	rec := map[string]any{"email": email, "name": "Víctima", "role": role, "accessAuth": access, "actionAuth": action}
	if role == "SIGNER" {
		rec["fields"] = []any{
			map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5},
			map[string]any{"type": "TEXT", "page": 1, "positionX": 10, "positionY": 30, "width": 20, "height": 5,
				"fieldMeta": map[string]any{"type": "text", "required": true}},
		}
	}
	payload := map[string]any{"title": "Préstamo", "type": "DOCUMENT", "recipients": []any{rec}}
	status, created := a.createRaw(key, payload, map[string][]byte{"a.pdf": minimalPDF(fmt.Sprint("account test ", time.Now().UnixNano()))})
	if status != http.StatusOK {
		a.t.Fatalf("create: %d %v", status, created)
	}
	id := created["id"].(string)
	if status, body := a.do("POST", "/api/v2/envelope/attachment/create", key,
		fmt.Sprintf(`{"envelopeId":%q,"data":{"label":"Anexo confidencial","data":"https://files.example/anexo-secreto.pdf"}}`, id)); status != http.StatusOK {
		a.t.Fatalf("attachment: %d %v", status, body)
	}
	if status, body := a.do("POST", "/api/v2/envelope/distribute", key, fmt.Sprintf(`{"envelopeId":%q}`, id)); status != http.StatusOK {
		a.t.Fatalf("distribute: %d %v", status, body)
	}
	e, err := a.store.EnvelopeForRecipient(context.Background(), id)
	if err != nil {
		a.t.Fatal(err)
	}
	var sig, text int64
	for _, f := range e.Fields {
		switch f.Type {
		case envelope.FieldSignature:
			sig = f.ID
		case envelope.FieldText:
			text = f.ID
		}
	}
	return id, e.Recipients[0], sig, text
}

// signerAccount makes a verified account of email with password, as the mailed link would.
func (a *testAPI) signerAccount(email, password string) {
	a.t.Helper()
	ctx := context.Background()
	hash, err := account.HashPassword(ctx, password)
	if err != nil {
		a.t.Fatal(err)
	}
	acc, _, err := a.store.UpsertSignerAccount(ctx, email, hash, "en", time.Now())
	if err != nil {
		a.t.Fatal(err)
	}
	token := fmt.Sprintf("verify-token-%d", time.Now().UnixNano())
	h := sha256Of(token)
	if err := a.store.CreateAccountLink(ctx, acc.ID, persistence.AccountLinkVerify, h, "", time.Now().Add(time.Hour), time.Now()); err != nil {
		a.t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/account/verify/"+token, nil)
	if _, _, _, err := a.server.ceremony.Accounts.VerifyEmail(ctx, httptest.NewRecorder(), req, token, password, account.Client{}); err != nil {
		a.t.Fatal(err)
	}
}

// completedProofs returns data.proofs of the DOCUMENT_RECIPIENT_COMPLETED entry, nil when none.
func (a *testAPI) completedProofs(key, id string) []any {
	a.t.Helper()
	entry := a.auditEntry(key, id, "DOCUMENT_RECIPIENT_COMPLETED")
	if entry == nil {
		return nil
	}
	proofs, _ := entry["data"].(map[string]any)["proofs"].([]any)
	return proofs
}

// TestAttachmentsThroughATokenNeedItsAccess: the attachments of an envelope whose recipient needs
// ACCOUNT access are not listed to an API key holder of another team who has the signing link
// but not the account.
func TestAttachmentsThroughATokenNeedItsAccess(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	stranger := a.key("Other", "eve@other.cl", envelope.TeamRoleAdmin)
	id, rec, _, _ := a.accountEnvelope(owner, fmt.Sprintf("gated-%d@sobre.test", time.Now().UnixNano()), "SIGNER", []string{"ACCOUNT"}, nil)

	// The signing API refuses the link's holder.
	b := newAccountBrowser(t, a)
	if status, body := b.json("/api/v2/signing/"+rec.Token+"/fields", map[string]any{"fieldId": 1, "value": "x"}); status != http.StatusUnauthorized {
		t.Fatalf("signing API without the account: %d %s, want 401", status, body)
	}
	status, body := a.do("GET", "/api/v2/envelope/attachment?envelopeId="+id+"&token="+rec.Token, stranger, "")
	if status == http.StatusOK {
		t.Errorf("GET /envelope/attachment with the signing token lists the attachments without ACCOUNT access: %v", body)
	}
}

// TestFieldsFilledElsewhereAreRefusedForAccountProofs: with PASSWORD as the only action method,
// the holder of a forwarded link, signed in to nothing, may type into the recipient's fields, but
// the recipient's completion, password proved, is refused until that field is filled again in
// the recipient's own browser: nothing typed by someone else is sealed under their proof.
func TestFieldsFilledElsewhereAreRefusedForAccountProofs(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	victim := fmt.Sprintf("fwd-%d@sobre.test", time.Now().UnixNano())
	const password = "victim's good passphrase"
	a.signerAccount(victim, password)
	id, rec, sig, text := a.accountEnvelope(owner, victim, "SIGNER", nil, []string{"PASSWORD"})

	forwarded := newAccountBrowser(t, a)
	if status, _, body := forwarded.get("/sign/" + rec.Token); status != http.StatusOK {
		t.Fatalf("forwarded link page: %d\n%s", status, body)
	}
	if status, body := forwarded.json("/api/v2/signing/"+rec.Token+"/fields", map[string]any{"fieldId": text, "value": "renuncio a toda indemnización"}); status != http.StatusOK {
		t.Fatalf("fill from the forwarded link: %d %s", status, body)
	}

	// The recipient signs in, proves the password: refused while the text field is someone else's.
	v := newAccountBrowser(t, a)
	v.signIn(victim, password)
	status, _, page := v.get("/sign/" + rec.Token)
	if status != http.StatusOK {
		t.Fatalf("signing page: %d\n%s", status, page)
	}
	// The page shows the field empty, saying it was filled in another browser: what it shows is
	// what this browser's completion may seal.
	if strings.Contains(page, "renuncio") || !strings.Contains(page, fmt.Sprintf(`id="f-%d" class="field" data-field="%d" data-type="TEXT" data-elsewhere="1"`, text, text)) ||
		!strings.Contains(page, "Filled in another browser") {
		t.Fatalf("the signing page does not show the text field as filled elsewhere:\n%s", page)
	}
	if status, body := v.json("/api/v2/signing/"+rec.Token+"/fields", map[string]any{"fieldId": sig, "value": "Víctima"}); status != http.StatusOK {
		t.Fatalf("signature: %d %s", status, body)
	}
	if status, body := v.json("/api/v2/signing/"+rec.Token+"/auth/password", map[string]any{"password": password}); status != http.StatusOK {
		t.Fatalf("password: %d %s", status, body)
	}
	if status, body := v.json("/api/v2/signing/"+rec.Token+"/complete", map[string]any{}); status != http.StatusUnauthorized ||
		!strings.Contains(body, fmt.Sprintf(`{"message":"field %d was filled in another browser or session","path":"fieldId"}`, text)) {
		t.Fatalf("completed with a text field filled by another browser that proved nothing, or did not name it: %d %s; proofs %v", status, body, a.completedProofs(owner, id))
	}
	// Filled again here, the completion goes through.
	if status, body := v.json("/api/v2/signing/"+rec.Token+"/fields", map[string]any{"fieldId": text, "value": "de acuerdo"}); status != http.StatusOK {
		t.Fatalf("fill again: %d %s", status, body)
	}
	if status, body := v.json("/api/v2/signing/"+rec.Token+"/complete", map[string]any{}); status != http.StatusOK {
		t.Fatalf("complete after filling again: %d %s", status, body)
	}
}

// TestAccountProofsStayWithTheirBrowserAndAccount: a password proved in one browser does not
// complete in another browser signed in to the same account, nor after the proving browser
// signs in to another account or signs out; the evidence names the account that proved.
func TestAccountProofsStayWithTheirBrowserAndAccount(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	victim := fmt.Sprintf("stay-%d@sobre.test", time.Now().UnixNano())
	other := fmt.Sprintf("Stay-other-%d@sobre.test", time.Now().UnixNano())
	const password = "victim's good passphrase"
	a.signerAccount(victim, password)
	a.signerAccount(other, password)
	id, rec, sig, text := a.accountEnvelope(owner, victim, "SIGNER", nil, []string{"PASSWORD"})
	base := "/api/v2/signing/" + rec.Token

	one := newAccountBrowser(t, a)
	one.signIn(strings.ToUpper(victim), password) // any case of the address
	one.get("/sign/" + rec.Token)
	for fid, v := range map[int64]string{sig: "Víctima", text: "ok"} {
		if status, body := one.json(base+"/fields", map[string]any{"fieldId": fid, "value": v}); status != http.StatusOK {
			t.Fatalf("field: %d %s", status, body)
		}
	}
	if status, body := one.json(base+"/auth/password", map[string]any{"password": password}); status != http.StatusOK {
		t.Fatalf("password: %d %s", status, body)
	}
	// Another browser signed in to the same account, which proved nothing itself.
	two := newAccountBrowser(t, a)
	two.signIn(victim, password)
	two.get("/sign/" + rec.Token)
	if status, body := two.json(base+"/complete", map[string]any{}); status == http.StatusOK {
		t.Fatalf("another browser completed with the first browser's password proof: %s", body)
	}
	// The proving browser signs in to another account: the proof no longer counts.
	one.signIn(other, password)
	if status, body := one.json(base+"/complete", map[string]any{}); status == http.StatusOK {
		t.Fatalf("completed signed in to another account: %s", body)
	}
	// Back to the victim's account: the proof was forgotten, a password must be typed again.
	one.signIn(victim, password)
	if status, body := one.json(base+"/complete", map[string]any{}); status == http.StatusOK {
		t.Fatalf("completed with a proof given before signing in to another account: %s", body)
	}
	// A wrong password in the other account's name proves nothing.
	if status, body := one.json(base+"/auth/password", map[string]any{"password": "not the password at all"}); status != http.StatusUnauthorized {
		t.Fatalf("wrong password: %d %s", status, body)
	}
	if status, body := one.json(base+"/auth/password", map[string]any{"password": password}); status != http.StatusOK {
		t.Fatalf("password: %d %s", status, body)
	}
	// Signing out between the proof and the completion takes the proof away.
	if status, _, _ := one.form("/account/signout", url.Values{}); status != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", status)
	}
	if status, body := one.json(base+"/complete", map[string]any{}); status == http.StatusOK {
		t.Fatalf("completed after signing out: %s", body)
	}
	one.signIn(victim, password)
	if status, body := one.json(base+"/auth/password", map[string]any{"password": password}); status != http.StatusOK {
		t.Fatalf("password: %d %s", status, body)
	}
	if status, body := one.json(base+"/complete", map[string]any{}); status != http.StatusOK {
		t.Fatalf("complete: %d %s", status, body)
	}
	proofs := a.completedProofs(owner, id)
	if len(proofs) != 2 {
		t.Fatalf("proofs %v, want ACCOUNT and PASSWORD", proofs)
	}
	for _, p := range proofs {
		p := p.(map[string]any)
		if !strings.EqualFold(fmt.Sprint(p["accountEmail"]), victim) {
			t.Errorf("proof %v does not name %s", p, victim)
		}
	}
}

func sha256Of(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// TestNoTrapSentThroughUseOrRecipientChanges: on a server that takes no passkeys, a recipient
// whose only action method is PASSKEY (no signer could ever complete) is refused by distribute,
// by /envelope/use with distributeDocument, and as a change to a sent envelope's recipient.
func TestNoTrapSentThroughUseOrRecipientChanges(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	a.server.ceremony.Accounts.WebAuthn = nil // SOBRE_PUBLIC_URL on an IP address: no passkeys
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	rec := map[string]any{"email": "trap@sobre.test", "name": "Trampa", "role": "SIGNER", "actionAuth": []string{"PASSKEY"},
		"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5}}}

	status, created := a.createRaw(owner, map[string]any{"title": "Doc", "type": "DOCUMENT", "recipients": []any{rec}},
		map[string][]byte{"a.pdf": minimalPDF("trap doc")})
	if status != http.StatusOK {
		t.Fatalf("create: %d %v", status, created)
	}
	status, body := a.do("POST", "/api/v2/envelope/distribute", owner, fmt.Sprintf(`{"envelopeId":%q}`, created["id"]))
	if status == http.StatusOK {
		t.Fatalf("distribute took a recipient who can never complete: %v", body)
	}

	status, tpl := a.createRaw(owner, map[string]any{"title": "Plantilla", "type": "TEMPLATE", "recipients": []any{rec}},
		map[string][]byte{"a.pdf": minimalPDF("trap template")})
	if status != http.StatusOK {
		t.Fatalf("create template: %d %v", status, tpl)
	}
	status, used := a.multipart("/api/v2/envelope/use", owner, map[string]any{"envelopeId": tpl["id"], "distributeDocument": true}, nil)
	if status == http.StatusOK {
		t.Errorf("/envelope/use sent a recipient whose only method, PASSKEY, this server cannot take (distribute refuses it: %v): %v", body["code"], used)
	}

	// A sent envelope: the recipient's action auth raised to PASSKEY alone.
	id, pending, _, _ := a.accountEnvelope(owner, "trap2@sobre.test", "SIGNER", nil, nil)
	status, body = a.do("POST", "/api/v2/envelope/recipient/update-many", owner,
		fmt.Sprintf(`{"envelopeId":%q,"data":[{"id":%d,"actionAuth":["PASSKEY"]}]}`, id, pending.ID))
	if status == http.StatusOK {
		t.Errorf("a sent envelope's recipient was given PASSKEY alone, which this server cannot take: %v", body)
	}
}

// TestEvidenceNamesOnlyTheRecipientsAccount: a recipient who may prove PASSWORD or CLAVE_UNICA
// completes with Clave Única in a browser signed in to someone else's account. The completion
// rests on Clave Única alone, and DOCUMENT_RECIPIENT_COMPLETED lists no proof naming the other
// account, whose address is not the recipient's.
func TestEvidenceNamesOnlyTheRecipientsAccount(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	ctx := context.Background()
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	victim := fmt.Sprintf("cu-%d@sobre.test", time.Now().UnixNano())
	other := fmt.Sprintf("someone-else-%d@sobre.test", time.Now().UnixNano())
	const password = "someone else's passphrase"
	a.signerAccount(other, password)
	id, rec, sig, text := a.accountEnvelope(owner, victim, "SIGNER", nil, []string{"PASSWORD", "CLAVE_UNICA"})

	b := newAccountBrowser(t, a)
	b.signIn(other, password)
	if status, _, body := b.get("/sign/" + rec.Token); status != http.StatusOK {
		t.Fatalf("signing page: %d\n%s", status, body)
	}
	for fid, v := range map[int64]string{sig: "Víctima", text: "ok"} {
		if status, body := b.json("/api/v2/signing/"+rec.Token+"/fields", map[string]any{"fieldId": fid, "value": v}); status != http.StatusOK {
			t.Fatalf("field: %d %s", status, body)
		}
	}
	// The Clave Única callback, as the provider would answer it for this browser's session.
	var session persistence.Ceremony
	for _, ck := range b.c.Jar.Cookies(mustURL(t, a.srv.URL+"/")) {
		if strings.HasPrefix(ck.Name, "sobre_ceremony_") {
			var err error
			if session, err = a.store.CeremonyByHash(ctx, sha256Of(ck.Value)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := a.store.RecordClaveUnica(ctx, session, "11111111-1", "Víctima Verdadera", envelope.RecipientActor(rec, "203.0.113.9", "test")); err != nil {
		t.Fatal(err)
	}
	if status, body := b.json("/api/v2/signing/"+rec.Token+"/complete", map[string]any{}); status != http.StatusOK {
		t.Fatalf("complete: %d %s", status, body)
	}
	for _, p := range a.completedProofs(owner, id) {
		if p := p.(map[string]any); p["method"] == "ACCOUNT" && p["accountEmail"] == other {
			t.Errorf("the evidence lists an ACCOUNT proof by %s, who is not the recipient %s and on whom the completion did not rest: %v",
				other, victim, a.completedProofs(owner, id))
		}
	}
}
