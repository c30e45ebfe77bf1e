package api

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// TestLookalikeAccountSignsForNoOne: the holder of the mailbox "ſam-…@domain" (U+017F, LATIN
// SMALL LETTER LONG S), a distinct address with an account of its own, opens the signing link
// of recipient "sam-…@domain" (ACCOUNT access, PASSWORD action) and cannot complete: addresses
// are compared folding ASCII case only (envelope.SameEmail), as the store keeps them apart.
func TestLookalikeAccountSignsForNoOne(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	n := time.Now().UnixNano()
	recipient := fmt.Sprintf("sam-%d@sobre.test", n)
	lookalike := fmt.Sprintf("\u017fam-%d@sobre.test", n)
	const password = "the look-alike's passphrase"
	a.signerAccount(lookalike, password)
	id, rec, sig, text := a.accountEnvelope(owner, recipient, "SIGNER", []string{"ACCOUNT"}, []string{"PASSWORD"})

	b := newAccountBrowser(t, a)
	b.signIn(lookalike, password)
	status, _, _ := b.get("/sign/" + rec.Token)
	if status != http.StatusOK {
		return // ACCOUNT access refused the look-alike: sound
	}
	base := "/api/v2/signing/" + rec.Token
	for fid, v := range map[int64]string{sig: "Sam", text: "ok"} {
		if status, body := b.json(base+"/fields", map[string]any{"fieldId": fid, "value": v}); status != http.StatusOK {
			t.Fatalf("field: %d %s", status, body)
		}
	}
	if status, body := b.json(base+"/auth/password", map[string]any{"password": password}); status != http.StatusOK {
		t.Fatalf("the look-alike's password proof refused (sound up to here): %d %s", status, body)
	}
	if status, _ := b.json(base+"/complete", map[string]any{}); status == http.StatusOK {
		t.Fatalf("the account of %q completed for recipient %q; evidence %v", lookalike, recipient, a.completedProofs(owner, id))
	}
}
