package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/persistence"
)

// roleFixture is an envelope made by its owner for one cell of the role matrix: two documents, a
// signer with a signature field, a CC and an attachment.
type roleFixture struct {
	id           string
	items        []string
	signer, cc   int64
	field        int64
	attachmentID string
}

// roleEnvelope writes a roleFixture owned by the member of ownerKey (visibility vis) straight to
// the store, and distributes it through the API and its workflow when pending.
func (a *testAPI) roleEnvelope(ownerKey string, vis envelope.Visibility, pending bool) roleFixture {
	a.t.Helper()
	ctx := context.Background()
	k, err := a.keys.Resolve(ctx, ownerKey)
	if err != nil {
		a.t.Fatal(err)
	}
	page := []persistence.PageSize{{Width: 595, Height: 842}}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: vis,
			TemplateType: envelope.TemplateTypePrivate, Title: "Contrato de arriendo", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: testpdf.Minimal("uno"), Pages: page}, {Title: "b.pdf", Data: testpdf.Minimal("dos"), Pages: page}},
		Recipients: []persistence.NewRecipient{
			{Recipient: envelope.Recipient{Email: "firmante@sobre.test", Name: "Firmante", Role: envelope.RoleSigner},
				Fields: []persistence.NewField{{Field: envelope.Field{Type: envelope.FieldSignature, Page: 1, PositionX: 10, PositionY: 10, Width: 10, Height: 5}}}},
			{Recipient: envelope.Recipient{Email: "copia@sobre.test", Name: "Copia", Role: envelope.RoleCC}},
		},
		Attachments: []envelope.Attachment{{Type: envelope.AttachmentTypeLink, Label: "Anexo", Data: "https://example.com/anexo"}},
	}
	var id string
	if err := a.store.InTx(ctx, func(tx *persistence.Tx) error {
		id, err = tx.CreateEnvelope(ctx, k.Member, in, envelope.MemberActor(k.Member, "", ""))
		return err
	}); err != nil {
		a.t.Fatal(err)
	}
	if pending {
		if status, body := a.do("POST", "/api/v2/envelope/distribute", ownerKey, fmt.Sprintf(`{"envelopeId":%q}`, id)); status != http.StatusOK {
			a.t.Fatalf("distribute: %d %v", status, body)
		}
		// Distribute answers before its request is sent: the fixture is the envelope once it
		// has been, so that the mail does not change it under a test.
		waitFor(a.t, "the signing request of "+id+" recorded sent", func() bool {
			return a.count(`SELECT count(*) FROM recipients WHERE envelope_id = $1 AND role = 'SIGNER' AND send_status = 'SENT'`, id) == 1 &&
				a.count(`SELECT count(*) FROM mail_log WHERE envelope_id = $1 AND state NOT IN ('sent', 'failed')`, id) == 0
		})
	}
	e, err := a.store.EnvelopeForRecipient(ctx, id)
	if err != nil {
		a.t.Fatal(err)
	}
	fx := roleFixture{id: id, field: e.Fields[0].ID, attachmentID: e.Attachments[0].ID}
	for _, it := range e.Items {
		fx.items = append(fx.items, it.ID)
	}
	for _, r := range e.Recipients {
		if r.Role == envelope.RoleCC {
			fx.cc = r.ID
		} else {
			fx.signer = r.ID
		}
	}
	return fx
}

// envelopeState is what a refused call must leave as it was: the envelope's row, its children,
// its audit log and the team's envelopes.
func (a *testAPI) envelopeState(id string) string {
	a.t.Helper()
	conn, err := pgx.Connect(context.Background(), a.dbURL)
	if err != nil {
		a.t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var state string
	err = conn.QueryRow(context.Background(), `SELECT coalesce((SELECT concat_ws('|', e.status, e.title, e.updated_at, e.deleted_at, e.visibility)
		FROM envelopes e WHERE e.id = $1), 'gone')
		|| '|' || (SELECT count(*) FROM audit_logs WHERE envelope_id = $1)
		|| '|' || (SELECT coalesce(string_agg(concat_ws(',', id, name, signing_status, send_status, access_auth, action_auth), ';' ORDER BY id), '') FROM recipients WHERE envelope_id = $1)
		|| '|' || (SELECT coalesce(string_agg(concat_ws(',', id, position_x, page), ';' ORDER BY id), '') FROM fields WHERE envelope_id = $1)
		|| '|' || (SELECT coalesce(string_agg(concat_ws(',', id, title, item_order), ';' ORDER BY id), '') FROM envelope_items WHERE envelope_id = $1)
		|| '|' || (SELECT coalesce(string_agg(concat_ws(',', id, label, data), ';' ORDER BY id), '') FROM attachments WHERE envelope_id = $1)
		|| '|' || (SELECT count(*) FROM envelopes)`, id).Scan(&state)
	if err != nil {
		a.t.Fatal(err)
	}
	return state
}

// multipart sends a multipart request (payload and files) and returns the status and body.
func (a *testAPI) multipart(path, key string, payload any, files map[string][]byte) (int, map[string]any) {
	a.t.Helper()
	body, ct := multipartBody(a.t, payload, files)
	req, _ := http.NewRequest("POST", a.srv.URL+path, body)
	req.Header.Set("Authorization", key)
	req.Header.Set("Content-Type", ct)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return res.StatusCode, out
}

// mutatingEndpoint is one endpoint that changes an envelope, with a valid call on a fixture.
type mutatingEndpoint struct {
	name    string
	pending bool // the call needs a PENDING envelope
	call    func(a *testAPI, key string, fx roleFixture) (int, map[string]any)
}

// mutatingEndpoints lists every endpoint that changes an envelope.
func mutatingEndpoints() []mutatingEndpoint {
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	on := func(path string, body func(fx roleFixture) any) func(a *testAPI, key string, fx roleFixture) (int, map[string]any) {
		return func(a *testAPI, key string, fx roleFixture) (int, map[string]any) {
			p := path
			if strings.Contains(p, "%d") {
				p = fmt.Sprintf(p, fx.signer)
			}
			return a.do("POST", "/api/v2"+p, key, js(body(fx)))
		}
	}
	return []mutatingEndpoint{
		{"envelope/update", false, on("/envelope/update", func(fx roleFixture) any {
			return map[string]any{"envelopeId": fx.id, "data": map[string]any{"title": "Cambiado"}}
		})},
		{"envelope/delete (DRAFT)", false, on("/envelope/delete", func(fx roleFixture) any { return map[string]any{"envelopeId": fx.id} })},
		{"envelope/delete (PENDING)", true, on("/envelope/delete", func(fx roleFixture) any { return map[string]any{"envelopeId": fx.id} })},
		{"envelope/duplicate", false, on("/envelope/duplicate", func(fx roleFixture) any { return map[string]any{"envelopeId": fx.id} })},
		{"envelope/distribute", false, on("/envelope/distribute", func(fx roleFixture) any { return map[string]any{"envelopeId": fx.id} })},
		{"envelope/redistribute", true, on("/envelope/redistribute", func(fx roleFixture) any {
			return map[string]any{"envelopeId": fx.id, "recipients": []int64{fx.signer}}
		})},
		{"envelope/cancel", true, on("/envelope/cancel", func(fx roleFixture) any { return map[string]any{"envelopeId": fx.id, "reason": "ya no"} })},
		{"envelope/item/create-many", false, func(a *testAPI, key string, fx roleFixture) (int, map[string]any) {
			return a.multipart("/api/v2/envelope/item/create-many", key, map[string]any{"envelopeId": fx.id}, map[string][]byte{"c.pdf": minimalPDF("tres")})
		}},
		{"envelope/item/update-many", false, on("/envelope/item/update-many", func(fx roleFixture) any {
			return map[string]any{"envelopeId": fx.id, "data": []any{map[string]any{"envelopeItemId": fx.items[0], "title": "Otro"}}}
		})},
		{"envelope/item/delete", false, on("/envelope/item/delete", func(fx roleFixture) any {
			return map[string]any{"envelopeId": fx.id, "envelopeItemId": fx.items[1]}
		})},
		{"envelope/attachment/create", false, on("/envelope/attachment/create", func(fx roleFixture) any {
			return map[string]any{"envelopeId": fx.id, "data": map[string]any{"label": "Otro", "data": "https://example.com/otro"}}
		})},
		{"envelope/attachment/update", false, on("/envelope/attachment/update", func(fx roleFixture) any {
			return map[string]any{"id": fx.attachmentID, "data": map[string]any{"label": "Otro", "data": "https://example.com/otro"}}
		})},
		{"envelope/attachment/delete", false, on("/envelope/attachment/delete", func(fx roleFixture) any { return map[string]any{"id": fx.attachmentID} })},
		{"envelope/recipient/create-many", false, on("/envelope/recipient/create-many", func(fx roleFixture) any {
			return map[string]any{"envelopeId": fx.id, "data": []any{map[string]any{"email": "nuevo@sobre.test", "name": "Nuevo", "role": "CC"}}}
		})},
		{"envelope/recipient/update-many", false, on("/envelope/recipient/update-many", func(fx roleFixture) any {
			return map[string]any{"envelopeId": fx.id, "data": []any{map[string]any{"id": fx.signer, "name": "Otro nombre"}}}
		})},
		{"envelope/recipient/update-many (PENDING)", true, on("/envelope/recipient/update-many", func(fx roleFixture) any {
			return map[string]any{"envelopeId": fx.id, "data": []any{map[string]any{"id": fx.signer, "name": "Otro nombre"}}}
		})},
		{"envelope/recipient/delete", false, on("/envelope/recipient/delete", func(fx roleFixture) any { return map[string]any{"recipientId": fx.cc} })},
		{"envelope/field/create-many", false, on("/envelope/field/create-many", func(fx roleFixture) any {
			return map[string]any{"envelopeId": fx.id, "data": []any{map[string]any{"recipientId": fx.signer, "envelopeItemId": fx.items[0],
				"type": "TEXT", "page": 1, "positionX": 40, "positionY": 40, "width": 10, "height": 5}}}
		})},
		{"envelope/field/update-many", false, on("/envelope/field/update-many", func(fx roleFixture) any {
			return map[string]any{"envelopeId": fx.id, "data": []any{map[string]any{"id": fx.field, "type": "SIGNATURE", "positionX": 30}}}
		})},
		{"envelope/field/delete", false, on("/envelope/field/delete", func(fx roleFixture) any { return map[string]any{"fieldId": fx.field} })},
		{"envelope/recipient/{id}/reject", true, on("/envelope/recipient/%d/reject", func(fx roleFixture) any {
			return map[string]any{"envelopeId": fx.id, "reason": "Rechazado por teléfono"}
		})},
	}
}

// TestRoleMatrix walks every mutating endpoint × {owner (a MEMBER), another MEMBER, a MANAGER, an
// ADMIN, an ADMIN of another team}: the owner, MANAGER and ADMIN succeed, each on a fresh
// envelope, and change it; the other MEMBER gets 403 FORBIDDEN and the other team 404, on one
// envelope that neither changes.
func TestRoleMatrix(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleMember)
	callers := []struct {
		name       string
		key        string
		wantStatus int
		wantCode   envelope.Code
	}{
		{"owner", owner, http.StatusOK, ""},
		{"MANAGER", a.key("Acme", "manager@acme.cl", envelope.TeamRoleManager), http.StatusOK, ""},
		{"ADMIN", a.key("Acme", "admin@acme.cl", envelope.TeamRoleAdmin), http.StatusOK, ""},
		{"other MEMBER", a.key("Acme", "colleague@acme.cl", envelope.TeamRoleMember), http.StatusForbidden, envelope.CodeForbidden},
		{"ADMIN of another team", a.key("Other", "admin@other.cl", envelope.TeamRoleAdmin), http.StatusNotFound, envelope.CodeNotFound},
	}
	for _, ep := range mutatingEndpoints() {
		var refused *roleFixture // shared by the refused callers: they change nothing
		for _, c := range callers {
			t.Run(ep.name+"/"+c.name, func(t *testing.T) {
				a.t = t
				if c.wantStatus == http.StatusOK {
					fx := a.roleEnvelope(owner, envelope.VisibilityEveryone, ep.pending)
					before := a.envelopeState(fx.id)
					if status, body := ep.call(a, c.key, fx); status != http.StatusOK {
						t.Fatalf("status %d, want 200: %v", status, body)
					}
					if after := a.envelopeState(fx.id); after == before {
						t.Errorf("a successful call changed nothing: %s", after)
					}
					return
				}
				if refused == nil {
					fx := a.roleEnvelope(owner, envelope.VisibilityEveryone, ep.pending)
					refused = &fx
				}
				before := a.envelopeState(refused.id)
				status, body := ep.call(a, c.key, *refused)
				wantError(t, status, body, c.wantStatus, c.wantCode)
				if after := a.envelopeState(refused.id); after != before {
					t.Errorf("a refused call changed the envelope:\nbefore %s\nafter  %s", before, after)
				}
			})
		}
	}
}

// TestRoleMatrixHiddenEnvelope: an envelope the caller does not see (visibility ADMIN for a
// MANAGER, MANAGER_AND_ABOVE for a MEMBER) answers 404 on every mutating endpoint, as reads do,
// and stays as it was.
func TestRoleMatrixHiddenEnvelope(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	manager := a.key("Acme", "manager@acme.cl", envelope.TeamRoleManager)
	member := a.key("Acme", "member@acme.cl", envelope.TeamRoleMember)
	cases := []struct {
		name string
		vis  envelope.Visibility
		key  string
	}{
		{"MANAGER, visibility ADMIN", envelope.VisibilityAdmin, manager},
		{"MEMBER, visibility MANAGER_AND_ABOVE", envelope.VisibilityManagerAndAbove, member},
	}
	for _, c := range cases {
		draft := a.roleEnvelope(owner, c.vis, false)
		pending := a.roleEnvelope(owner, c.vis, true)
		for _, ep := range mutatingEndpoints() {
			t.Run(c.name+"/"+ep.name, func(t *testing.T) {
				a.t = t
				fx := draft
				if ep.pending {
					fx = pending
				}
				before := a.envelopeState(fx.id)
				status, body := ep.call(a, c.key, fx)
				wantError(t, status, body, http.StatusNotFound, envelope.CodeNotFound)
				if after := a.envelopeState(fx.id); after != before {
					t.Errorf("a refused call changed the envelope:\nbefore %s\nafter  %s", before, after)
				}
			})
		}
	}
}

// auditEntry returns the first entry of type typ in the envelope's audit log, read with key.
func (a *testAPI) auditEntry(key, id, typ string) map[string]any {
	a.t.Helper()
	status, body := a.do("GET", "/api/v2/envelope/"+id+"/audit-log?perPage=100", key, "")
	if status != http.StatusOK {
		a.t.Fatalf("audit log: %d %v", status, body)
	}
	for _, e := range body["data"].([]any) {
		if m := e.(map[string]any); m["type"] == typ {
			return m
		}
	}
	return nil
}

// TestActingForAColleague: actAsEmail and delegatedDocumentOwner naming a colleague need a
// MANAGER or an ADMIN, and the audit entry names the real caller next to whom it acted for.
func TestActingForAColleague(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleMember)
	colleague := a.key("Acme", "colleague@acme.cl", envelope.TeamRoleMember)
	manager := a.key("Acme", "manager@acme.cl", envelope.TeamRoleManager)

	t.Run("actAsEmail", func(t *testing.T) {
		a.t = t
		fx := a.roleEnvelope(owner, envelope.VisibilityEveryone, true)
		reject := func(key, actAs string) (int, map[string]any) {
			return a.do("POST", fmt.Sprintf("/api/v2/envelope/recipient/%d/reject", fx.signer), key,
				fmt.Sprintf(`{"envelopeId":%q,"reason":"por teléfono","actAsEmail":%q}`, fx.id, actAs))
		}
		before := a.envelopeState(fx.id)
		status, body := reject(owner, "colleague@acme.cl")
		wantError(t, status, body, http.StatusForbidden, envelope.CodeForbidden)
		status, body = reject(manager, "nobody@acme.cl")
		wantError(t, status, body, http.StatusForbidden, envelope.CodeForbidden)
		if after := a.envelopeState(fx.id); after != before {
			t.Errorf("a refused rejection changed the envelope:\nbefore %s\nafter  %s", before, after)
		}
		if status, body := reject(manager, "colleague@acme.cl"); status != http.StatusOK {
			t.Fatalf("MANAGER acting as a colleague: %d %v", status, body)
		}
		entry := a.auditEntry(owner, fx.id, "DOCUMENT_RECIPIENT_REJECTED")
		if entry == nil {
			t.Fatal("no DOCUMENT_RECIPIENT_REJECTED entry")
		}
		data := entry["data"].(map[string]any)
		if entry["email"] != "manager@acme.cl" || data["onBehalfOfUserEmail"] != "colleague@acme.cl" {
			t.Errorf("entry names %v acting for %v; want manager@acme.cl for colleague@acme.cl: %v", entry["email"], data["onBehalfOfUserEmail"], entry)
		}
	})

	t.Run("actAsEmail naming oneself", func(t *testing.T) {
		a.t = t
		fx := a.roleEnvelope(owner, envelope.VisibilityEveryone, true)
		status, body := a.do("POST", fmt.Sprintf("/api/v2/envelope/recipient/%d/reject", fx.signer), owner,
			fmt.Sprintf(`{"envelopeId":%q,"reason":"por teléfono","actAsEmail":"owner@acme.cl"}`, fx.id))
		if status != http.StatusOK {
			t.Fatalf("a MEMBER naming themself: %d %v", status, body)
		}
		entry := a.auditEntry(owner, fx.id, "DOCUMENT_RECIPIENT_REJECTED")
		if entry["email"] != "owner@acme.cl" || entry["data"].(map[string]any)["onBehalfOfUserEmail"] != "owner@acme.cl" {
			t.Errorf("entry %v", entry)
		}
	})

	t.Run("delegatedDocumentOwner", func(t *testing.T) {
		a.t = t
		payload := func(delegate string) map[string]any {
			return map[string]any{"title": "Delegado", "type": "DOCUMENT", "delegatedDocumentOwner": delegate}
		}
		count := func() int {
			n, err := a.store.CountRows(context.Background(), "envelopes")
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		n := count()
		status, body := a.createRaw(colleague, payload("owner@acme.cl"), nil)
		wantError(t, status, body, http.StatusForbidden, envelope.CodeForbidden)
		if count() != n {
			t.Errorf("a refused delegated create left an envelope")
		}
		// Whether the address belongs to a member or not, a MEMBER gets the same 403: the
		// refusal tells nothing of who is in the team.
		status, body = a.createRaw(colleague, payload("nobody@elsewhere.cl"), nil)
		wantError(t, status, body, http.StatusForbidden, envelope.CodeForbidden)
		if status, body := a.createRaw(colleague, payload("COLLEAGUE@acme.cl"), nil); status != http.StatusOK {
			t.Fatalf("a MEMBER naming themself owner: %d %v", status, body)
		}
		status, body = a.createRaw(manager, payload("owner@acme.cl"), nil)
		if status != http.StatusOK {
			t.Fatalf("MANAGER delegating: %d %v", status, body)
		}
		id := body["id"].(string)
		e, err := a.store.EnvelopeForRecipient(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if e.User.Email != "owner@acme.cl" {
			t.Errorf("delegated envelope owned by %s", e.User.Email)
		}
		created := a.auditEntry(owner, id, "DOCUMENT_CREATED")
		delegated := a.auditEntry(owner, id, "DOCUMENT_DELEGATED_OWNER_CREATED")
		if created["email"] != "manager@acme.cl" || delegated == nil || delegated["email"] != "manager@acme.cl" ||
			delegated["data"].(map[string]any)["delegatedOwnerEmail"] != "owner@acme.cl" {
			t.Errorf("audit entries do not name the caller and the delegated owner: %v / %v", created, delegated)
		}
	})
}

// TestNoAuthDowngradeAfterSending: once PENDING, a recipient's or the envelope's authentication
// keeps its methods or is strengthened; losing an access method, or an action method added as
// another way to sign (any one completes), is a 400 naming the field. In DRAFT anything goes.
func TestNoAuthDowngradeAfterSending(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	key := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	create := func(pending bool, global []string) (string, int64) {
		payload := map[string]any{"title": "Con clave", "type": "DOCUMENT", "globalAccessAuth": global,
			"recipients": []any{map[string]any{"email": "firmante@sobre.test", "name": "Firmante", "role": "SIGNER",
				"accessAuth": []string{"TWO_FACTOR_AUTH"}, "actionAuth": []string{"CLAVE_UNICA"},
				"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 10, "height": 5}}}}}
		status, body := a.createRaw(key, payload, map[string][]byte{"a.pdf": minimalPDF("auth")})
		if status != http.StatusOK {
			t.Fatalf("create: %d %v", status, body)
		}
		id := body["id"].(string)
		if pending {
			if status, body := a.do("POST", "/api/v2/envelope/distribute", key, fmt.Sprintf(`{"envelopeId":%q}`, id)); status != http.StatusOK {
				t.Fatalf("distribute: %d %v", status, body)
			}
		}
		e, err := a.store.EnvelopeForRecipient(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return id, e.Recipients[0].ID
	}
	code := []string{"TWO_FACTOR_AUTH"}
	pendingID, pendingRec := create(true, []string{})
	globalID, globalRec := create(true, code)
	draftID, draftRec := create(false, code)
	recipient := func(id string, rid int64, change string) string {
		return fmt.Sprintf(`{"envelopeId":%q,"data":[{"id":%d,%s}]}`, id, rid, change)
	}
	tests := []struct {
		name, path, body string
		wantPath         string // "" for a 200
	}{
		{"CLAVE_UNICA to none", "/envelope/recipient/update-many", recipient(pendingID, pendingRec, `"actionAuth":[]`), "data[0].actionAuth"},
		{"CLAVE_UNICA to EXPLICIT_NONE", "/envelope/recipient/update-many", recipient(pendingID, pendingRec, `"actionAuth":["EXPLICIT_NONE"]`), "data[0].actionAuth"},
		{"CLAVE_UNICA replaced by FAO_HASH", "/envelope/recipient/update-many", recipient(pendingID, pendingRec, `"actionAuth":["FAO_HASH"]`), "data[0].actionAuth"},
		{"access code removed", "/envelope/recipient/update-many", recipient(pendingID, pendingRec, `"accessAuth":[]`), "data[0].accessAuth"},
		{"global access code removed", "/envelope/update", fmt.Sprintf(`{"envelopeId":%q,"data":{"globalAccessAuth":[]}}`, globalID), "data.globalAccessAuth"},
		{"own access code list emptied onto the same global list", "/envelope/recipient/update-many", recipient(globalID, globalRec, `"accessAuth":[]`), ""},
		{"FAO_HASH added as another way to sign", "/envelope/recipient/update-many", recipient(pendingID, pendingRec, `"actionAuth":["CLAVE_UNICA","FAO_HASH"]`),
			"data[0].actionAuth"},
		{"global action method added", "/envelope/update", fmt.Sprintf(`{"envelopeId":%q,"data":{"globalActionAuth":["PASSWORD"]}}`, pendingID), ""},
		{"DRAFT: CLAVE_UNICA to none", "/envelope/recipient/update-many", recipient(draftID, draftRec, `"actionAuth":[],"accessAuth":[]`), ""},
		{"DRAFT: global access code removed", "/envelope/update", fmt.Sprintf(`{"envelopeId":%q,"data":{"globalAccessAuth":[]}}`, draftID), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.t = t
			a.postRefusedAt(t, key, tt.path, tt.body, tt.wantPath)
		})
	}
}

// TestTokensOnlyForThoseWhoManage: the owner, a MANAGER and an ADMIN read recipients' signing
// tokens in every read that carries them (get, get-many, find, recipient get); another MEMBER
// reads the same shape with each token masked to "". The token the owner reads opens the
// signing API; the database holds it nowhere in the clear.
func TestTokensOnlyForThoseWhoManage(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleMember)
	fx := a.roleEnvelope(owner, envelope.VisibilityEveryone, true)
	reads := func(key string) map[string][]string {
		out := map[string][]string{}
		collect := func(name string, recipients any) {
			for _, r := range recipients.([]any) {
				tok, ok := r.(map[string]any)["token"].(string)
				if !ok {
					t.Fatalf("%s: a recipient without a token member: %v", name, r)
				}
				out[name] = append(out[name], tok)
			}
		}
		status, body := a.do("GET", "/api/v2/envelope/"+fx.id, key, "")
		if status != http.StatusOK {
			t.Fatalf("get: %d %v", status, body)
		}
		collect("get", body["recipients"])
		status, body = a.do("POST", "/api/v2/envelope/get-many", key, fmt.Sprintf(`{"ids":{"type":"envelopeId","ids":[%q]}}`, fx.id))
		if status != http.StatusOK {
			t.Fatalf("get-many: %d %v", status, body)
		}
		collect("get-many", body["data"].([]any)[0].(map[string]any)["recipients"])
		status, body = a.do("GET", "/api/v2/envelope", key, "")
		if status != http.StatusOK || len(body["data"].([]any)) != 1 {
			t.Fatalf("find: %d %v", status, body)
		}
		collect("find", body["data"].([]any)[0].(map[string]any)["recipients"])
		status, body = a.do("GET", fmt.Sprintf("/api/v2/envelope/recipient/%d", fx.signer), key, "")
		if status != http.StatusOK {
			t.Fatalf("recipient get: %d %v", status, body)
		}
		collect("recipient get", []any{body})
		return out
	}
	mine := reads(owner)
	signerToken := mine["recipient get"][0]
	if len(signerToken) != 32 {
		t.Fatalf("the owner reads token %q", signerToken)
	}
	for _, c := range []struct {
		name string
		key  string
		sees bool
	}{
		{"MANAGER", a.key("Acme", "manager@acme.cl", envelope.TeamRoleManager), true},
		{"ADMIN", a.key("Acme", "admin@acme.cl", envelope.TeamRoleAdmin), true},
		{"other MEMBER", a.key("Acme", "colleague@acme.cl", envelope.TeamRoleMember), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			for read, tokens := range reads(c.key) {
				for i, tok := range tokens {
					want := ""
					if c.sees {
						want = mine[read][i]
					}
					if tok != want {
						t.Errorf("%s: recipient %d token %q, want %q", read, i, tok, want)
					}
				}
			}
		})
	}
	if status, body := a.do("GET", "/api/v2/signing/"+signerToken, "", ""); status != http.StatusOK {
		t.Errorf("the owner's token does not open the signing API: %d %v", status, body)
	}
	var n int
	conn, err := pgx.Connect(context.Background(), a.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM recipients r WHERE strpos(r::text, $1) > 0 OR token IS NOT NULL`, signerToken).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d recipient rows hold a token in the clear (%v)", n, err)
	}
}

// TestNoProofLostAfterSending: once an envelope is sent, no change drops what a recipient must
// prove, whichever way it goes: deleting their RUT_FIRMADO field (which asks for Clave Única),
// removing or changing their expected RUN, or removing the recipient (who could then be added
// again without it). A recipient with nothing to prove may still be removed.
func TestNoProofLostAfterSending(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	key := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	field := func(ft string, y int) map[string]any {
		return map[string]any{"type": ft, "page": 1, "positionX": 10, "positionY": y, "width": 10, "height": 5}
	}
	payload := map[string]any{"title": "Con RUT", "type": "DOCUMENT", "recipients": []any{
		map[string]any{"email": "rut@sobre.test", "name": "Con RUT", "role": "SIGNER", "expectedRut": "11.111.111-1",
			"fields": []any{field("SIGNATURE", 10), field("RUT_FIRMADO", 20)}},
		map[string]any{"email": "libre@sobre.test", "name": "Libre", "role": "SIGNER", "fields": []any{field("SIGNATURE", 30)}},
	}}
	status, body := a.createRaw(key, payload, map[string][]byte{"a.pdf": minimalPDF("proofs")})
	if status != http.StatusOK {
		t.Fatalf("create: %d %v", status, body)
	}
	id := body["id"].(string)
	if status, body := a.do("POST", "/api/v2/envelope/distribute", key, fmt.Sprintf(`{"envelopeId":%q}`, id)); status != http.StatusOK {
		t.Fatalf("distribute: %d %v", status, body)
	}
	e, err := a.store.EnvelopeForRecipient(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var withRUT, free envelope.Recipient
	for _, r := range e.Recipients {
		if r.Email == "rut@sobre.test" {
			withRUT = r
		} else {
			free = r
		}
	}
	var rutField int64
	for _, f := range e.Fields {
		if f.RecipientID == withRUT.ID && f.Type == envelope.FieldRUTFirmado {
			rutField = f.ID
		}
	}
	tests := []struct {
		name, path, body string
		wantPath         string // "" for a 200
	}{
		{"the RUT_FIRMADO field deleted", "/envelope/field/delete", fmt.Sprintf(`{"fieldId":%d}`, rutField), "fieldId"},
		{"the expected RUN removed", "/envelope/recipient/update-many", fmt.Sprintf(`{"envelopeId":%q,"data":[{"id":%d,"expectedRut":null}]}`, id, withRUT.ID), "data[0].expectedRut"},
		{"the expected RUN changed", "/envelope/recipient/update-many", fmt.Sprintf(`{"envelopeId":%q,"data":[{"id":%d,"expectedRut":"22.222.222-2"}]}`, id, withRUT.ID), "data[0].expectedRut"},
		{"the recipient who must prove removed", "/envelope/recipient/delete", fmt.Sprintf(`{"recipientId":%d}`, withRUT.ID), "recipientId"},
		{"a recipient with nothing to prove removed", "/envelope/recipient/delete", fmt.Sprintf(`{"recipientId":%d}`, free.ID), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.t = t
			a.postRefusedAt(t, key, tt.path, tt.body, tt.wantPath)
		})
	}
	after, err := a.store.EnvelopeForRecipient(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	proofs := func(e *envelope.Envelope) envelope.Proofs {
		for _, r := range e.Recipients {
			if r.ID == withRUT.ID {
				return envelope.RequiredProofs(r, e.AuthOptions, e.Fields)
			}
		}
		t.Fatal("the recipient with a RUN is gone")
		return envelope.Proofs{}
	}
	if lost := envelope.ProofsLost(proofs(e), proofs(after)); len(lost) > 0 {
		t.Errorf("after the refused changes, the recipient lost %v", lost)
	}
}

// postRefusedAt posts body to path of the API with key and wants it taken (wantPath "") or
// refused with a 400 whose one issue names wantPath.
func (a *testAPI) postRefusedAt(t *testing.T, key, path, body, wantPath string) {
	t.Helper()
	status, out := a.do("POST", "/api/v2"+path, key, body)
	if wantPath == "" {
		if status != http.StatusOK {
			t.Fatalf("status %d, want 200: %v", status, out)
		}
		return
	}
	wantError(t, status, out, http.StatusBadRequest, envelope.CodeInvalidBody)
	issues, _ := out["issues"].([]any)
	if len(issues) != 1 || issues[0].(map[string]any)["path"] != wantPath {
		t.Errorf("issues %v, want one naming %s", issues, wantPath)
	}
}
