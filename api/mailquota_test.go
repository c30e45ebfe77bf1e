package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
)

// The team's mail quota, on the real workflow: a distribute or redistribute that would pass it
// is refused with a 429, Retry-After and nothing done (the draft stays a draft, nothing is
// mailed); what fits goes; and the mail a workflow sends on its own (the next signer's request)
// goes past the quota, so the envelope sent earlier still completes.
func TestMailQuota(t *testing.T) {
	a := newTestAPIWithWorkflowsConfig(t, func(c *config.Config) {
		*c = unlimited(*c)
		c.MailQuota = 2
	})
	ctx := context.Background()
	key := a.key("Cuota", "ana@cuota.cl", envelope.TeamRoleAdmin)
	other := a.key("Otro", "bo@otro.cl", envelope.TeamRoleAdmin)
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	create := func(key, order string, signers ...string) string {
		t.Helper()
		var recipients []any
		for i, email := range signers {
			recipients = append(recipients, map[string]any{"email": email, "name": "S" + strconv.Itoa(i), "role": "SIGNER", "signingOrder": i + 1,
				"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10 + 10*i, "width": 10, "height": 5}}})
		}
		status, body := a.createRaw(key, map[string]any{"title": "Cuota", "type": "DOCUMENT", "recipients": recipients,
			"meta": map[string]any{"signingOrder": order}}, map[string][]byte{"a.pdf": minimalPDF("quota " + stamp + order + signers[0])})
		if status != http.StatusOK {
			t.Fatalf("create: %d %v", status, body)
		}
		return body["id"].(string)
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
	post := func(key, path string, body any) (int, map[string]any, http.Header) {
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
		return res.StatusCode, out, res.Header
	}
	refused := func(what string, status int, body map[string]any, h http.Header) {
		t.Helper()
		retry, err := strconv.Atoi(h.Get("Retry-After"))
		msg, _ := body["message"].(string)
		if status != http.StatusTooManyRequests || body["code"] != string(envelope.CodeTooManyRequests) || err != nil || retry < 1 || retry > 24*3600 ||
			!strings.Contains(msg, "quota") {
			t.Fatalf("%s: %d %v, Retry-After %q; want a 429 naming the quota", what, status, body, h.Get("Retry-After"))
		}
	}

	// A: two signers in turn; distributing mails the first only (1 of 2).
	envA := create(key, "SEQUENTIAL", "s1-"+stamp+"@sobre.test", "s2-"+stamp+"@sobre.test")
	if status, body, _ := post(key, "/api/v2/envelope/distribute", map[string]any{"envelopeId": envA}); status != http.StatusOK {
		t.Fatalf("distribute A: %d %v", status, body)
	}
	waitMails(1)

	// B: two signers at once would make 3 of 2: refused, B stays a draft, nothing mailed.
	envB := create(key, "PARALLEL", "p1-"+stamp+"@sobre.test", "p2-"+stamp+"@sobre.test")
	status, body, h := post(key, "/api/v2/envelope/distribute", map[string]any{"envelopeId": envB})
	refused("distribute B", status, body, h)
	if e, err := a.store.EnvelopeForRecipient(ctx, envB); err != nil || e.Status != envelope.StatusDraft {
		t.Fatalf("B after the refusal: %v, %v", e.Status, err)
	}
	// Another team has its own quota.
	envC := create(other, "PARALLEL", "c1-"+stamp+"@sobre.test", "c2-"+stamp+"@sobre.test")
	if status, body, _ := post(other, "/api/v2/envelope/distribute", map[string]any{"envelopeId": envC}); status != http.StatusOK {
		t.Fatalf("distribute C, another team: %d %v", status, body)
	}
	waitMails(3)

	e, err := a.store.EnvelopeForRecipient(ctx, envA)
	if err != nil {
		t.Fatal(err)
	}
	first, second := e.Recipients[0], e.Recipients[1]
	if first.SigningOrder == nil || *first.SigningOrder != 1 {
		first, second = second, first
	}
	// Sending A again to its first signer fits (2 of 2); once more does not.
	if status, body, _ := post(key, "/api/v2/envelope/redistribute", map[string]any{"envelopeId": envA, "recipients": []int64{first.ID}}); status != http.StatusOK {
		t.Fatalf("redistribute A: %d %v", status, body)
	}
	waitMails(4)
	status, body, h = post(key, "/api/v2/envelope/redistribute", map[string]any{"envelopeId": envA, "recipients": []int64{first.ID, first.ID}})
	refused("redistribute A again", status, body, h)
	time.Sleep(300 * time.Millisecond)
	waitMails(4)

	// The first signer signs: the workflow mails the second past the quota, and A goes on.
	jar, _ := cookiejar.New(nil)
	sg := &signer{t: t, a: a, client: &http.Client{Jar: jar}, token: first.Token}
	for _, f := range e.Fields {
		if f.RecipientID == first.ID {
			if status, raw := sg.call(http.MethodPost, "/api/v2/signing/"+first.Token+"/fields", map[string]any{"fieldId": f.ID, "value": "S0"}); status != http.StatusOK {
				t.Fatalf("sign: %d %s", status, raw)
			}
		}
	}
	if status, raw := sg.call(http.MethodPost, "/api/v2/signing/"+first.Token+"/complete", map[string]any{}); status != http.StatusOK {
		t.Fatalf("complete: %d %s", status, raw)
	}
	conn, err := pgx.Connect(ctx, a.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var toSecond int
	for deadline := time.Now().Add(20 * time.Second); toSecond == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM mail_log WHERE recipient = $1`, second.Email).Scan(&toSecond); err != nil {
			t.Fatal(err)
		}
	}
	if n := mails(); toSecond != 1 || n <= 4 {
		t.Errorf("after the first signer signed: %d mails to the second signer, %d in all; want 1, past the quota of 2", toSecond, n)
	}
}

// Distributes at once, more than the pool has connections, all finish: the quota is counted in
// each request's own transaction (a count on a second connection made each request hold one
// connection while waiting for another, and a handful of requests froze the whole API).
func TestMailQuotaUnderConcurrentDistributes(t *testing.T) {
	for _, err := range distributeAtOnce(t, 1000, 12) {
		if err != nil {
			t.Errorf("a distribute among 12 at once: %v", err)
		}
	}
}

// Distributes at once cannot pass the quota together: each holds the team's quota from its
// count to its commit, so the next one counts its requests.
func TestMailQuotaHoldsAgainstDistributesAtOnce(t *testing.T) {
	const quota, n = 5, 12
	var ok, refused int
	for _, err := range distributeAtOnce(t, quota, n) {
		switch {
		case err == nil:
			ok++
		case err.Error() == http.StatusText(http.StatusTooManyRequests):
			refused++
		default:
			t.Errorf("a distribute among %d at once: %v", n, err)
		}
	}
	if ok != quota || refused != n-quota {
		t.Errorf("%d distributes of one request each at once, quota %d: %d sent, %d refused; want %d and %d", n, quota, ok, refused, quota, n-quota)
	}
}

// distributeAtOnce creates n envelopes of one approver each in a team whose mail quota is quota,
// distributes them all at once and answers each distribute's error: nil for a 200, the status
// text otherwise.
func distributeAtOnce(t *testing.T, quota, n int) []error {
	a := newTestAPIWithWorkflowsConfig(t, func(c *config.Config) {
		*c = unlimited(*c)
		c.MailQuota = quota
	})
	key := a.key("Concurrente", "ana@concurrente.cl", envelope.TeamRoleAdmin)
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	ids := make([]string, n)
	for i := range ids {
		status, body := a.createRaw(key, map[string]any{"title": "Concurrente", "type": "DOCUMENT",
			"recipients": []any{map[string]any{"email": "apr" + strconv.Itoa(i) + "@concurrente.cl", "name": "A", "role": "APPROVER"}}},
			map[string][]byte{"a.pdf": minimalPDF("concurrent " + stamp + strconv.Itoa(i))})
		if status != http.StatusOK {
			t.Fatalf("create: %d %v", status, body)
		}
		ids[i] = body["id"].(string)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	start := make(chan struct{})
	errs := make(chan error, n)
	for _, id := range ids {
		go func() {
			<-start
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.srv.URL+"/api/v2/envelope/distribute",
				strings.NewReader(`{"envelopeId":"`+id+`"}`))
			req.Header.Set("Authorization", key)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err == nil {
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					err = errors.New(http.StatusText(res.StatusCode))
				}
			}
			errs <- err
		}()
	}
	close(start)
	out := make([]error, n)
	for i := range out {
		out[i] = <-errs
	}
	return out
}

// A change of a PENDING envelope's recipients counts the mails its workflow sends for it, once:
// not the requests its distribute reserved (due before the change, maybe still on their way),
// but the new link to a requested recipient whose address changed, sent or not yet.
func TestMailsOnRecipientChange(t *testing.T) {
	signer := func(id int64, sent envelope.SendStatus) envelope.Recipient {
		return envelope.Recipient{ID: id, Email: fmt.Sprintf("r%d@x.cl", id), Role: envelope.RoleSigner,
			SigningStatus: envelope.SigningStatusNotSigned, SendStatus: sent}
	}
	pending := func(rs ...envelope.Recipient) *envelope.Envelope {
		return &envelope.Envelope{Status: envelope.StatusPending, Meta: envelope.DefaultMeta(""), Recipients: rs}
	}
	before := pending(signer(1, envelope.SendStatusNotSent), signer(2, envelope.SendStatusSent))
	moved := signer(1, envelope.SendStatusNotSent)
	moved.Email = "nuevo@x.cl"
	cases := []struct {
		name     string
		after    *envelope.Envelope
		replaced []envelope.Recipient
		want     int
	}{
		{"a name changed, right after the distribute", pending(signer(1, envelope.SendStatusNotSent), signer(2, envelope.SendStatusSent)), nil, 0},
		{"a recipient added", pending(signer(1, envelope.SendStatusNotSent), signer(2, envelope.SendStatusSent), signer(3, envelope.SendStatusNotSent)), nil, 1},
		{"the address of one whose request is on its way changed", pending(moved, signer(2, envelope.SendStatusSent)), []envelope.Recipient{moved}, 1},
		{"the address of one sent the request changed", pending(signer(1, envelope.SendStatusNotSent), signer(2, envelope.SendStatusSent)),
			[]envelope.Recipient{signer(2, envelope.SendStatusSent)}, 1},
	}
	for _, c := range cases {
		if got := mailsOnRecipientChange(before, c.after, c.replaced, nil); got != c.want {
			t.Errorf("%s: %d mails, want %d", c.name, got, c.want)
		}
	}
}

// A direct-link submission is counted on what its document's workflow mails: not the visitor,
// who signed on the page, but the recipients due after them (here the second signer), so it
// passes a quota of one mail, and fills it.
func TestMailQuotaCountsWhatADirectLinkSubmissionMails(t *testing.T) {
	a := newTestAPIWithWorkflowsConfig(t, func(c *config.Config) {
		*c = unlimited(*c)
		c.MailQuota = 1
	})
	key := a.key("Directa", "owner@directa.test", envelope.TeamRoleMember)
	tpl := a.directTemplate(key)
	direct := tpl.Recipients[0]
	status, link := a.do("POST", "/api/v2/template/direct/create", key, fmt.Sprintf(`{"templateId":%d,"directRecipientId":%d}`, tpl.LegacyID, direct.ID))
	if status != http.StatusOK {
		t.Fatalf("link: %d %v", status, link)
	}
	var values []string
	for _, f := range tpl.Fields {
		if f.RecipientID == direct.ID {
			values = append(values, fmt.Sprintf(`{"fieldId":%d,"value":"Vera V."}`, f.ID))
		}
	}
	submit := func() (int, map[string]any) {
		return a.do("POST", "/api/v2/direct/"+link["token"].(string), "", fmt.Sprintf(`{"name":"Vera","email":"vera@visita.test",
			"templateUpdatedAt":%q,"fields":[%s]}`, tpl.UpdatedAt.Format(time.RFC3339Nano), strings.Join(values, ",")))
	}
	if status, body := submit(); status != http.StatusOK {
		t.Fatalf("a submission that mails one request, under a quota of one: %d %v", status, body)
	}
	status, body := submit()
	wantError(t, status, body, http.StatusTooManyRequests, envelope.CodeTooManyRequests)
}

// An envelope sent by link, then distributed again switched to email, mails its requests for the
// first time: they are counted against the quota then, as a draft's are.
func TestMailQuotaCountsALinkEnvelopeSwitchedToEmail(t *testing.T) {
	a := newTestAPIWithWorkflowsConfig(t, func(c *config.Config) {
		*c = unlimited(*c)
		c.MailQuota = 1
	})
	key := a.key("Enlace", "ana@enlace.cl", envelope.TeamRoleAdmin)
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	status, body := a.createRaw(key, map[string]any{"title": "Por enlace", "type": "DOCUMENT",
		"meta": map[string]any{"distributionMethod": "NONE"},
		"recipients": []any{
			map[string]any{"email": "a1@enlace.cl", "name": "A", "role": "APPROVER"},
			map[string]any{"email": "a2@enlace.cl", "name": "B", "role": "APPROVER"},
		}}, map[string][]byte{"a.pdf": minimalPDF("link then email " + stamp)})
	if status != http.StatusOK {
		t.Fatalf("create: %d %v", status, body)
	}
	id := body["id"].(string)
	if status, body := a.do("POST", "/api/v2/envelope/distribute", key, fmt.Sprintf(`{"envelopeId":%q}`, id)); status != http.StatusOK {
		t.Fatalf("distribute by link: %d %v", status, body)
	}
	status, body = a.do("POST", "/api/v2/envelope/distribute", key, fmt.Sprintf(`{"envelopeId":%q,"meta":{"distributionMethod":"EMAIL"}}`, id))
	wantError(t, status, body, http.StatusTooManyRequests, envelope.CodeTooManyRequests)
}
