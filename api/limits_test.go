package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/testpdf"
)

// minimalPDF returns a valid one-page PDF with a line of text.
func minimalPDF(text string) []byte { return testpdf.Minimal(text) }

// multipartBody encodes payload and files as the SDK does.
func multipartBody(t testing.TB, payload any, files map[string][]byte) (io.Reader, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	var raw []byte
	if r, ok := payload.(rawJSON); ok {
		raw = []byte(r)
	} else {
		var err error
		if raw, err = json.Marshal(payload); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteField("payload", string(raw)); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		fw, err := w.CreateFormFile("files[]", name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
	}
	w.Close()
	return &b, w.FormDataContentType()
}

func (a *testAPI) createRaw(key string, payload any, files map[string][]byte) (int, map[string]any) {
	a.t.Helper()
	body, ct := multipartBody(a.t, payload, files)
	return a.postMultipart("/api/v2/envelope/create", key, body, ct)
}

// createBase creates basePayload's envelope with a one-page PDF and returns its id.
func (a *testAPI) createBase(key string) string {
	a.t.Helper()
	status, body := a.createRaw(key, basePayload(), map[string][]byte{"a.pdf": minimalPDF("x")})
	if status != 200 {
		a.t.Fatalf("create: %d %v", status, body)
	}
	return body["id"].(string)
}

// postMultipart posts a multipart body with the key and decodes the JSON answer.
func (a *testAPI) postMultipart(path, key string, body io.Reader, contentType string) (int, map[string]any) {
	a.t.Helper()
	req, _ := http.NewRequest("POST", a.srv.URL+path, body)
	req.Header.Set("Authorization", key)
	req.Header.Set("Content-Type", contentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// basePayload is a valid create payload; each limit case changes one member of it.
func basePayload() map[string]any {
	return map[string]any{
		"title": "Contrato",
		"type":  "DOCUMENT",
		"recipients": []any{map[string]any{
			"email": "ana@example.com", "name": "Ana", "role": "SIGNER",
			"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 10, "height": 5,
				"fieldMeta": map[string]any{"type": "signature", "fontSize": 12}}},
		}},
		"meta":        map[string]any{"subject": "s", "message": "m", "envelopeExpirationPeriod": map[string]any{"unit": "day", "amount": 1}},
		"attachments": []any{map[string]any{"label": "l", "data": "https://example.com"}},
	}
}

// set walks a dotted path ("recipients.0.fields.0.page") and sets the value there.
func set(m map[string]any, path string, v any) map[string]any {
	parts := strings.Split(path, ".")
	var cur any = m
	for i, p := range parts {
		last := i == len(parts)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[p] = v
			} else {
				cur = c[p]
			}
		case []any:
			var idx int
			fmt.Sscan(p, &idx)
			if last {
				c[idx] = v
			} else {
				cur = c[idx]
			}
		}
	}
	return m
}

// TestCreateLimitsAndEnums checks every limit of the SPEC's Limits table and every enum of the
// create payload: the value at the edge passes, the value past it is a 400 naming the field.
func TestCreateLimitsAndEnums(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	files := map[string][]byte{"a.pdf": minimalPDF("hola")}
	tests := []struct {
		path     string
		value    any
		wantPath string // "" means accepted
	}{
		{"title", strings.Repeat("t", 255), ""},
		{"title", strings.Repeat("t", 256), "title"},
		{"title", "", "title"},
		{"title", strings.Repeat("ñ", 255), ""},
		{"externalId", strings.Repeat("e", 255), ""},
		{"externalId", strings.Repeat("e", 256), "externalId"},
		{"recipients.0.name", strings.Repeat("n", 255), ""},
		{"recipients.0.name", strings.Repeat("n", 256), "recipients[0].name"},
		{"recipients.0.email", "", ""},
		{"recipients.0.email", "not-an-email", "recipients[0].email"},
		{"meta.subject", strings.Repeat("s", 254), ""},
		{"meta.subject", strings.Repeat("s", 255), "meta.subject"},
		{"meta.message", strings.Repeat("m", 5000), ""},
		{"meta.message", strings.Repeat("m", 5001), "meta.message"},
		{"attachments.0.label", "x", ""},
		{"attachments.0.label", "", "attachments[0].label"},
		{"attachments.0.data", "not a url", "attachments[0].data"},
		{"attachments.0.data", "http://example.com/a", ""},
		{"attachments.0.data", "HTTPS://EXAMPLE.COM/A", ""},
		{"attachments.0.data", "javascript:alert(document.cookie)", "attachments[0].data"},
		{"attachments.0.data", "JavaScript:alert(1)", "attachments[0].data"},
		{"attachments.0.data", " javascript:alert(1)", "attachments[0].data"},
		{"attachments.0.data", "data:text/html,<script>alert(1)</script>", "attachments[0].data"},
		{"attachments.0.data", "file:///etc/passwd", "attachments[0].data"},
		{"attachments.0.data", "vbscript:msgbox(1)", "attachments[0].data"},
		{"attachments.0.data", "mailto:ana@example.com", "attachments[0].data"},
		{"attachments.0.data", "https:///no-host", "attachments[0].data"},
		{"attachments.0.data", "//example.com/relative", "attachments[0].data"},
		{"recipients.0.fields.0.fieldMeta.fontSize", 8, ""},
		{"recipients.0.fields.0.fieldMeta.fontSize", 96, ""},
		{"recipients.0.fields.0.fieldMeta.fontSize", 7, "recipients[0].fields[0].fieldMeta.fontSize"},
		{"recipients.0.fields.0.fieldMeta.fontSize", 97, "recipients[0].fields[0].fieldMeta.fontSize"},
		{"recipients.0.fields.0.page", 1, ""},
		{"recipients.0.fields.0.page", 0, "recipients[0].fields[0].page"},
		{"recipients.0.fields.0.page", 2, "recipients[0].fields[0].page"},
		{"recipients.0.fields.0.positionX", 100, ""},
		{"recipients.0.fields.0.positionX", 100.01, "recipients[0].fields[0].positionX"},
		{"recipients.0.fields.0.positionY", 101, "recipients[0].fields[0].positionY"},
		{"recipients.0.fields.0.width", 101, "recipients[0].fields[0].width"},
		{"recipients.0.fields.0.height", 101, "recipients[0].fields[0].height"},
		{"meta.envelopeExpirationPeriod.amount", 1, ""},
		{"meta.envelopeExpirationPeriod.amount", 0, "meta.envelopeExpirationPeriod.amount"},
		{"meta.reminderSettings", map[string]any{"sendAfter": map[string]any{"unit": "day", "amount": 0}, "repeatEvery": map[string]any{"unit": "week", "amount": 1}}, "meta.reminderSettings.sendAfter.amount"},
		{"meta.reminderSettings", map[string]any{"sendAfter": map[string]any{"unit": "year", "amount": 1}, "repeatEvery": map[string]any{"unit": "week", "amount": 1}}, "meta.reminderSettings.sendAfter.unit"},
		{"meta.reminderSettings", map[string]any{"sendAfter": map[string]any{"unit": "day", "amount": 1}}, "meta.reminderSettings.repeatEvery"},
		{"meta.envelopeExpirationPeriod", map[string]any{"unit": "year", "amount": 1}, ""},
		{"meta.envelopeExpirationPeriod", map[string]any{"unit": "hour", "amount": 1}, "meta.envelopeExpirationPeriod.unit"},
		{"meta.envelopeExpirationPeriod", map[string]any{"disabled": true}, ""},
		// enums
		{"type", "TEMPLATE", ""},
		{"type", "FORM", "type"},
		{"visibility", "MANAGER_AND_ABOVE", ""},
		{"visibility", "TEAM", "visibility"},
		{"globalAccessAuth", []any{"ACCOUNT", "TWO_FACTOR_AUTH"}, ""},
		{"globalAccessAuth", []any{"PASSKEY"}, "globalAccessAuth[0]"},
		{"globalActionAuth", []any{"ACCOUNT", "PASSKEY", "TWO_FACTOR_AUTH", "PASSWORD"}, ""},
		{"globalActionAuth", []any{"CLAVE_UNICA"}, "globalActionAuth[0]"},
		{"recipients.0.role", "APPROVER", ""},
		{"recipients.0.role", "OWNER", "recipients[0].role"},
		{"recipients.0.accessAuth", []any{"ACCOUNT", "TWO_FACTOR_AUTH"}, ""},
		{"recipients.0.accessAuth", []any{"PASSWORD"}, "recipients[0].accessAuth[0]"},
		{"recipients.0.actionAuth", []any{"ACCOUNT", "PASSKEY", "TWO_FACTOR_AUTH", "PASSWORD", "EXPLICIT_NONE", "CLAVE_UNICA", "FAO_HASH"}, ""},
		{"recipients.0.actionAuth", []any{"SMS"}, "recipients[0].actionAuth[0]"},
		{"recipients.0.fields.0.type", "FREE_SIGNATURE", ""},
		{"recipients.0.fields.0.type", "STAMP", "recipients[0].fields[0].type"},
		{"meta.signingOrder", "SEQUENTIAL", ""},
		{"meta.signingOrder", "RANDOM", "meta.signingOrder"},
		{"meta.distributionMethod", "NONE", ""},
		{"meta.distributionMethod", "SMS", "meta.distributionMethod"},
		{"meta.language", "es", ""},
		{"meta.language", "fr", "meta.language"},
		{"meta.dateFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", ""},
		{"meta.dateFormat", "YYYY", "meta.dateFormat"},
		{"meta.timezone", "America/Santiago", ""},
		{"meta.timezone", "Mars/Olympus", "meta.timezone"},
		{"meta.emailReplyTo", "reply@example.com", ""},
		{"meta.emailReplyTo", "nope", "meta.emailReplyTo"},
		{"meta.redirectUrl", "https://example.com/done", ""},
		{"meta.redirectUrl", "javascript:alert(1)", "meta.redirectUrl"},
		{"attachments.0.type", "file", "attachments[0].type"},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s=%.20v", tt.path, tt.value)
		t.Run(name, func(t *testing.T) {
			status, body := a.createRaw(key, set(basePayload(), tt.path, tt.value), files)
			if tt.wantPath == "" {
				if status != http.StatusOK {
					t.Fatalf("status %d, want 200: %v", status, body)
				}
				return
			}
			if status != http.StatusBadRequest || body["code"] != "INVALID_BODY" {
				t.Fatalf("status %d code %v, want 400 INVALID_BODY: %v", status, body["code"], body)
			}
			var paths []string
			for _, i := range body["issues"].([]any) {
				paths = append(paths, i.(map[string]any)["path"].(string))
			}
			if len(paths) != 1 || paths[0] != tt.wantPath {
				t.Errorf("issue paths %v, want exactly [%s]", paths, tt.wantPath)
			}
		})
	}
}

// TestListLimits checks page and perPage of the search and the audit log.
func TestListLimits(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	id := a.createBase(key)
	for _, base := range []string{"/api/v2/envelope", "/api/v2/envelope/" + id + "/audit-log"} {
		for q, want := range map[string]int{
			"page=1": 200, "page=0": 400, "perPage=1": 200, "perPage=100": 200, "perPage=0": 400, "perPage=101": 400,
			"page=x": 400, "orderByDirection=asc": 200, "orderByDirection=sideways": 400, "orderByColumn=title": 400,
		} {
			if status, body := a.do("GET", base+"?"+q, key, ""); status != want {
				t.Errorf("%s?%s: status %d, want %d: %v", base, q, status, want, body)
			}
		}
	}
	for q, want := range map[string]int{
		"type=TEMPLATE": 200, "type=X": 400, "status=COMPLETED": 200, "status=DONE": 400,
		"source=TEMPLATE_DIRECT_LINK": 200, "source=API": 400, "hasExpiredRecipients=true": 200,
		"hasExpiredRecipients=yes": 400, "templateId=7": 200, "templateId=seven": 400,
		"query=" + strings.Repeat("q", 256): 200, "query=ab": 400, "query=abc": 200, "query=%20%20": 200, "query=" + strings.Repeat("ñ", 256): 200, "query=" + strings.Repeat("q", 257): 400,
	} {
		status, body := a.do("GET", "/api/v2/envelope?"+q, key, "")
		if status != want {
			t.Errorf("?%.40s: status %d, want %d: %v", q, status, want, body)
		}
		if name, _, _ := strings.Cut(q, "="); want == 400 && !strings.Contains(fmt.Sprint(body["issues"]), "path:"+name) {
			t.Errorf("?%.40s: the 400 does not name %s: %v", q, name, body)
		}
	}
}

// A URL whose path or query, decoded, is not UTF-8 text or holds NUL is a 400 naming the
// parameter (or "path") on every route of the API, and a 400 in plain text on a page: before,
// the database refused it and the answer was a 500.
func TestURLsMustBeText(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	for u, name := range map[string]string{
		"/api/v2/envelope?query=ab%00cd": "query", "/api/v2/envelope?query=abc%FF": "query",
		"/api/v2/envelope?folderId=%FF": "folderId", "/api/v2/envelope?folderId=a%00": "folderId",
		"/api/v2/envelope?page=1&q%00=1": "q", "/api/v2/envelope/envelope_%FF": "path",
		"/api/v2/envelope/item/a%00b/download": "path", "/api/v2/webhook/%FF/calls": "path",
		"/api/v2-beta/envelope?query=%FF": "query",
	} {
		status, body := a.do("GET", u, key, "")
		if status != 400 || !strings.Contains(fmt.Sprint(body["issues"]), "path:"+name+"]") {
			t.Errorf("GET %s: %d %v, want 400 naming %s", u, status, body, name)
		}
	}
	// A page says so in plain text, for the person who followed the link.
	for _, u := range []string{"/sign/abcdefghijklmnop%00", "/sign/abcdefghijklmnop?lang=%FF", "/account/signin?next=%FF"} {
		res, err := http.Get(a.srv.URL + u)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 400 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") || !strings.Contains(string(text), "not text") {
			t.Errorf("GET %s: %d %s %q, want 400 in plain text", u, res.StatusCode, res.Header.Get("Content-Type"), text)
		}
	}
	// The same requests with text are answered as before.
	if status, body := a.do("GET", "/api/v2/envelope?query=abcd&folderId=x", key, ""); status != 200 {
		t.Errorf("a text query: %d %v", status, body)
	}
}

// An update-many names each recipient, field or document once: one named twice is a 400 naming
// the second, and nothing is changed.
func TestUpdateManyNamesEachOnce(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	id := a.createBase(key)
	_, e := a.do("GET", "/api/v2/envelope/"+id, key, "")
	rid := e["recipients"].([]any)[0].(map[string]any)["id"]
	fid := e["fields"].([]any)[0].(map[string]any)["id"]
	iid := e["envelopeItems"].([]any)[0].(map[string]any)["id"]
	for _, tt := range []struct{ path, body, issue string }{
		{"/api/v2/envelope/recipient/update-many", fmt.Sprintf(`{"envelopeId":%q,"data":[{"id":%v,"name":"Uno"},{"id":%v,"name":"Dos"}]}`, id, rid, rid), "data[1].id"},
		{"/api/v2/envelope/field/update-many", fmt.Sprintf(`{"envelopeId":%q,"data":[{"id":%v,"positionX":20},{"id":%v,"positionX":30}]}`, id, fid, fid), "data[1].id"},
		{"/api/v2/envelope/item/update-many", fmt.Sprintf(`{"envelopeId":%q,"data":[{"envelopeItemId":%q,"title":"Uno"},{"envelopeItemId":%q,"title":"Dos"}]}`, id, iid, iid), "data[1].envelopeItemId"},
	} {
		status, body := a.do("POST", tt.path, key, tt.body)
		if status != 400 || !strings.Contains(fmt.Sprint(body["issues"]), "path:"+tt.issue+"]") || !strings.Contains(fmt.Sprint(body["issues"]), "appears twice") {
			t.Errorf("%s: %d %v, want 400 naming %s", tt.path, status, body, tt.issue)
		}
	}
	_, after := a.do("GET", "/api/v2/envelope/"+id, key, "")
	if fmt.Sprint(after["recipients"], after["fields"], after["envelopeItems"]) != fmt.Sprint(e["recipients"], e["fields"], e["envelopeItems"]) {
		t.Errorf("a refused update-many changed the envelope")
	}
}

// Beyond Documenso's envelope limits: too many documents or recipients is a 400 with the
// limit's own code.
func TestItemAndRecipientLimits(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	files := map[string][]byte{}
	for i := range envelope.MaxItems + 1 {
		files[fmt.Sprintf("%02d.pdf", i)] = minimalPDF(fmt.Sprint(i))
	}
	status, body := a.createRaw(key, map[string]any{"title": "t", "type": "DOCUMENT"}, files)
	if status != 400 || body["code"] != string(envelope.CodeItemLimit) {
		t.Errorf("%d files: %d %v", len(files), status, body)
	}
	var recipients []any
	for i := range envelope.MaxRecipients + 1 {
		recipients = append(recipients, map[string]any{"email": fmt.Sprintf("r%d@example.com", i), "name": "R", "role": "VIEWER"})
	}
	status, body = a.createRaw(key, map[string]any{"title": "t", "type": "DOCUMENT", "recipients": recipients}, map[string][]byte{"a.pdf": minimalPDF("x")})
	if status != 400 || body["code"] != string(envelope.CodeRecipientLimit) {
		t.Errorf("%d recipients: %d %v", len(recipients), status, body)
	}
	status, body = a.createRaw(key, map[string]any{"title": "t", "type": "DOCUMENT", "recipients": recipients[:envelope.MaxRecipients]}, map[string][]byte{"a.pdf": minimalPDF("x")})
	if status != 200 {
		t.Fatalf("%d recipients: %d %v", envelope.MaxRecipients, status, body)
	}
	id := body["id"].(string)
	status, body = a.do("POST", "/api/v2/envelope/recipient/create-many", key,
		`{"envelopeId":"`+id+`","data":[{"email":"one@example.com","name":"One","role":"VIEWER"}]}`)
	if status != 400 || body["code"] != string(envelope.CodeRecipientLimit) {
		t.Errorf("one more recipient: %d %v", status, body)
	}
}

// An envelope may be created without files, as in Documenso, but then holds no fields and
// cannot be sent until a document is added.
func TestCreateWithoutFiles(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	status, body := a.createRaw(key, map[string]any{"title": "t", "type": "DOCUMENT",
		"recipients": []any{map[string]any{"email": "a@b.cl", "name": "A", "role": "VIEWER"}}}, nil)
	if status != 200 {
		t.Fatalf("create without files: %d %v", status, body)
	}
	payload := basePayload()
	status, body = a.createRaw(key, payload, nil)
	if status != 400 || body["issues"].([]any)[0].(map[string]any)["path"] != "recipients[0].fields[0]" {
		t.Errorf("fields without a file: %d %v", status, body)
	}
}

// A redistribute lists at most envelope.MaxResendRecipients ids: a longer list (of repeats, say)
// is refused with the field named, before anything is read or sent to the workflow.
func TestRedistributeRecipientsAreCapped(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "owner@acme.test", envelope.TeamRoleAdmin)
	ids := strings.TrimSuffix(strings.Repeat("1,", envelope.MaxResendRecipients+1), ",")
	status, body := a.do("POST", "/api/v2/envelope/redistribute", key, `{"envelopeId":"envelope_abcdefghijklmnop","recipients":[`+ids+`]}`)
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidBody)
	issues, _ := body["issues"].([]any)
	if len(issues) != 1 || issues[0].(map[string]any)["path"] != "recipients" {
		t.Fatalf("issues %v, want one naming recipients", body["issues"])
	}
	// At the cap the request goes on: here to the envelope lookup, which finds none.
	ids = strings.TrimSuffix(strings.Repeat("1,", envelope.MaxResendRecipients), ",")
	status, body = a.do("POST", "/api/v2/envelope/redistribute", key, `{"envelopeId":"envelope_abcdefghijklmnop","recipients":[`+ids+`]}`)
	wantError(t, status, body, http.StatusNotFound, envelope.CodeNotFound)
}
