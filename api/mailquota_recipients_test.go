package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
)

// A change of a PENDING envelope's recipients that its workflow answers with mail (a recipient
// added, an address changed, a recipient removed) counts against the team's mail quota like a
// distribute: past it the change is refused with a 429 and nothing is written or mailed, so a
// loop of adds and removals cannot mail addresses without limit. A draft's recipients change
// freely: nothing is mailed.
func TestMailQuotaRecipientChanges(t *testing.T) {
	a := newTestAPIWithWorkflowsConfig(t, func(c *config.Config) {
		*c = unlimited(*c)
		c.MailQuota = 2
	})
	ctx := context.Background()
	key := a.key("Cuota", "ana@cuota-rec.cl", envelope.TeamRoleAdmin)
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	post := func(path string, body any) (int, map[string]any) {
		t.Helper()
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, a.srv.URL+path, strings.NewReader(string(raw)))
		req.Header.Set("Authorization", key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	mails := func() int {
		t.Helper()
		n, err := a.store.CountRows(ctx, "mail_log")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitMails := func(want int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for mails() < want && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if got := mails(); got != want {
			t.Fatalf("%d mails in the log, want %d", got, want)
		}
	}
	refused := func(what string, status int, body map[string]any) {
		t.Helper()
		msg, _ := body["message"].(string)
		if status != http.StatusTooManyRequests || body["code"] != string(envelope.CodeTooManyRequests) || !strings.Contains(msg, "quota") {
			t.Fatalf("%s: %d %v; want a 429 naming the quota", what, status, body)
		}
	}
	recipients := func(id string) []envelope.Recipient {
		t.Helper()
		e, err := a.store.EnvelopeForRecipient(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return e.Recipients
	}
	signer := map[string]any{"email": "s1-" + stamp + "@sobre.test", "name": "S1", "role": "SIGNER",
		"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 10, "height": 5}}}
	status, body := a.createRaw(key, map[string]any{"title": "Cuota", "type": "DOCUMENT", "recipients": []any{signer},
		"meta": map[string]any{"signingOrder": "PARALLEL"}}, map[string][]byte{"a.pdf": minimalPDF("quota rec " + stamp)})
	if status != http.StatusOK {
		t.Fatalf("create: %d %v", status, body)
	}
	id := body["id"].(string)

	// A draft: adding recipients mails nobody, whatever the quota.
	if status, body := post("/api/v2/envelope/recipient/create-many", map[string]any{"envelopeId": id,
		"data": []any{map[string]any{"email": "cc-" + stamp + "@sobre.test", "name": "CC", "role": "CC"}}}); status != http.StatusOK {
		t.Fatalf("add to the draft: %d %v", status, body)
	}
	if status, body := post("/api/v2/envelope/distribute", map[string]any{"envelopeId": id}); status != http.StatusOK {
		t.Fatalf("distribute: %d %v", status, body)
	}
	waitMails(1)

	// Adding a viewer mails them: 2 of 2 fits.
	if status, body := post("/api/v2/envelope/recipient/create-many", map[string]any{"envelopeId": id,
		"data": []any{map[string]any{"email": "s2-" + stamp + "@sobre.test", "name": "S2", "role": "VIEWER"}}}); status != http.StatusOK {
		t.Fatalf("add a viewer: %d %v", status, body)
	}
	waitMails(2)
	before := recipients(id)

	// Past the quota: another recipient, a changed address, a removal are all refused.
	status, body = post("/api/v2/envelope/recipient/create-many", map[string]any{"envelopeId": id,
		"data": []any{map[string]any{"email": "s3-" + stamp + "@sobre.test", "name": "S3", "role": "VIEWER"}}})
	refused("add past the quota", status, body)
	var first envelope.Recipient
	for _, r := range before {
		if r.Role == envelope.RoleSigner {
			first = r
		}
	}
	if first.SendStatus != envelope.SendStatusSent {
		t.Fatalf("the signer was not sent the envelope: %+v", first)
	}
	status, body = post("/api/v2/envelope/recipient/update-many", map[string]any{"envelopeId": id,
		"data": []any{map[string]any{"id": first.ID, "email": "other-" + stamp + "@sobre.test"}}})
	refused("change an address past the quota", status, body)
	status, body = post("/api/v2/envelope/recipient/delete", map[string]any{"recipientId": first.ID})
	refused("remove past the quota", status, body)

	after := recipients(id)
	if len(after) != len(before) {
		t.Fatalf("%d recipients after the refusals, want %d", len(after), len(before))
	}
	for i := range after {
		if after[i].ID != before[i].ID || after[i].Email != before[i].Email || after[i].Token != before[i].Token {
			t.Errorf("recipient %d changed: %+v, was %+v", after[i].ID, after[i], before[i])
		}
	}
	// A change that mails nobody still goes: a name.
	if status, body := post("/api/v2/envelope/recipient/update-many", map[string]any{"envelopeId": id,
		"data": []any{map[string]any{"id": first.ID, "name": "Renamed"}}}); status != http.StatusOK {
		t.Fatalf("rename: %d %v", status, body)
	}
	time.Sleep(300 * time.Millisecond)
	waitMails(2)
}
