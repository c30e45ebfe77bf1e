package api

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// directTemplate creates a TEMPLATE whose first recipient (the direct one) has a signature and a
// required text field, the second a signature, the third is a CC; it returns the template.
func (a *testAPI) directTemplate(key string) *envelope.Envelope {
	a.t.Helper()
	sig := map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5}
	text := map[string]any{"type": "TEXT", "page": 1, "positionX": 10, "positionY": 30, "width": 20, "height": 5,
		"fieldMeta": map[string]any{"type": "text", "required": true}}
	payload := map[string]any{"title": "Inscripción", "type": "TEMPLATE", "recipients": []any{
		map[string]any{"email": "cliente@plantilla.test", "name": "Cliente", "role": "SIGNER", "fields": []any{sig, text}},
		map[string]any{"email": "b@acme.test", "name": "Berta", "role": "SIGNER", "fields": []any{sig}},
		map[string]any{"email": "c@acme.test", "name": "Carla", "role": "CC"},
	}}
	status, created := a.createRaw(key, payload, map[string][]byte{"a.pdf": minimalPDF(fmt.Sprint("direct link ", time.Now().UnixNano()))})
	if status != http.StatusOK {
		a.t.Fatalf("create template: %d %v", status, created)
	}
	tpl, err := a.store.EnvelopeForRecipient(context.Background(), created["id"].(string))
	if err != nil {
		a.t.Fatal(err)
	}
	return tpl
}

// TestDirectLinkEndToEnd: a template's direct link is made, shown in the template's read and
// served at /d/{token}; a visitor's submit makes a PENDING DOCUMENT from the template with the
// visitor SIGNED in the direct recipient's place, the externalId carried and the audit entries
// Documenso writes; the other signer signs, the envelope is sealed and its sealed PDF
// downloads. Disabled, the link's page and submit are 410; deleted, 404 and no directLink.
func TestDirectLinkEndToEnd(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	ctx := context.Background()
	key := a.key("Acme", "owner@acme.test", envelope.TeamRoleMember)
	tpl := a.directTemplate(key)
	direct := tpl.Recipients[0]

	status, link := a.do("POST", "/api/v2/template/direct/create", key, fmt.Sprintf(`{"templateId":%d,"directRecipientId":%d}`, tpl.LegacyID, direct.ID))
	if status != http.StatusOK || link["enabled"] != true || link["envelopeId"] != tpl.ID || link["templateId"] != float64(tpl.LegacyID) ||
		link["directTemplateRecipientId"] != float64(direct.ID) {
		t.Fatalf("create: %d %v", status, link)
	}
	token := link["token"].(string)
	status, again := a.do("POST", "/api/v2/template/direct/create", key, fmt.Sprintf(`{"templateId":%d}`, tpl.LegacyID))
	wantError(t, status, again, http.StatusBadRequest, envelope.CodeAlreadyExists)
	// The template keeps what the page can prove while it has the link.
	status, body := a.do("POST", "/api/v2/envelope/recipient/update-many", key,
		fmt.Sprintf(`{"envelopeId":%q,"data":[{"id":%d,"actionAuth":["PASSKEY"]}]}`, tpl.ID, direct.ID))
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidBody)
	status, body = a.do("POST", "/api/v2/envelope/update", key, fmt.Sprintf(`{"envelopeId":%q,"data":{"globalAccessAuth":["ACCOUNT"]}}`, tpl.ID))
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidBody)
	if tpl, err := a.store.EnvelopeForRecipient(ctx, tpl.ID); err != nil || len(tpl.AuthOptions.GlobalAccessAuth) > 0 || len(tpl.Recipients[0].AuthOptions.ActionAuth) > 0 {
		t.Fatalf("a refused change was kept: %v %+v", err, tpl)
	}
	status, read := a.do("GET", "/api/v2/envelope/"+tpl.ID, key, "")
	if dl, _ := read["directLink"].(map[string]any); status != http.StatusOK || dl["token"] != token || dl["enabled"] != true {
		t.Fatalf("template read: %d directLink %v", status, read["directLink"])
	}

	status, page := a.do("GET", "/d/"+token, "", "")
	if raw := page["_raw"].(string); status != http.StatusOK || !strings.Contains(raw, `id="visitor-email"`) || !strings.Contains(raw, "/d/"+token+"/pages/") {
		t.Fatalf("page: %d %.300s", status, raw)
	}
	item := tpl.Items[0].ID
	if status, img := a.do("GET", "/d/"+token+"/pages/"+item+"/1.png", "", ""); status != http.StatusOK || !strings.HasPrefix(img["_raw"].(string), "\x89PNG") {
		t.Fatalf("page image: %d", status)
	}

	var sigID, textID int64
	for _, f := range tpl.Fields {
		if f.RecipientID == direct.ID && f.Type == envelope.FieldSignature {
			sigID = f.ID
		}
		if f.RecipientID == direct.ID && f.Type == envelope.FieldText {
			textID = f.ID
		}
	}
	submit := func(updatedAt time.Time, values string) (int, map[string]any) {
		return a.do("POST", "/api/v2/direct/"+token, "", fmt.Sprintf(`{"name":"Vera Visitante","email":"vera@visita.test","externalId":"crm-77",
			"templateUpdatedAt":%q,"fields":[%s]}`, updatedAt.Format(time.RFC3339Nano), values))
	}
	values := fmt.Sprintf(`{"fieldId":%d,"value":"Vera V."},{"fieldId":%d,"value":"rut 1-9"}`, sigID, textID)
	before := a.envelopeCount()
	status, body = submit(tpl.UpdatedAt.Add(time.Second), values)
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidRequest)
	status, body = submit(tpl.UpdatedAt, fmt.Sprintf(`{"fieldId":%d,"value":"Vera V."}`, sigID))
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeRecipientHasUnsignedFields)
	if after := a.envelopeCount(); after != before {
		t.Fatalf("a refused submit left %d envelopes, had %d", after, before)
	}
	status, body = submit(tpl.UpdatedAt, values)
	if status != http.StatusOK {
		t.Fatalf("submit: %d %v", status, body)
	}
	id := body["envelopeId"].(string)
	e, err := a.store.EnvelopeForRecipient(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	visitor := e.Recipients[0]
	if e.Type != envelope.TypeDocument || e.Source != envelope.SourceTemplateDirectLink || e.ExternalID == nil || *e.ExternalID != "crm-77" ||
		e.Status != envelope.StatusPending || visitor.Email != "vera@visita.test" || visitor.Name != "Vera Visitante" ||
		visitor.SigningStatus != envelope.SigningStatusSigned || *e.TemplateID != tpl.LegacyID {
		t.Fatalf("document: type %s source %s externalId %v status %s visitor %+v", e.Type, e.Source, e.ExternalID, e.Status, visitor)
	}
	if want := "/sign/" + visitor.Token; !strings.HasSuffix(body["redirectUrl"].(string), want) {
		t.Fatalf("redirectUrl %v, want …%s", body["redirectUrl"], want)
	}
	createdEntry := a.auditEntry(key, id, "DOCUMENT_CREATED")
	src, _ := createdEntry["data"].(map[string]any)["source"].(map[string]any)
	if src["type"] != "TEMPLATE_DIRECT_LINK" || src["directRecipientEmail"] != "vera@visita.test" || src["templateId"] != float64(tpl.LegacyID) {
		t.Fatalf("DOCUMENT_CREATED source %v", src)
	}
	for _, typ := range []string{"DOCUMENT_OPENED", "DOCUMENT_FIELD_INSERTED", "DOCUMENT_RECIPIENT_COMPLETED", "DOCUMENT_SENT"} {
		if a.auditEntry(key, id, typ) == nil {
			t.Fatalf("no %s in the audit log", typ)
		}
	}

	// The owner is told, once, through the workflow's mail (ownerDocumentCreated).
	if sink := os.Getenv("SOBRE_TEST_MAILPIT_URL"); sink != "" {
		h := &comboHarness{a: a, sink: sink}
		got, err := h.mailed("owner@acme.test", "owner_document_created."+strings.TrimPrefix(id, "envelope_")+".", regexp.MustCompile(`(Vera Visitante) signed`))
		if err != nil || got != "Vera Visitante" {
			t.Fatalf("owner's mail: %q, %v", got, err)
		}
	}

	// The other signer gets the link by the workflow, signs, and the envelope completes.
	other := e.Recipients[1]
	jar, _ := cookiejar.New(nil)
	b := &signer{t: t, a: a, client: &http.Client{Jar: jar}, token: other.Token}
	waitFor(t, "the other signer's request", func() bool {
		e, err := a.store.EnvelopeForRecipient(ctx, id)
		return err == nil && e.Recipients[1].SendStatus == envelope.SendStatusSent
	})
	if status, raw := b.call(http.MethodGet, "/sign/"+other.Token, nil); status != http.StatusOK {
		t.Fatalf("signing page: %d %s", status, raw)
	}
	var otherSig int64
	for _, f := range e.Fields {
		if f.RecipientID == other.ID {
			otherSig = f.ID
		}
	}
	if status, raw := b.call(http.MethodPost, "/api/v2/signing/"+other.Token+"/fields", map[string]any{"fieldId": otherSig, "value": "Berta"}); status != http.StatusOK {
		t.Fatalf("fill: %d %s", status, raw)
	}
	if status, raw := b.complete(); status != http.StatusOK {
		t.Fatalf("complete: %d %s", status, raw)
	}
	waitFor(t, "COMPLETED", func() bool {
		e, err := a.store.EnvelopeForRecipient(ctx, id)
		return err == nil && e.Status == envelope.StatusCompleted
	})
	status, sealed, _ := a.download("/api/v2/envelope/item/"+e.Items[0].ID+"/download?version=signed", key)
	if status != http.StatusOK || !bytes.HasPrefix(sealed, []byte("%PDF")) || !bytes.Contains(sealed, []byte("/ByteRange")) {
		t.Fatalf("sealed download: %d, %d bytes", status, len(sealed))
	}

	// Disabled: the page says so (410) and a submit is refused; deleted: 404, no directLink.
	if status, body := a.do("POST", "/api/v2/template/direct/toggle", key, fmt.Sprintf(`{"templateId":%d,"enabled":false}`, tpl.LegacyID)); status != http.StatusOK || body["enabled"] != false {
		t.Fatalf("toggle: %d %v", status, body)
	}
	if status, page := a.do("GET", "/d/"+token, "", ""); status != http.StatusGone || strings.Contains(page["_raw"].(string), tpl.Title) {
		t.Fatalf("disabled page: %d %.300s", status, page["_raw"])
	}
	status, body = submit(tpl.UpdatedAt, values)
	wantError(t, status, body, http.StatusGone, envelope.CodeLinkEnded)
	if status, body := a.do("POST", "/api/v2/template/direct/delete", key, fmt.Sprintf(`{"templateId":%d}`, tpl.LegacyID)); status != http.StatusOK || body["success"] != true {
		t.Fatalf("delete: %d %v", status, body)
	}
	if status, _ := a.do("GET", "/d/"+token, "", ""); status != http.StatusNotFound {
		t.Fatalf("deleted page: %d", status)
	}
	if _, read := a.do("GET", "/api/v2/envelope/"+tpl.ID, key, ""); read["directLink"] != nil {
		t.Fatalf("directLink after delete: %v", read["directLink"])
	}
}

// TestDirectLinkWhoMayManage: another team's template is 404, a MEMBER who does not own it 403,
// a DOCUMENT has no direct link, and a placeholder recipient is made and removed with the link.
func TestDirectLinkWhoMayManage(t *testing.T) {
	a := newTestAPI(t)
	owner := a.key("Acme", "owner@acme.test", envelope.TeamRoleMember)
	colleague := a.key("Acme", "colleague@acme.test", envelope.TeamRoleMember)
	stranger := a.key("Other", "x@other.test", envelope.TeamRoleAdmin)
	tpl := a.directTemplate(owner)
	body := fmt.Sprintf(`{"templateId":%d}`, tpl.LegacyID)
	status, res := a.do("POST", "/api/v2/template/direct/create", stranger, body)
	wantError(t, status, res, http.StatusNotFound, envelope.CodeNotFound)
	status, res = a.do("POST", "/api/v2/template/direct/create", colleague, body)
	wantError(t, status, res, http.StatusForbidden, envelope.CodeForbidden)
	status, res = a.do("POST", "/api/v2/template/direct/create", owner, `{}`)
	wantError(t, status, res, http.StatusBadRequest, envelope.CodeInvalidBody)

	status, res = a.do("POST", "/api/v2/template/direct/create", owner, body)
	if status != http.StatusOK {
		t.Fatalf("create: %d %v", status, res)
	}
	read, err := a.store.EnvelopeForRecipient(context.Background(), tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	placeholder := read.Recipient(int64(res["directTemplateRecipientId"].(float64)))
	if placeholder == nil || placeholder.Email != envelope.DirectRecipientEmail || len(read.Recipients) != 4 {
		t.Fatalf("placeholder %+v among %d recipients", placeholder, len(read.Recipients))
	}
	if status, res := a.do("POST", "/api/v2/template/direct/delete", owner, body); status != http.StatusOK {
		t.Fatalf("delete: %d %v", status, res)
	}
	read, err = a.store.EnvelopeForRecipient(context.Background(), tpl.ID)
	if err != nil || len(read.Recipients) != 3 || read.DirectLink != nil {
		t.Fatalf("after delete: %v, %d recipients, link %v", err, len(read.Recipients), read.DirectLink)
	}
}

// envelopeCount is how many envelopes the database holds.
func (a *testAPI) envelopeCount() int {
	a.t.Helper()
	conn, err := pgx.Connect(context.Background(), a.dbURL)
	if err != nil {
		a.t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM envelopes`).Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// waitFor polls cond every 100 ms, for up to 60 s, failing the test with what when it never holds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestDirectLinkSubmitsAreLimited: one client address may submit to a link directPerClient times
// a minute, refused or not; the next is 429 with Retry-After.
func TestDirectLinkSubmitsAreLimited(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "owner@acme.test", envelope.TeamRoleMember)
	tpl := a.directTemplate(key)
	status, link := a.do("POST", "/api/v2/template/direct/create", key, fmt.Sprintf(`{"templateId":%d,"directRecipientId":%d}`, tpl.LegacyID, tpl.Recipients[0].ID))
	if status != http.StatusOK {
		t.Fatalf("create: %d %v", status, link)
	}
	path := "/api/v2/direct/" + link["token"].(string)
	for i := 0; i < directPerClient.Requests; i++ {
		if status, body := a.do("POST", path, "", `{}`); status != http.StatusBadRequest {
			t.Fatalf("submit %d: %d %v", i+1, status, body)
		}
	}
	status, body := a.do("POST", path, "", `{}`)
	wantError(t, status, body, http.StatusTooManyRequests, envelope.CodeTooManyRequests)
}

// TestDirectLinkWithOnlyCCsLeftSeals: when the visitor is the only one to act, the document's
// workflow seals it at once.
func TestDirectLinkWithOnlyCCsLeftSeals(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	key := a.key("Acme", "owner@acme.test", envelope.TeamRoleMember)
	payload := map[string]any{"title": "Recibo", "type": "TEMPLATE", "recipients": []any{
		map[string]any{"email": "cliente@plantilla.test", "name": "Cliente", "role": "SIGNER",
			"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5}}},
		map[string]any{"email": "c@acme.test", "name": "Carla", "role": "CC"},
	}}
	status, created := a.createRaw(key, payload, map[string][]byte{"a.pdf": minimalPDF(fmt.Sprint("cc only ", time.Now().UnixNano()))})
	if status != http.StatusOK {
		t.Fatalf("create: %d %v", status, created)
	}
	tpl, err := a.store.EnvelopeForRecipient(context.Background(), created["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	status, link := a.do("POST", "/api/v2/template/direct/create", key, fmt.Sprintf(`{"templateId":%d,"directRecipientId":%d}`, tpl.LegacyID, tpl.Recipients[0].ID))
	if status != http.StatusOK {
		t.Fatalf("link: %d %v", status, link)
	}
	// The template's updatedAt as the API shows it (to the millisecond) is the version submitted.
	status, shown := a.do("GET", "/api/v2/envelope/"+tpl.ID, key, "")
	if status != http.StatusOK {
		t.Fatalf("get: %d %v", status, shown)
	}
	status, body := a.do("POST", "/api/v2/direct/"+link["token"].(string), "", fmt.Sprintf(`{"name":"Vera","email":"vera@visita.test",
		"templateUpdatedAt":%q,"fields":[{"fieldId":%d,"value":"Vera"}]}`, shown["updatedAt"], tpl.Fields[0].ID))
	if status != http.StatusOK {
		t.Fatalf("submit: %d %v", status, body)
	}
	waitFor(t, "COMPLETED", func() bool {
		e, err := a.store.EnvelopeForRecipient(context.Background(), body["envelopeId"].(string))
		return err == nil && e.Status == envelope.StatusCompleted
	})
}
