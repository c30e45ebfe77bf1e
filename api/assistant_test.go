package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// sendEnvelope creates an envelope of payload with one document, distributes it, and returns it
// as the store reads it.
func (a *testAPI) sendEnvelope(key string, payload map[string]any, pdf []byte) *envelope.Envelope {
	a.t.Helper()
	status, created := a.createRaw(key, payload, map[string][]byte{"a.pdf": pdf})
	if status != http.StatusOK {
		a.t.Fatalf("create: %d %v", status, created)
	}
	id := created["id"].(string)
	if status, body := a.do("POST", "/api/v2/envelope/distribute", key, fmt.Sprintf(`{"envelopeId":%q}`, id)); status != http.StatusOK {
		a.t.Fatalf("distribute: %d %v", status, body)
	}
	e, err := a.store.EnvelopeForRecipient(context.Background(), id)
	if err != nil {
		a.t.Fatal(err)
	}
	return e
}

// assistantAndSigner are e's ASSISTANT and its other recipient.
func assistantAndSigner(e *envelope.Envelope) (assistant, other envelope.Recipient) {
	for _, r := range e.Recipients {
		if r.Role == envelope.RoleAssistant {
			assistant = r
		} else {
			other = r
		}
	}
	return assistant, other
}

// signatureAndOthers splits e's fields: the id of its (last) SIGNATURE, and the ids of the others.
func signatureAndOthers(e *envelope.Envelope) (sig int64, others []int64) {
	for _, f := range e.Fields {
		if f.Type == envelope.FieldSignature {
			sig = f.ID
		} else {
			others = append(others, f.ID)
		}
	}
	return sig, others
}

// TestAssistantFillsTheFieldsOfLaterSigners: in a SEQUENTIAL envelope (a signer, an ASSISTANT,
// a signer), the assistant's signing view lists the last signer's TEXT field (not its
// SIGNATURE), labelled with whom it is for; it cannot fill the earlier signer's field nor, before
// its turn, the later one's; in its turn it fills the later signer's TEXT (DOCUMENT_FIELD_PREFILLED
// naming both) but not its SIGNATURE; its completion lists what it filled for whom; the last
// signer sees the value on its page and in its view, completes without typing it again, and the
// sealed document and the certificate of completion show it.
func TestAssistantFillsTheFieldsOfLaterSigners(t *testing.T) {
	needTool(t, "pdftotext")
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	field := func(typ string, y int) map[string]any {
		f := map[string]any{"type": typ, "page": 1, "positionX": 10, "positionY": y, "width": 30, "height": 5}
		if typ == "TEXT" {
			f["fieldMeta"] = map[string]any{"type": "text", "required": true}
		}
		return f
	}
	payload := map[string]any{"title": "Arriendo", "type": "DOCUMENT", "meta": map[string]any{"signingOrder": "SEQUENTIAL"},
		"recipients": []any{
			map[string]any{"email": "primero@sobre.test", "name": "Primero", "role": "SIGNER", "signingOrder": 1,
				"fields": []any{field("SIGNATURE", 10), field("TEXT", 20)}},
			map[string]any{"email": "asistente@sobre.test", "name": "Asistente", "role": "ASSISTANT", "signingOrder": 2},
			map[string]any{"email": "tercero@sobre.test", "name": "Tercero", "role": "SIGNER", "signingOrder": 3,
				"fields": []any{field("SIGNATURE", 40), field("TEXT", 50)}},
		}}
	e := a.sendEnvelope(owner, payload, minimalPDF("ARRIENDO"))
	id := e.ID
	tokens := map[string]string{}
	recipients := map[string]int64{}
	for _, r := range e.Recipients {
		tokens[r.Name], recipients[r.Name] = r.Token, r.ID
	}
	fieldOf := func(name string, typ envelope.FieldType) int64 {
		for _, f := range e.Fields {
			if f.RecipientID == recipients[name] && f.Type == typ {
				return f.ID
			}
		}
		t.Fatalf("no %s field for %s", typ, name)
		return 0
	}
	signers := map[string]*signer{}
	for name, token := range tokens {
		jar, _ := cookiejar.New(nil)
		signers[name] = &signer{t: t, a: a, client: &http.Client{Jar: jar}, token: token}
	}
	fill := func(who string, fieldID int64, value any) (int, map[string]any) {
		t.Helper()
		status, raw := signers[who].call(http.MethodPost, "/api/v2/signing/"+tokens[who]+"/fields", map[string]any{"fieldId": fieldID, "value": value})
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		return status, body
	}
	complete := func(who string) {
		t.Helper()
		if status, raw := signers[who].call(http.MethodPost, "/api/v2/signing/"+tokens[who]+"/complete", nil); status != http.StatusOK {
			t.Fatalf("%s completes: %d %s", who, status, raw)
		}
	}
	signingView := func(who string) map[string]any {
		t.Helper()
		status, raw := signers[who].call(http.MethodGet, "/api/v2/signing/"+tokens[who], nil)
		var v map[string]any
		if err := json.Unmarshal(raw, &v); status != http.StatusOK || err != nil {
			t.Fatalf("%s's signing view: %d %s", who, status, raw)
		}
		return v
	}
	laterText, laterSig, earlierText := fieldOf("Tercero", envelope.FieldText), fieldOf("Tercero", envelope.FieldSignature), fieldOf("Primero", envelope.FieldText)

	// The assistant's view lists the later signer's TEXT, not its SIGNATURE, nor the earlier signer's.
	v := signingView("Asistente")
	var listed []int64
	for _, f := range v["fields"].([]any) {
		listed = append(listed, int64(f.(map[string]any)["id"].(float64)))
	}
	if len(listed) != 1 || listed[0] != laterText {
		t.Fatalf("the assistant's view lists fields %v, want only %d (Tercero's TEXT)", listed, laterText)
	}
	if as := v["assisting"].([]any); len(as) != 1 || as[0].(map[string]any)["name"] != "Tercero" {
		t.Fatalf("assisting = %v, want Tercero", v["assisting"])
	}
	if v["mayActNow"] != false {
		t.Fatalf("the assistant may act before the first signer: %v", v["mayActNow"])
	}

	// Not the earlier signer's field; not the later one's before its turn.
	status, body := fill("Asistente", earlierText, "x")
	wantError(t, status, body, http.StatusNotFound, envelope.CodeNotFound)
	status, body = fill("Asistente", laterText, "x")
	if body["code"] != string(envelope.CodeRecipientOutOfTurn) {
		t.Fatalf("the assistant fills before its turn: %d %v", status, body)
	}

	// The first signer signs.
	if status, body := fill("Primero", fieldOf("Primero", envelope.FieldSignature), "Primero"); status != http.StatusOK {
		t.Fatalf("Primero signs: %d %v", status, body)
	}
	if status, body := fill("Primero", earlierText, "del primero"); status != http.StatusOK {
		t.Fatalf("Primero fills: %d %v", status, body)
	}
	complete("Primero")

	// In its turn the assistant fills the later signer's TEXT, never its SIGNATURE.
	status, body = fill("Asistente", laterSig, "Asistente")
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidRequest)
	if status, body := fill("Asistente", laterText, "Valor del asistente"); status != http.StatusOK || body["customText"] != "Valor del asistente" {
		t.Fatalf("the assistant fills Tercero's TEXT: %d %v", status, body)
	}
	entry := a.auditEntry(owner, id, "DOCUMENT_FIELD_PREFILLED")
	if entry == nil {
		t.Fatal("no DOCUMENT_FIELD_PREFILLED in the audit log")
	}
	data := entry["data"].(map[string]any)
	if data["recipientId"] != float64(recipients["Asistente"]) || data["fieldRecipientId"] != float64(recipients["Tercero"]) ||
		data["field"].(map[string]any)["data"] != "Valor del asistente" {
		t.Fatalf("DOCUMENT_FIELD_PREFILLED data = %v", data)
	}
	page := func(who string) string {
		t.Helper()
		status, raw := signers[who].call(http.MethodGet, "/sign/"+tokens[who], nil)
		if status != http.StatusOK {
			t.Fatalf("%s's page: %d", who, status)
		}
		return string(raw)
	}
	if html := page("Asistente"); !strings.Contains(html, "for Tercero") || !strings.Contains(html, "Fields to fill in for the recipients after you") {
		t.Fatal("the assistant's page does not say whom the field is for")
	}
	complete("Asistente")
	var completed map[string]any
	status, log := a.do("GET", "/api/v2/envelope/"+id+"/audit-log?perPage=100", owner, "")
	for _, en := range log["data"].([]any) {
		if m := en.(map[string]any); m["type"] == "DOCUMENT_RECIPIENT_COMPLETED" && m["data"].(map[string]any)["recipientId"] == float64(recipients["Asistente"]) {
			completed = m["data"].(map[string]any)
		}
	}
	if status != http.StatusOK || completed == nil {
		t.Fatalf("no DOCUMENT_RECIPIENT_COMPLETED of the assistant: %d", status)
	}
	if p, _ := completed["prefilled"].([]any); len(p) != 1 || p[0].(map[string]any)["recipientId"] != float64(recipients["Tercero"]) ||
		p[0].(map[string]any)["fieldType"] != "TEXT" {
		t.Fatalf("the assistant's completion records prefilled %v", completed["prefilled"])
	}
	status, body = fill("Asistente", laterText, "otro")
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeRecipientAlreadySigned)

	// The last signer sees the value as its own and completes without typing it again.
	for _, f := range signingView("Tercero")["fields"].([]any) {
		if m := f.(map[string]any); m["id"] == float64(laterText) && (m["customText"] != "Valor del asistente" || m["inserted"] != true) {
			t.Fatalf("Tercero's view of its TEXT: %v", m)
		}
	}
	if html := page("Tercero"); !strings.Contains(html, "Valor del asistente") || !strings.Contains(html, "filled in by Asistente") {
		t.Fatal("Tercero's page does not show the assistant's value as the assistant's")
	}
	if status, body := fill("Tercero", laterSig, "Tercero"); status != http.StatusOK {
		t.Fatalf("Tercero signs: %d %v", status, body)
	}
	complete("Tercero")

	// Sealed: the document shows the value; the certificate says who filled it for whom.
	deadline := time.Now().Add(time.Minute)
	for {
		status, body := a.do("GET", "/api/v2/envelope/"+id, owner, "")
		if status == http.StatusOK && body["status"] == string(envelope.StatusCompleted) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the envelope is %v a minute after the last signer completed", body["status"])
		}
		time.Sleep(100 * time.Millisecond)
	}
	text := func(path string) string {
		t.Helper()
		var status int
		var pdf []byte
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			status, pdf, _ = a.download(path, owner)
			if status == http.StatusOK || time.Now().After(deadline) {
				break
			}
		}
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, pdf)
		}
		file := filepath.Join(t.TempDir(), "out.pdf")
		if err := os.WriteFile(file, pdf, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("pdftotext", "-raw", file, "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(string(out)), " ")
	}
	if sealed := text("/api/v2/envelope/item/" + e.Items[0].ID + "/download"); !strings.Contains(sealed, "Valor del asistente") {
		t.Fatalf("the sealed document does not show the assistant's value:\n%s", sealed)
	}
	if cert := text("/api/v2/envelope/" + id + "/certificate/download"); !strings.Contains(cert, "Filled in for Tercero <tercero@sobre.test>: TEXT «Valor del asistente»") {
		t.Fatalf("the certificate of completion does not say what the assistant filled:\n%s", cert)
	}
}

// TestAssistantValuesStandUnderTheSignersProofs: a signer whose completion rests on a proof
// (PASSWORD) completes with the values an assistant filled for it (they are the assistant's,
// logged as such, not someone else's typing in another browser); a value the signer changes
// becomes its own, the one it keeps stays the assistant's.
func TestAssistantValuesStandUnderTheSignersProofs(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	ctx := context.Background()
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	email := fmt.Sprintf("assisted-%d@sobre.test", time.Now().UnixNano())
	const password = "signer's good passphrase"
	a.signerAccount(email, password)
	text := func(y int) map[string]any {
		return map[string]any{"type": "TEXT", "page": 1, "positionX": 10, "positionY": y, "width": 20, "height": 5,
			"fieldMeta": map[string]any{"type": "text", "required": true}}
	}
	payload := map[string]any{"title": "Préstamo", "type": "DOCUMENT", "meta": map[string]any{"signingOrder": "SEQUENTIAL"},
		"recipients": []any{
			map[string]any{"email": "asistente@sobre.test", "name": "Asistente", "role": "ASSISTANT", "signingOrder": 1},
			map[string]any{"email": email, "name": "Firmante", "role": "SIGNER", "signingOrder": 2, "actionAuth": []string{"PASSWORD"},
				"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5}, text(30), text(40),
					map[string]any{"type": "TEXT", "page": 1, "positionX": 10, "positionY": 50, "width": 20, "height": 5}}},
		}}
	e := a.sendEnvelope(owner, payload, minimalPDF(fmt.Sprint("assisted ", time.Now().UnixNano())))
	id := e.ID
	assistant, signerRec := assistantAndSigner(e)
	sig, texts := signatureAndOthers(e)
	ab := newAccountBrowser(t, a)
	if status, _, body := ab.get("/sign/" + assistant.Token); status != http.StatusOK {
		t.Fatalf("assistant's page: %d\n%s", status, body)
	}
	for i, f := range texts {
		if status, body := ab.json("/api/v2/signing/"+assistant.Token+"/fields", map[string]any{"fieldId": f, "value": fmt.Sprint("del asistente ", i)}); status != http.StatusOK {
			t.Fatalf("the assistant fills %d: %d %s", f, status, body)
		}
	}
	// The optional one it empties again: left empty, it is nobody's value.
	if status, body := ab.json("/api/v2/signing/"+assistant.Token+"/fields", map[string]any{"fieldId": texts[2], "value": nil}); status != http.StatusOK {
		t.Fatalf("the assistant clears %d: %d %s", texts[2], status, body)
	}
	if status, body := ab.json("/api/v2/signing/"+assistant.Token+"/complete", map[string]any{}); status != http.StatusOK {
		t.Fatalf("the assistant completes: %d %s", status, body)
	}

	v := newAccountBrowser(t, a)
	v.signIn(email, password)
	if status, _, body := v.get("/sign/" + signerRec.Token); status != http.StatusOK {
		t.Fatalf("signing page: %d\n%s", status, body)
	}
	for f, value := range map[int64]string{sig: "Firmante", texts[1]: "del firmante"} {
		if status, body := v.json("/api/v2/signing/"+signerRec.Token+"/fields", map[string]any{"fieldId": f, "value": value}); status != http.StatusOK {
			t.Fatalf("the signer fills %d: %d %s", f, status, body)
		}
	}
	if status, body := v.json("/api/v2/signing/"+signerRec.Token+"/auth/password", map[string]any{"password": password}); status != http.StatusOK {
		t.Fatalf("password: %d %s", status, body)
	}
	if status, body := v.json("/api/v2/signing/"+signerRec.Token+"/complete", map[string]any{}); status != http.StatusOK {
		t.Fatalf("the signer completes with the assistant's value: %d %s", status, body)
	}
	after, err := a.store.EnvelopeForRecipient(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range after.Fields {
		switch {
		case f.ID == texts[0] && (f.PrefilledBy == nil || *f.PrefilledBy != assistant.ID || f.CustomText != "del asistente 0"):
			t.Errorf("the kept value: %q prefilled by %v, want the assistant's", f.CustomText, f.PrefilledBy)
		case f.ID == texts[1] && (f.PrefilledBy != nil || f.CustomText != "del firmante"):
			t.Errorf("the changed value: %q prefilled by %v, want the signer's own", f.CustomText, f.PrefilledBy)
		}
	}
}

// TestAssistantCannotTouchASignedRecipientsFields: in a PARALLEL envelope a signer after the
// assistant may sign first; from then on its fields are out of the assistant's reach, and the
// assistant's view no longer lists them.
func TestAssistantCannotTouchASignedRecipientsFields(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	payload := map[string]any{"title": "Paralelo", "type": "DOCUMENT", "meta": map[string]any{"signingOrder": "PARALLEL"},
		"recipients": []any{
			map[string]any{"email": "asistente@sobre.test", "name": "Asistente", "role": "ASSISTANT", "signingOrder": 1},
			map[string]any{"email": "firmante@sobre.test", "name": "Firmante", "role": "SIGNER", "signingOrder": 2,
				"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5},
					map[string]any{"type": "TEXT", "page": 1, "positionX": 10, "positionY": 30, "width": 20, "height": 5}}},
		}}
	e := a.sendEnvelope(owner, payload, minimalPDF(fmt.Sprint("parallel ", time.Now().UnixNano())))
	assistant, signerRec := assistantAndSigner(e)
	var sig, text int64
	for _, f := range e.Fields {
		if f.Type == envelope.FieldSignature {
			sig = f.ID
		} else {
			text = f.ID
		}
	}
	fill := func(token string, fieldID int64, value string) (int, map[string]any) {
		return a.do("POST", "/api/v2/signing/"+token+"/fields", "", fmt.Sprintf(`{"fieldId":%d,"value":%q}`, fieldID, value))
	}
	if status, body := fill(signerRec.Token, sig, "Firmante"); status != http.StatusOK {
		t.Fatalf("the signer signs: %d %v", status, body)
	}
	if status, body := a.do("POST", "/api/v2/signing/"+signerRec.Token+"/complete", "", ""); status != http.StatusOK {
		t.Fatalf("the signer completes: %d %v", status, body)
	}
	status, body := fill(assistant.Token, text, "tarde")
	wantError(t, status, body, http.StatusNotFound, envelope.CodeNotFound)
	if status, v := a.do("GET", "/api/v2/signing/"+assistant.Token, "", ""); status != http.StatusOK || len(v["fields"].([]any)) != 0 || len(v["assisting"].([]any)) != 0 {
		t.Fatalf("the assistant's view after the signer signed: %d %v", status, v)
	}
}

// TestAssistantCannotOverwriteTheSignersOwnValue: a signer may fill its own fields before its
// turn; a value it typed is its own, and the assistant may neither replace nor clear it. A value
// the assistant put in may still change.
func TestAssistantCannotOverwriteTheSignersOwnValue(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	text := func(y int) map[string]any {
		return map[string]any{"type": "TEXT", "page": 1, "positionX": 10, "positionY": y, "width": 20, "height": 5}
	}
	payload := map[string]any{"title": "Secuencial", "type": "DOCUMENT", "meta": map[string]any{"signingOrder": "SEQUENTIAL"},
		"recipients": []any{
			map[string]any{"email": "asistente@sobre.test", "name": "Asistente", "role": "ASSISTANT", "signingOrder": 1},
			map[string]any{"email": "firmante@sobre.test", "name": "Firmante", "role": "SIGNER", "signingOrder": 2,
				"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5}, text(30), text(40)}},
		}}
	e := a.sendEnvelope(owner, payload, minimalPDF(fmt.Sprint("overwrite ", time.Now().UnixNano())))
	assistant, signerRec := assistantAndSigner(e)
	sig, texts := signatureAndOthers(e)
	fill := func(token string, fieldID int64, value string) (int, map[string]any) {
		return a.do("POST", "/api/v2/signing/"+token+"/fields", "", fmt.Sprintf(`{"fieldId":%d,"value":%q}`, fieldID, value))
	}
	if status, body := fill(signerRec.Token, texts[0], "del firmante"); status != http.StatusOK {
		t.Fatalf("the signer types: %d %v", status, body)
	}
	status, body := fill(assistant.Token, texts[0], "del asistente")
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidRequest)
	status, body = a.do("POST", "/api/v2/signing/"+assistant.Token+"/fields", "", fmt.Sprintf(`{"fieldId":%d,"value":null}`, texts[0]))
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidRequest)
	for _, v := range []string{"primero", "segundo"} {
		if status, body := fill(assistant.Token, texts[1], v); status != http.StatusOK {
			t.Fatalf("the assistant fills its own value %q: %d %v", v, status, body)
		}
	}
	if status, body := a.do("POST", "/api/v2/signing/"+assistant.Token+"/complete", "", ""); status != http.StatusOK {
		t.Fatalf("the assistant completes: %d %v", status, body)
	}
	if status, body := fill(signerRec.Token, sig, "Firmante"); status != http.StatusOK {
		t.Fatalf("the signer signs: %d %v", status, body)
	}
	if status, body := a.do("POST", "/api/v2/signing/"+signerRec.Token+"/complete", "", ""); status != http.StatusOK {
		t.Fatalf("the signer completes: %d %v", status, body)
	}
	got, err := a.store.EnvelopeForRecipient(context.Background(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range got.Fields {
		if f.ID == texts[0] && (f.CustomText != "del firmante" || f.PrefilledBy != nil) {
			t.Errorf("the signer's field holds %q prefilled by %v, want the signer's own value", f.CustomText, f.PrefilledBy)
		}
	}
}

// TestAssistantLeavesAloneWhoMayAct: a recipient who may act while the assistant works (a PARALLEL
// envelope; a shared signingOrder) could load its page, then sign a value the assistant changed
// after: the assistant fills none of its fields, and its view does not list them.
func TestAssistantLeavesAloneWhoMayAct(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	for _, tc := range []struct {
		name, order string
		signerOrder int
	}{{"parallel", "PARALLEL", 2}, {"same order", "SEQUENTIAL", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			payload := map[string]any{"title": tc.name, "type": "DOCUMENT", "meta": map[string]any{"signingOrder": tc.order},
				"recipients": []any{
					map[string]any{"email": "asistente@sobre.test", "name": "Asistente", "role": "ASSISTANT", "signingOrder": 1},
					map[string]any{"email": "firmante@sobre.test", "name": "Firmante", "role": "SIGNER", "signingOrder": tc.signerOrder,
						"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5},
							map[string]any{"type": "TEXT", "page": 1, "positionX": 10, "positionY": 30, "width": 20, "height": 5}}},
				}}
			e := a.sendEnvelope(owner, payload, minimalPDF(fmt.Sprint(tc.name, " ", time.Now().UnixNano())))
			assistant, _ := assistantAndSigner(e)
			_, texts := signatureAndOthers(e)
			status, body := a.do("POST", "/api/v2/signing/"+assistant.Token+"/fields", "", fmt.Sprintf(`{"fieldId":%d,"value":"del asistente"}`, texts[0]))
			wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidRequest)
			if status, v := a.do("GET", "/api/v2/signing/"+assistant.Token, "", ""); status != http.StatusOK || len(v["fields"].([]any)) != 0 || len(v["assisting"].([]any)) != 0 {
				t.Fatalf("the assistant's view: %d %v", status, v)
			}
		})
	}
}

// TestAssistantProvesOnlyItsOwnBrowsersPrefills: an ASSISTANT that must prove itself (PASSWORD)
// vouches, by completing, for the values it put in the later signer's fields; one typed through
// its link in another browser is named, and refused, until its own browser gives or clears it.
func TestAssistantProvesOnlyItsOwnBrowsersPrefills(t *testing.T) {
	a := newTestAPIWithWorkflows(t)
	owner := a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin)
	email := fmt.Sprintf("assistant-proves-%d@sobre.test", time.Now().UnixNano())
	const password = "assistant's good passphrase"
	a.signerAccount(email, password)
	payload := map[string]any{"title": "Poder", "type": "DOCUMENT", "meta": map[string]any{"signingOrder": "SEQUENTIAL"},
		"recipients": []any{
			map[string]any{"email": email, "name": "Asistente", "role": "ASSISTANT", "signingOrder": 1, "actionAuth": []string{"PASSWORD"}},
			map[string]any{"email": "firmante@sobre.test", "name": "Firmante", "role": "SIGNER", "signingOrder": 2,
				"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5},
					map[string]any{"type": "TEXT", "page": 1, "positionX": 10, "positionY": 30, "width": 20, "height": 5}}},
		}}
	e := a.sendEnvelope(owner, payload, minimalPDF(fmt.Sprint("assistant proves ", time.Now().UnixNano())))
	assistant, _ := assistantAndSigner(e)
	_, texts := signatureAndOthers(e)
	text := texts[0]

	// Someone else holding the assistant's link types into the signer's field, with no browser session.
	forwarded := newAccountBrowser(t, a)
	if status, body := forwarded.json("/api/v2/signing/"+assistant.Token+"/fields", map[string]any{"fieldId": text, "value": "renuncia"}); status != http.StatusOK {
		t.Fatalf("the forwarded link prefills: %d %s", status, body)
	}
	ab := newAccountBrowser(t, a)
	ab.signIn(email, password)
	status, _, page := ab.get("/sign/" + assistant.Token)
	if status != http.StatusOK || strings.Contains(page, "renuncia") || !strings.Contains(page, fmt.Sprintf(`data-field="%d" data-type="TEXT" data-elsewhere="1"`, text)) {
		t.Fatalf("the assistant's page does not show the prefill as typed elsewhere: %d\n%s", status, page)
	}
	if status, _, view := ab.get("/api/v2/signing/" + assistant.Token); status != http.StatusOK || !strings.Contains(view, fmt.Sprintf(`"filledElsewhere":[%d]`, text)) {
		t.Fatalf("the assistant's view does not name the prefill typed elsewhere: %d %s", status, view)
	}
	if status, body := ab.json("/api/v2/signing/"+assistant.Token+"/auth/password", map[string]any{"password": password}); status != http.StatusOK {
		t.Fatalf("password: %d %s", status, body)
	}
	if status, body := ab.json("/api/v2/signing/"+assistant.Token+"/complete", map[string]any{}); status != http.StatusUnauthorized ||
		!strings.Contains(body, fmt.Sprintf(`"field %d was filled in another browser or session"`, text)) {
		t.Fatalf("the assistant completed over a prefill typed elsewhere, or did not name it: %d %s", status, body)
	}
	if status, body := ab.json("/api/v2/signing/"+assistant.Token+"/fields", map[string]any{"fieldId": text, "value": "acepta"}); status != http.StatusOK {
		t.Fatalf("the assistant prefills in its own browser: %d %s", status, body)
	}
	if status, body := ab.json("/api/v2/signing/"+assistant.Token+"/complete", map[string]any{}); status != http.StatusOK {
		t.Fatalf("the assistant completes: %d %s", status, body)
	}
}
