package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/view"
	"github.com/sobre-sign/sobre/webhook"
)

// publicURL is a webhook URL the production policy takes without a lookup: an https IP literal
// of a public address (no test resolves a name).
const publicURL = "https://1.1.1.1/hook"

// createWebhook creates a webhook with key and body, wanting it made.
func (a *testAPI) createWebhook(key, body string) map[string]any {
	a.t.Helper()
	status, out := a.do("POST", "/api/v2/webhook/create", key, body)
	if status != http.StatusOK {
		a.t.Fatalf("create webhook %s: %d %v", body, status, out)
	}
	return out
}

// wantNoSecret fails when an answer other than create's and rotate-secret's shows a secret.
func wantNoSecret(t *testing.T, where string, v map[string]any) {
	t.Helper()
	if _, ok := v["secret"]; ok {
		t.Errorf("%s shows the secret: %v", where, v)
	}
}

func TestWebhookCreateShowsTheSecretOnce(t *testing.T) {
	a := newTestAPI(t)
	admin := a.key("Acme", "admin@acme.cl", envelope.TeamRoleAdmin)
	wh := a.createWebhook(admin, `{"webhookUrl":"`+publicURL+`","eventTriggers":["DOCUMENT_SIGNED","DOCUMENT_COMPLETED"]}`)
	secret, _ := wh["secret"].(string)
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if !strings.HasPrefix(secret, "whsec_") || err != nil || len(key) != 32 {
		t.Fatalf("secret %q is not whsec_ and the base64 of 32 bytes (%v)", secret, err)
	}
	if wh["enabled"] != true || wh["documensoCompatible"] != false || wh["webhookUrl"] != publicURL || wh["disabledReason"] != nil ||
		wh["secretRotatedAt"] != nil || fmt.Sprint(wh["eventTriggers"]) != "[DOCUMENT_SIGNED DOCUMENT_COMPLETED]" {
		t.Errorf("created webhook: %v", wh)
	}
	for _, k := range []string{"id", "teamId", "userId", "createdAt", "updatedAt"} {
		if wh[k] == nil {
			t.Errorf("created webhook lacks %s: %v", k, wh)
		}
	}
	id := wh["id"].(string)
	secrets, documenso, err := a.store.WebhookSecrets(context.Background(), id, time.Now())
	if err != nil || len(secrets) != 1 || secrets[0] != secret || documenso != "" {
		t.Errorf("stored secrets %v %q %v, want [%s]", secrets, documenso, err, secret)
	}

	_, got := a.do("GET", "/api/v2/webhook/"+id, admin, "")
	wantNoSecret(t, "get", got)
	if got["id"] != id || got["createdAt"] != wh["createdAt"] {
		t.Errorf("get: %v, want %v", got, wh)
	}
	_, list := a.do("GET", "/api/v2/webhook", admin, "")
	data, _ := list["data"].([]any)
	if len(data) != 1 {
		t.Fatalf("list: %v", list)
	}
	wantNoSecret(t, "list", data[0].(map[string]any))
	_, updated := a.do("POST", "/api/v2/webhook/update", admin, `{"id":"`+id+`","enabled":false}`)
	wantNoSecret(t, "update", updated)
}

func TestWebhookCreateWithASecret(t *testing.T) {
	a := newTestAPI(t)
	admin := a.key("Acme", "admin@acme.cl", envelope.TeamRoleAdmin)
	given := "whsec_" + base64.StdEncoding.EncodeToString([]byte("twenty-four bytes of key"))
	wh := a.createWebhook(admin, `{"webhookUrl":"`+publicURL+`","eventTriggers":["DOCUMENT_SENT"],"secret":"`+given+`","enabled":false}`)
	if wh["secret"] != given || wh["enabled"] != false {
		t.Errorf("created with a secret: %v", wh)
	}

	plain := "documenso-style-secret-text"
	wh = a.createWebhook(admin, `{"webhookUrl":"`+publicURL+`","eventTriggers":["DOCUMENT_SENT"],"secret":"`+plain+`","documensoCompatible":true}`)
	if wh["secret"] != plain || wh["documensoCompatible"] != true {
		t.Errorf("documensoCompatible with a plain secret: %v", wh)
	}
	secrets, documenso, err := a.store.WebhookSecrets(context.Background(), wh["id"].(string), time.Now())
	if err != nil || len(secrets) != 1 || secrets[0] != plain || documenso != plain {
		t.Errorf("stored secrets %v %q %v, want the plain secret, also for X-Documenso-Secret", secrets, documenso, err)
	}
	a.postRefusedAt(t, admin, "/webhook/create", `{"webhookUrl":"`+publicURL+`","eventTriggers":["DOCUMENT_SENT"],"secret":"`+plain+`"}`, "secret")

	// Turning documensoCompatible off would leave a secret only a compatible webhook may have.
	a.postRefusedAt(t, admin, "/webhook/update", `{"id":"`+wh["id"].(string)+`","documensoCompatible":false}`, "documensoCompatible")
}

func TestWebhookRefusalsNameTheirField(t *testing.T) {
	a := newTestAPI(t)
	admin := a.key("Acme", "admin@acme.cl", envelope.TeamRoleAdmin)
	body := func(url, triggers string) string {
		return `{"webhookUrl":` + url + `,"eventTriggers":` + triggers + `}`
	}
	tests := []struct {
		name, body, path string
	}{
		{"http", body(`"http://1.1.1.1/hook"`, `["DOCUMENT_SENT"]`), "webhookUrl"},
		{"loopback", body(`"https://127.0.0.1/hook"`, `["DOCUMENT_SENT"]`), "webhookUrl"},
		{"private", body(`"https://10.0.0.1/hook"`, `["DOCUMENT_SENT"]`), "webhookUrl"},
		{"cloud metadata", body(`"https://169.254.169.254/latest/meta-data"`, `["DOCUMENT_SENT"]`), "webhookUrl"},
		{"IPv6 loopback", body(`"https://[::1]/hook"`, `["DOCUMENT_SENT"]`), "webhookUrl"},
		{"a name of loopback", body(`"https://localhost/hook"`, `["DOCUMENT_SENT"]`), "webhookUrl"},
		{"too long", body(`"https://1.1.1.1/`+strings.Repeat("a", webhook.MaxURLLength)+`"`, `["DOCUMENT_SENT"]`), "webhookUrl"},
		{"no URL", `{"eventTriggers":["DOCUMENT_SENT"]}`, "webhookUrl"},
		{"no triggers", body(`"`+publicURL+`"`, `[]`), "eventTriggers"},
		{"triggers absent", `{"webhookUrl":"` + publicURL + `"}`, "eventTriggers"},
		{"unknown trigger", body(`"`+publicURL+`"`, `["DOCUMENT_SENT","DOCUMENT_EXPLODED"]`), "eventTriggers[1]"},
		{"trigger twice", body(`"`+publicURL+`"`, `["DOCUMENT_SENT","DOCUMENT_SENT"]`), "eventTriggers[1]"},
		{"short secret", `{"webhookUrl":"` + publicURL + `","eventTriggers":["DOCUMENT_SENT"],"secret":"whsec_c2hvcnQ="}`, "secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { a.postRefusedAt(t, admin, "/webhook/create", tt.body, tt.path) })
	}

	status, out := a.do("POST", "/api/v2/webhook/create", admin, `{"webhookUrl":"ftp://x","eventTriggers":["NOPE"],"secret":"x"}`)
	wantError(t, status, out, http.StatusBadRequest, envelope.CodeInvalidBody)
	if got := issuePaths(out); got != "webhookUrl eventTriggers[0] secret" {
		t.Errorf("one 400 for every bad field names %q", got)
	}
	wh := a.createWebhook(admin, body(`"`+publicURL+`"`, `["DOCUMENT_SENT"]`))
	id := wh["id"].(string)
	for name, tt := range map[string]struct{ path, body, want string }{
		"update without id":   {"/webhook/update", `{"enabled":true}`, "id"},
		"update to loopback":  {"/webhook/update", `{"id":"` + id + `","webhookUrl":"https://127.0.0.1/"}`, "webhookUrl"},
		"update no triggers":  {"/webhook/update", `{"id":"` + id + `","eventTriggers":[]}`, "eventTriggers"},
		"update a secret":     {"/webhook/update", `{"id":"` + id + `","secret":"whsec_x"}`, "secret"},
		"delete without id":   {"/webhook/delete", `{}`, "id"},
		"rotate without id":   {"/webhook/rotate-secret", `{"id":""}`, "id"},
		"test without event":  {"/webhook/test", `{"id":"` + id + `"}`, "event"},
		"test unknown event":  {"/webhook/test", `{"id":"` + id + `","event":"DOCUMENT_EXPLODED"}`, "event"},
		"test without id":     {"/webhook/test", `{"event":"DOCUMENT_SENT"}`, "id"},
		"resend without call": {"/webhook/call/resend", `{}`, "callId"},
	} {
		t.Run(name, func(t *testing.T) { a.postRefusedAt(t, admin, tt.path, tt.body, tt.want) })
	}
	status, out = a.do("GET", "/api/v2/webhook/"+id+"/calls?status=DELIVERED&perPage=0", admin, "")
	wantError(t, status, out, http.StatusBadRequest, envelope.CodeInvalidBody)
	if got := issuePaths(out); got != "perPage status" {
		t.Errorf("calls' query refusals name %q", got)
	}
}

// issuePaths are the paths of an error body's issues, separated by spaces.
func issuePaths(body map[string]any) string {
	var paths []string
	for _, i := range body["issues"].([]any) {
		paths = append(paths, i.(map[string]any)["path"].(string))
	}
	return strings.Join(paths, " ")
}

func TestWebhookListPages(t *testing.T) {
	a := newTestAPI(t)
	manager := a.key("Acme", "manager@acme.cl", envelope.TeamRoleManager)
	var ids []string
	for range 3 {
		ids = append(ids, a.createWebhook(manager, `{"webhookUrl":"`+publicURL+`","eventTriggers":["DOCUMENT_SENT"]}`)["id"].(string))
	}
	a.createWebhook(a.key("Other", "admin@other.cl", envelope.TeamRoleAdmin), `{"webhookUrl":"`+publicURL+`","eventTriggers":["DOCUMENT_SENT"]}`)

	_, first := a.do("GET", "/api/v2/webhook", manager, "")
	if first["count"] != float64(3) || first["perPage"] != float64(10) || first["currentPage"] != float64(1) || first["totalPages"] != float64(1) || len(first["data"].([]any)) != 3 {
		t.Errorf("default page: %v", first)
	}
	status, second := a.do("GET", "/api/v2/webhook?page=2&perPage=2", manager, "")
	data, _ := second["data"].([]any)
	if status != http.StatusOK || second["count"] != float64(3) || second["totalPages"] != float64(2) || len(data) != 1 || data[0].(map[string]any)["id"] != ids[2] {
		t.Errorf("second page of 2: %d %v", status, second)
	}
	status, out := a.do("GET", "/api/v2/webhook?page=0&perPage=101", manager, "")
	wantError(t, status, out, http.StatusBadRequest, envelope.CodeInvalidBody)
	if got := issuePaths(out); got != "page perPage" {
		t.Errorf("paging refusals name %q", got)
	}
}

func TestWebhookUpdateDeleteAndRotate(t *testing.T) {
	a := newTestAPI(t)
	admin := a.key("Acme", "admin@acme.cl", envelope.TeamRoleAdmin)
	wh := a.createWebhook(admin, `{"webhookUrl":"`+publicURL+`","eventTriggers":["DOCUMENT_SENT"]}`)
	id, old := wh["id"].(string), wh["secret"].(string)

	status, got := a.do("POST", "/api/v2/webhook/update", admin, `{"id":"`+id+`","enabled":false}`)
	if status != http.StatusOK || got["enabled"] != false || got["webhookUrl"] != publicURL || fmt.Sprint(got["eventTriggers"]) != "[DOCUMENT_SENT]" {
		t.Errorf("update of enabled only: %d %v", status, got)
	}
	status, got = a.do("POST", "/api/v2/webhook/update", admin,
		`{"id":"`+id+`","webhookUrl":"https://8.8.8.8/x","eventTriggers":["TEMPLATE_USED"]}`)
	if status != http.StatusOK || got["enabled"] != false || got["webhookUrl"] != "https://8.8.8.8/x" || fmt.Sprint(got["eventTriggers"]) != "[TEMPLATE_USED]" {
		t.Errorf("update of the rest: %d %v", status, got)
	}
	// A documensoCompatible webhook sends its secret in clear to its URL: the flag is set only
	// at creation, and such a webhook's URL never changes, so no one reads the secret by editing.
	status, got = a.do("POST", "/api/v2/webhook/update", admin, `{"id":"`+id+`","documensoCompatible":true}`)
	wantError(t, status, got, http.StatusBadRequest, envelope.CodeInvalidBody)
	compat := a.createWebhook(admin, `{"webhookUrl":"`+publicURL+`","eventTriggers":["DOCUMENT_SENT"],"documensoCompatible":true}`)
	status, got = a.do("POST", "/api/v2/webhook/update", admin, `{"id":"`+compat["id"].(string)+`","webhookUrl":"https://8.8.4.4/mine"}`)
	wantError(t, status, got, http.StatusBadRequest, envelope.CodeInvalidBody)
	if issues, _ := got["issues"].([]any); len(issues) != 1 || issues[0].(map[string]any)["path"] != "webhookUrl" {
		t.Errorf("a compatible webhook's URL changed: %v", got)
	}

	status, rotated := a.do("POST", "/api/v2/webhook/rotate-secret", admin, `{"id":"`+id+`"}`)
	fresh, _ := rotated["secret"].(string)
	if status != http.StatusOK || !strings.HasPrefix(fresh, "whsec_") || fresh == old || rotated["secretRotatedAt"] == nil {
		t.Fatalf("rotate: %d %v", status, rotated)
	}
	secrets, _, err := a.store.WebhookSecrets(context.Background(), id, time.Now())
	if err != nil || len(secrets) != 2 || secrets[0] != fresh || secrets[1] != old {
		t.Errorf("after a rotation the secrets are %v (%v), want the new then the old", secrets, err)
	}
	if secrets, _, _ := a.store.WebhookSecrets(context.Background(), id, time.Now().Add(secretOverlap+time.Minute)); len(secrets) != 1 {
		t.Errorf("past the overlap the secrets are %v, want the new one only", secrets)
	}

	status, got = a.do("POST", "/api/v2/webhook/delete", admin, `{"id":"`+id+`"}`)
	if status != http.StatusOK || got["success"] != true {
		t.Errorf("delete: %d %v", status, got)
	}
	status, got = a.do("GET", "/api/v2/webhook/"+id, admin, "")
	wantError(t, status, got, http.StatusNotFound, envelope.CodeNotFound)
	status, got = a.do("POST", "/api/v2/webhook/delete", admin, `{"id":"`+id+`"}`)
	wantError(t, status, got, http.StatusNotFound, envelope.CodeNotFound)
}

// receiver is a webhook endpoint that keeps what it receives and answers status.
type receiver struct {
	mu      sync.Mutex
	status  int
	headers []http.Header
	bodies  [][]byte
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.headers, rc.bodies = append(rc.headers, r.Header.Clone()), append(rc.bodies, body)
	w.WriteHeader(rc.status)
	fmt.Fprint(w, "received")
}

// newPrivateAPI is a test API whose webhooks may point at loopback, where httptest listens.
func newPrivateAPI(t *testing.T) *testAPI {
	return newTestAPIWith(t, func(d *Deps) { d.Webhooks.Policy = webhook.Policy{AllowPrivate: true} })
}

func TestWebhookTestSendsASignedSample(t *testing.T) {
	a := newPrivateAPI(t)
	admin := a.key("Acme", "admin@acme.cl", envelope.TeamRoleAdmin)
	rc := &receiver{status: http.StatusOK}
	endpoint := httptest.NewServer(rc)
	t.Cleanup(endpoint.Close)
	wh := a.createWebhook(admin, `{"webhookUrl":"`+endpoint.URL+`/hook","eventTriggers":["DOCUMENT_COMPLETED"],"enabled":false}`)
	id, secret := wh["id"].(string), wh["secret"].(string)

	status, call := a.do("POST", "/api/v2/webhook/test", admin, `{"id":"`+id+`","event":"DOCUMENT_COMPLETED"}`)
	if status != http.StatusOK || call["status"] != persistence.CallSuccess || call["attempts"] != float64(1) || call["responseCode"] != float64(200) ||
		call["webhookId"] != id || call["event"] != "DOCUMENT_COMPLETED" {
		t.Fatalf("test of a disabled webhook: %d %v", status, call)
	}
	history, _ := call["attemptHistory"].([]any)
	if len(history) != 1 || history[0].(map[string]any)["outcome"] != "success" || history[0].(map[string]any)["responseBody"] != "received" ||
		history[0].(map[string]any)["finishedAt"] == nil {
		t.Errorf("attempts of the test: %v", history)
	}
	if len(rc.bodies) != 1 {
		t.Fatalf("the receiver got %d requests, want 1", len(rc.bodies))
	}
	if err := webhook.Verify(secret, rc.headers[0], rc.bodies[0], time.Now()); err != nil {
		t.Errorf("the receiver cannot verify the test: %v", err)
	}
	if rc.headers[0].Get(webhook.HeaderID) != call["eventId"] || rc.headers[0].Get("X-Documenso-Secret") != "" {
		t.Errorf("headers %v, want webhook-id %v and no X-Documenso-Secret", rc.headers[0], call["eventId"])
	}
	var body struct {
		view.WebhookBody
		Payload view.Envelope `json:"payload"`
	}
	if err := json.Unmarshal(rc.bodies[0], &body); err != nil {
		t.Fatal(err)
	}
	p := body.Payload
	if body.Event != envelope.WebhookDocumentCompleted || body.WebhookEndpoint != endpoint.URL+"/hook" || body.CreatedAt == "" ||
		p.Title != "Sample document" || p.Status != envelope.StatusCompleted || len(p.Recipients) != 1 ||
		p.Recipients[0].Name != "Sample Signer" || p.Recipients[0].Email != "signer@example.com" || p.Recipients[0].Token != "" {
		t.Errorf("test body: %s", rc.bodies[0])
	}

	rc.status = http.StatusInternalServerError
	status, failed := a.do("POST", "/api/v2/webhook/test", admin, `{"id":"`+id+`","event":"DOCUMENT_SENT"}`)
	if status != http.StatusOK || failed["status"] != persistence.CallFailed || failed["responseCode"] != float64(500) ||
		failed["attemptHistory"].([]any)[0].(map[string]any)["outcome"] != "failed" {
		t.Errorf("a test the endpoint refuses: %d %v", status, failed)
	}

	status, resent := a.do("POST", "/api/v2/webhook/call/resend", admin, `{"callId":"`+call["id"].(string)+`"}`)
	if status != http.StatusOK || resent["status"] != persistence.CallPending || resent["eventId"] != call["eventId"] || resent["id"] == call["id"] ||
		resent["attempts"] != float64(0) || len(resent["attemptHistory"].([]any)) != 0 {
		t.Errorf("resend: %d %v", status, resent)
	}
	_, calls := a.do("GET", "/api/v2/webhook/"+id+"/calls", admin, "")
	if calls["count"] != float64(3) || calls["data"].([]any)[0].(map[string]any)["id"] != resent["id"] {
		t.Errorf("calls, newest first: %v", calls)
	}
	for status, want := range map[string]any{"PENDING": resent["id"], "SUCCESS": call["id"], "FAILED": failed["id"]} {
		_, page := a.do("GET", "/api/v2/webhook/"+id+"/calls?status="+status, admin, "")
		if data := page["data"].([]any); page["count"] != float64(1) || len(data) != 1 || data[0].(map[string]any)["id"] != want {
			t.Errorf("calls in %s: %v", status, page)
		}
	}
}

// Another team's webhooks and calls are not found, whatever the caller's role; a MEMBER may not
// manage its own team's; a MANAGER may.
func TestWebhookAccess(t *testing.T) {
	a := newPrivateAPI(t)
	admin := a.key("Acme", "admin@acme.cl", envelope.TeamRoleAdmin)
	endpoint := httptest.NewServer(&receiver{status: http.StatusOK})
	t.Cleanup(endpoint.Close)
	wh := a.createWebhook(admin, `{"webhookUrl":"`+endpoint.URL+`","eventTriggers":["DOCUMENT_SENT"]}`)
	id := wh["id"].(string)
	_, call := a.do("POST", "/api/v2/webhook/test", admin, `{"id":"`+id+`","event":"DOCUMENT_SENT"}`)
	callID, _ := call["id"].(string)
	if callID == "" {
		t.Fatalf("test: %v", call)
	}
	requests := []struct{ method, path, body string }{
		{"GET", "/webhook/" + id, ""},
		{"GET", "/webhook/" + id + "/calls", ""},
		{"POST", "/webhook/update", `{"id":"` + id + `","enabled":false}`},
		{"POST", "/webhook/rotate-secret", `{"id":"` + id + `"}`},
		{"POST", "/webhook/test", `{"id":"` + id + `","event":"DOCUMENT_SENT"}`},
		{"POST", "/webhook/call/resend", `{"callId":"` + callID + `"}`},
		{"POST", "/webhook/delete", `{"id":"` + id + `"}`},
	}
	stranger := a.key("Other", "admin@other.cl", envelope.TeamRoleAdmin)
	member := a.key("Acme", "member@acme.cl", envelope.TeamRoleMember)
	for _, rq := range requests {
		t.Run("other team "+rq.method+" "+rq.path, func(t *testing.T) {
			status, out := a.do(rq.method, "/api/v2"+rq.path, stranger, rq.body)
			wantError(t, status, out, http.StatusNotFound, envelope.CodeNotFound)
		})
	}
	for _, rq := range append(requests,
		struct{ method, path, body string }{"GET", "/webhook", ""},
		struct{ method, path, body string }{"POST", "/webhook/create", `{"webhookUrl":"` + endpoint.URL + `","eventTriggers":["DOCUMENT_SENT"]}`}) {
		t.Run("MEMBER "+rq.method+" "+rq.path, func(t *testing.T) {
			status, out := a.do(rq.method, "/api/v2"+rq.path, member, rq.body)
			wantError(t, status, out, http.StatusForbidden, envelope.CodeForbidden)
		})
	}
	if _, got := a.do("GET", "/api/v2/webhook/"+id, admin, ""); got["enabled"] != true {
		t.Errorf("refused requests changed the webhook: %v", got)
	}
	manager := a.key("Acme", "manager@acme.cl", envelope.TeamRoleManager)
	for _, rq := range requests {
		if status, out := a.do(rq.method, "/api/v2"+rq.path, manager, rq.body); status != http.StatusOK {
			t.Errorf("MANAGER %s %s: %d %v", rq.method, rq.path, status, out)
		}
	}
}

// A test's sample is the envelope as its event leaves one.
func TestSampleEnvelope(t *testing.T) {
	m := envelope.Member{TeamID: 7, UserID: 3, UserEmail: "ana@acme.cl", UserName: "Ana", TeamURL: "acme"}
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		event   envelope.WebhookEvent
		typ     envelope.Type
		status  envelope.Status
		signing envelope.SigningStatus
	}{
		{envelope.WebhookDocumentCreated, envelope.TypeDocument, envelope.StatusDraft, envelope.SigningStatusNotSigned},
		{envelope.WebhookDocumentSent, envelope.TypeDocument, envelope.StatusPending, envelope.SigningStatusNotSigned},
		{envelope.WebhookDocumentOpened, envelope.TypeDocument, envelope.StatusPending, envelope.SigningStatusNotSigned},
		{envelope.WebhookDocumentSigned, envelope.TypeDocument, envelope.StatusPending, envelope.SigningStatusSigned},
		{envelope.WebhookDocumentRecipientCompleted, envelope.TypeDocument, envelope.StatusPending, envelope.SigningStatusSigned},
		{envelope.WebhookDocumentCompleted, envelope.TypeDocument, envelope.StatusCompleted, envelope.SigningStatusSigned},
		{envelope.WebhookDocumentRejected, envelope.TypeDocument, envelope.StatusRejected, envelope.SigningStatusRejected},
		{envelope.WebhookDocumentCancelled, envelope.TypeDocument, envelope.StatusCancelled, envelope.SigningStatusNotSigned},
		{envelope.WebhookRecipientExpired, envelope.TypeDocument, envelope.StatusPending, envelope.SigningStatusNotSigned},
		{envelope.WebhookDocumentReminderSent, envelope.TypeDocument, envelope.StatusPending, envelope.SigningStatusNotSigned},
		{envelope.WebhookTemplateCreated, envelope.TypeTemplate, envelope.StatusDraft, envelope.SigningStatusNotSigned},
		{envelope.WebhookTemplateUpdated, envelope.TypeTemplate, envelope.StatusDraft, envelope.SigningStatusNotSigned},
		{envelope.WebhookTemplateDeleted, envelope.TypeTemplate, envelope.StatusDraft, envelope.SigningStatusNotSigned},
		{envelope.WebhookTemplateUsed, envelope.TypeDocument, envelope.StatusDraft, envelope.SigningStatusNotSigned},
	}
	if len(tests) != len(envelope.WebhookEvents()) {
		t.Fatalf("%d cases for %d events", len(tests), len(envelope.WebhookEvents()))
	}
	for _, tt := range tests {
		t.Run(string(tt.event), func(t *testing.T) {
			e := sampleEnvelope(tt.event, m, now)
			if e.Type != tt.typ || e.Status != tt.status || len(e.Recipients) != 1 || e.Recipients[0].SigningStatus != tt.signing {
				t.Errorf("sample: type %s status %s recipients %+v, want %s %s %s", e.Type, e.Status, e.Recipients, tt.typ, tt.status, tt.signing)
			}
			if e.ID != sampleEnvelopeID || e.TeamID != 7 || e.UserID != 3 || e.Title != "Sample document" || (e.CompletedAt != nil) != (tt.status == envelope.StatusCompleted) {
				t.Errorf("sample: %+v", e)
			}
		})
	}
}
