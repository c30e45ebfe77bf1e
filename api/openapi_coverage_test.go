package api

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// Every operation of the OpenAPI document that takes a body refuses a body of the wrong shape
// with 400 (and the checked handler validates that answer against the document). The operations
// are read from the document, so a new one is tried as soon as it is documented.
func TestEveryOperationWithABodyRefusesAWrongOne(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	id, _, rec := a.pendingEnvelope(nil)
	params := map[string]string{"envelopeId": id, "recipientId": fmt.Sprint(rec.ID), "token": rec.Token}
	_, directToken := a.directLinkOf(key) // a direct submit finds its link before reading the body
	doc, err := checkedDoc()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for path, item := range doc.Paths.Map() {
		if op := item.Post; op != nil && op.RequestBody != nil {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			url := strings.ReplaceAll(path, "/direct/{token}", "/direct/"+directToken)
			for name, value := range params {
				url = strings.ReplaceAll(url, "{"+name+"}", value)
			}
			if strings.Contains(url, "{") {
				t.Fatalf("%s: no value for its path parameters", path)
			}
			status, body := a.do("POST", "/api/v2"+url, key, `["not", "an", "object"]`)
			wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidBody)
		})
	}
}

// The operations no other test answers with success: a field read, a document made from a
// template, and a rejection on the signing link.
func TestTemplateUseFieldReadAndRejection(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	status, created := a.createRaw(key, map[string]any{"title": "Plantilla", "type": "TEMPLATE",
		"recipients": []any{map[string]any{"email": "rosa@sobre.test", "name": "Rosa", "role": "SIGNER", "fields": []any{
			map[string]any{"type": "TEXT", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5,
				"fieldMeta": map[string]any{"type": "text", "lineHeight": 1.5, "letterSpacing": 2, "verticalAlign": "middle"}},
			map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 30, "width": 20, "height": 5}}}}},
		map[string][]byte{"a.pdf": minimalPDF(fmt.Sprint("template ", time.Now().UnixNano()))})
	if status != http.StatusOK {
		t.Fatalf("create a template: %d %v", status, created)
	}
	status, tpl := a.do("GET", "/api/v2/envelope/"+created["id"].(string), key, "")
	if status != http.StatusOK {
		t.Fatalf("read the template: %d %v", status, tpl)
	}
	recipient := tpl["recipients"].([]any)[0].(map[string]any)
	field := recipient["fields"].([]any)[0].(map[string]any)
	status, got := a.do("GET", fmt.Sprintf("/api/v2/envelope/field/%v", field["id"]), key, "")
	if status != http.StatusOK || got["fieldMeta"].(map[string]any)["verticalAlign"] != "middle" {
		t.Fatalf("field read: %d %v", status, got)
	}

	status, used := a.multipart("/api/v2/envelope/use", key, map[string]any{"envelopeId": tpl["id"], "distributeDocument": true,
		"recipients": []any{map[string]any{"id": recipient["id"], "email": "tomas@sobre.test", "name": "Tomás"}}}, nil)
	if status != http.StatusOK {
		t.Fatalf("use the template: %d %v", status, used)
	}
	token := used["recipients"].([]any)[0].(map[string]any)["token"].(string)
	status, rejected := a.do("POST", "/api/v2/signing/"+token+"/reject", "", `{"reason":"No es mi contrato"}`)
	if status != http.StatusOK || rejected["status"] != "REJECTED" {
		t.Fatalf("reject on the signing link: %d %v", status, rejected)
	}
}

// The account proofs of a signing link that only TestEveryAuthCombinationCompletes reaches
// otherwise, which the race detector skips: an authenticator app's code and a passkey, each on
// its own signer.
func TestAccountProofsOnTheSigningLink(t *testing.T) {
	h := newComboHarness(t, "proofs-")
	for i, method := range []string{"TWO_FACTOR_AUTH", "PASSKEY"} {
		c := authCombo{access: []string{}, action: []string{method}, prove: method}
		if err := h.complete(i, c); err != nil {
			t.Errorf("%s: %v", method, err)
		}
	}
}
