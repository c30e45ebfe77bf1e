package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// TestDirectSubmitRecordsWhatWasShownAndWho: the visitor's DOCUMENT_RECIPIENT_COMPLETED names
// the digest of the document stored for the new envelope, which is the template's document the
// page showed; the visitor's entries carry the visitor's user agent and address (X-Forwarded-For
// is not trusted without SOBRE_TRUSTED_PROXIES); and the owner's audit log of the document holds
// neither the link's token nor another recipient's.
func TestDirectSubmitRecordsWhatWasShownAndWho(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	ctx := context.Background()
	key := a.key("Acme", "owner@acme.test", envelope.TeamRoleMember)
	tpl, token := a.directLinkOf(key)
	body := fmt.Sprintf(`{"name":"Vera","email":"vera@visita.test","templateUpdatedAt":%q,"fields":[%s]}`,
		tpl.UpdatedAt.Format(time.RFC3339Nano), directOwnValues(tpl))
	req, _ := http.NewRequest("POST", a.srv.URL+"/api/v2/direct/"+token, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "visitor-agent/1.0")
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var answer map[string]any
	if res.StatusCode != http.StatusOK || json.Unmarshal(raw, &answer) != nil {
		t.Fatalf("submit: %d %s", res.StatusCode, raw)
	}
	id := answer["envelopeId"].(string)
	e, err := a.store.EnvelopeForRecipient(ctx, id)
	if err != nil {
		t.Fatal(err)
	}

	completed := a.auditEntry(key, id, "DOCUMENT_RECIPIENT_COMPLETED")
	docs, _ := completed["data"].(map[string]any)["documents"].([]any)
	if len(docs) != len(e.Items) || len(docs) != len(tpl.Items) {
		t.Fatalf("documents shown: %v, items %d", completed["data"], len(e.Items))
	}
	for i, d := range docs {
		var stored, shown []byte
		if err := a.store.InTx(ctx, func(tx *persistence.Tx) (err error) {
			if stored, err = tx.ItemData(ctx, e.Items[i].ID); err != nil {
				return err
			}
			shown, err = tx.ItemData(ctx, tpl.Items[i].ID)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(stored)
		if got := d.(map[string]any)["sha256"]; got != hex.EncodeToString(sum[:]) || string(stored) != string(shown) {
			t.Errorf("item %d: completion names %v, the stored document is %x, same as the template's: %v", i, got, sum, string(stored) == string(shown))
		}
	}
	if completed["userAgent"] != "visitor-agent/1.0" || completed["ipAddress"] != "127.0.0.1" || completed["email"] != "vera@visita.test" {
		t.Errorf("completion by %v %v %v", completed["email"], completed["ipAddress"], completed["userAgent"])
	}

	status, log := a.do("GET", "/api/v2/envelope/"+id+"/audit-log?perPage=100", key, "")
	all, _ := json.Marshal(log)
	secrets := []string{token}
	for _, r := range e.Recipients {
		secrets = append(secrets, r.Token)
	}
	for _, s := range secrets {
		if status != http.StatusOK || strings.Contains(string(all), s) {
			t.Errorf("audit log (%d) holds a token", status)
		}
	}
	status, read := a.do("GET", "/api/v2/envelope/"+id, key, "")
	if got, _ := json.Marshal(read); status != http.StatusOK || strings.Contains(string(got), token) || read["directLink"] != nil {
		t.Errorf("document read (%d) shows the template's link: %v", status, read["directLink"])
	}
}
