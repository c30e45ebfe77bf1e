package faulttest

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/auth/claveunicadev"
)

// (g) Clave Única (the local provider, `sobre claveunica-dev`, a process of its own) is killed
// with SIGKILL for faultOutage while the batch's signers, each required to log in with it
// (actionAuth CLAVE_UNICA), log in and sign; then it is started again on the same port (with
// fresh keys, as a provider that rotated them). Signers caught by the outage see a clear error
// page (never a 500) and log in again once it is back; the batch ends as every fault test's does.
func TestClaveUnicaDownDuringLogins(t *testing.T) {
	faultTest(t)
	provider := freeAddr(t)
	s := newSystemAt(t, ownMail(t, services{}), "SOBRE_CLAVEUNICA_DEV_ADDR="+provider, "CLAVEUNICA_ISSUER_URL=http://"+provider+"/openid")
	s.start("claveunica")
	s.waitProvider(provider)
	s.start("api")
	s.start("worker")
	s.key = s.adminKey()
	b := newBatch(s, faultBatch(t), s.twoClaveUnicaSigners)
	b.login = b.claveUnicaLogin
	outage := faultOutage(t)
	b.run(func() {
		s.kill("claveunica")
		time.Sleep(outage)
		s.start("claveunica")
		s.waitProvider(provider)
	})
	b.check(3 * time.Minute)
	for _, id := range b.ids {
		for _, e := range s.auditEntries(id, "DOCUMENT_RECIPIENT_COMPLETED") {
			identity, _ := e["data"].(map[string]any)["identity"].(map[string]any)
			if cu, _ := identity["claveUnica"].(map[string]any); cu["run"] == nil {
				t.Errorf("%s: a completion without its Clave Única identity: %v", id, e["data"])
			}
		}
	}
}

// twoClaveUnicaSigners is twoSigners with each signer required to log in with Clave Única.
func (s *system) twoClaveUnicaSigners(i int) map[string]any {
	p := s.twoSigners(i)
	for _, r := range p["recipients"].([]any) {
		r.(map[string]any)["actionAuth"] = []string{"CLAVE_UNICA"}
	}
	return p
}

// waitProvider waits until the local Clave Única at addr serves its discovery document.
func (s *system) waitProvider(addr string) {
	s.t.Helper()
	waitFor(s.t, "the local Clave Única", 30*time.Second, func() bool {
		res, err := http.Get("http://" + addr + "/openid/.well-known/openid-configuration")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})
}

// claveUnicaLogin logs the signer of token in as a test person of the local Clave Única (the
// nth, so that an envelope's two signers are two people), as a browser would: the signing page
// opened, Sobre's redirect to the provider, the provider's form posted, the callback on Sobre.
// It reports whether the login went through.
func (b *batch) claveUnicaLogin(c *signerClient, token string, nth int) bool {
	if status, _, _ := b.exchange(c, "GET", "/sign/"+token, nil); status != http.StatusOK {
		return false
	}
	status, header, _ := b.exchange(c, "GET", "/sign/"+token+"/claveunica", nil)
	if status != http.StatusFound {
		return false
	}
	authorize, err := url.Parse(header.Get("Location"))
	if err != nil {
		return false
	}
	form := authorize.Query()
	form.Set("run", claveunicadev.SandboxPeople[nth%len(claveunicadev.SandboxPeople)].RUN())
	res, err := c.http.PostForm(authorize.Scheme+"://"+authorize.Host+authorize.Path, form)
	if err != nil {
		return false // the provider cannot be reached: the browser shows its own error
	}
	res.Body.Close()
	callback, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || err != nil {
		return false
	}
	status, _, _ = b.exchange(c, "GET", callback.RequestURI(), nil)
	return status == http.StatusFound || status == http.StatusSeeOther
}

// auditEntries lists an envelope's audit entries of type typ.
func (s *system) auditEntries(id, typ string) []map[string]any {
	_, page := s.call("GET", fmt.Sprintf("/api/v2/envelope/%s/audit-log?perPage=100", id), nil, true)
	var out []map[string]any
	data, _ := page["data"].([]any)
	for _, e := range data {
		if em, _ := e.(map[string]any); em["type"] == typ {
			out = append(out, em)
		}
	}
	return out
}
