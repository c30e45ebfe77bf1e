package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// newestVerifyLink waits for a mail to address whose verification link is not one of seen, and
// returns its path on Sobre.
func newestVerifyLink(t *testing.T, publicURL, address string, seen ...string) string {
	t.Helper()
	sink := os.Getenv("SOBRE_TEST_MAILPIT_URL")
	if sink == "" {
		t.Skip("SOBRE_TEST_MAILPIT_URL not set")
	}
	link := regexp.MustCompile(regexp.QuoteMeta(publicURL+"/account/verify/") + `[A-Za-z0-9_\-]+`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := http.Get(sink + "/api/v1/search?query=" + url.QueryEscape("to:"+address))
		if err != nil {
			t.Fatal(err)
		}
		var found struct{ Messages []struct{ ID string } }
		_ = json.NewDecoder(res.Body).Decode(&found)
		res.Body.Close()
		for _, m := range found.Messages {
			msg, err := http.Get(sink + "/api/v1/message/" + m.ID)
			if err != nil {
				t.Fatal(err)
			}
			var body struct{ Text string }
			_ = json.NewDecoder(msg.Body).Decode(&body)
			msg.Body.Close()
			if l := link.FindString(body.Text); l != "" && !contains(seen, strings.TrimPrefix(l, publicURL)) {
				return strings.TrimPrefix(l, publicURL)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new verification mail to %s", address)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Someone who knows a signer's address signs up for it first, with a password of their own. The
// verification link goes to the signer's mailbox, where a mail scanner opens it (a GET, no
// cookie, no password): nothing is verified, so the one who signed up can neither sign in nor
// open, nor prove PASSWORD for, an envelope sent to that address with ACCOUNT access. The signer,
// whose own password does not fit the link, signs up again and takes the address.
func TestSignUpFirstForAnotherAddressGainsNothing(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	victim := fmt.Sprintf("victima-%d@sobre.test", time.Now().UnixNano())
	rec := map[string]any{"email": victim, "name": "Víctima", "role": "SIGNER", "accessAuth": []string{"ACCOUNT"}, "actionAuth": []string{"PASSWORD"},
		"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5}}}
	status, created := a.createRaw(owner, map[string]any{"title": "Préstamo", "type": "DOCUMENT", "recipients": []any{rec}},
		map[string][]byte{"a.pdf": minimalPDF("takeover " + victim)})
	if status != http.StatusOK {
		t.Fatalf("create: %d %v", status, created)
	}
	id := created["id"].(string)
	if status, body := a.do("POST", "/api/v2/envelope/distribute", owner, fmt.Sprintf(`{"envelopeId":%q}`, id)); status != http.StatusOK {
		t.Fatalf("distribute: %d %v", status, body)
	}
	e, err := a.store.EnvelopeForRecipient(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	token := e.Recipients[0].Token
	publicURL := a.server.cfg.PublicURL

	const attackers, owners = "the attacker's own passphrase", "the owner's own passphrase"
	attacker := newAccountBrowser(t, a)
	if status, _, _ := attacker.form("/account/signup", url.Values{"email": {victim}, "password": {attackers}, "password2": {attackers}}); status != http.StatusOK {
		t.Fatalf("sign-up: %d", status)
	}
	first := newestVerifyLink(t, publicURL, victim)
	scanner := newAccountBrowser(t, a)
	if status, _, body := scanner.get(first); status != http.StatusOK || !strings.Contains(body, `id="verify-password"`) {
		t.Fatalf("the link opened by a scanner: %d, want the page asking for the password", status)
	}
	if status, _, _ := attacker.form("/account/signin", url.Values{"email": {victim}, "password": {attackers}}); status != http.StatusUnauthorized {
		t.Fatalf("the attacker signs in after the link was opened: %d, want 401", status)
	}
	if status, _, _ := attacker.get("/sign/" + token); status != http.StatusUnauthorized {
		t.Fatalf("the attacker opens the envelope: %d, want 401", status)
	}
	if status, _ := attacker.json("/api/v2/signing/"+token+"/auth/password", map[string]any{"password": attackers}); status == http.StatusOK {
		t.Fatal("the attacker proved PASSWORD for the envelope")
	}

	// The owner: their password does not fit the attacker's link; signing up again does.
	victimB := newAccountBrowser(t, a)
	if status, _, _ := victimB.form(first, url.Values{"password": {owners}}); status != http.StatusUnauthorized {
		t.Fatalf("the link with the owner's password: %d, want 401", status)
	}
	if status, _, _ := victimB.form("/account/signup", url.Values{"email": {victim}, "password": {owners}, "password2": {owners}}); status != http.StatusOK {
		t.Fatalf("sign-up again: %d", status)
	}
	second := newestVerifyLink(t, publicURL, victim, first)
	if status, _, _ := attacker.get(first); status != http.StatusNotFound {
		t.Fatalf("the first link after the owner signed up again: %d, want 404", status)
	}
	if status, header, _ := victimB.form(second, url.Values{"password": {owners}}); status != http.StatusSeeOther || header.Get("Location") != "/account?done=verified" {
		t.Fatalf("the owner verifies: %d to %q", status, header.Get("Location"))
	}
	if status, _, _ := victimB.get("/sign/" + token); status != http.StatusOK {
		t.Fatalf("the owner opens the envelope: %d, want 200", status)
	}
	if status, _, _ := attacker.form("/account/signin", url.Values{"email": {victim}, "password": {attackers}}); status != http.StatusUnauthorized {
		t.Fatalf("the attacker's password after the owner verified: %d, want 401", status)
	}
}
