package api

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// A part whose Content-Disposition cannot be read (an unescaped quote in its file name) is a
// 400 naming the part, never a part dropped without a word (an envelope made without its
// document); an escaped quote is a file name like any other.
func TestMultipartUnreadableDisposition(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	post := func(payloadDisposition, fileDisposition string) (int, map[string]any) {
		t.Helper()
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		raw, _ := json.Marshal(map[string]any{"title": "Comillas", "type": "DOCUMENT"})
		pw, err := w.CreatePart(textproto.MIMEHeader{"Content-Disposition": {payloadDisposition}})
		if err != nil {
			t.Fatal(err)
		}
		pw.Write(raw)
		fw, err := w.CreatePart(textproto.MIMEHeader{"Content-Disposition": {fileDisposition}, "Content-Type": {"application/pdf"}})
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(minimalPDF("comillas"))
		w.Close()
		req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/api/v2/envelope/create", &b)
		req.Header.Set("Authorization", key)
		req.Header.Set("Content-Type", w.FormDataContentType())
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	issue := func(body map[string]any) string {
		issues, _ := body["issues"].([]any)
		if len(issues) != 1 {
			return ""
		}
		i, _ := issues[0].(map[string]any)
		s, _ := i["path"].(string)
		return s
	}
	payload := `form-data; name="payload"`
	status, body := post(payload, `form-data; name="files"; filename="contrato "final".pdf"`)
	if status != http.StatusBadRequest || issue(body) != "files" {
		t.Errorf("unescaped quote in a file name: %d %v; want a 400 naming files", status, body)
	}
	status, body = post(`form-data; name="payload"; x="a"b"`, `form-data; name="files"; filename="a.pdf"`)
	if status != http.StatusBadRequest || issue(body) != "payload" {
		t.Errorf("unreadable payload part: %d %v; want a 400 naming payload", status, body)
	}
	status, body = post(payload, `form-data; name="files"; filename="contrato \"final\".pdf"`)
	if status != http.StatusOK {
		t.Fatalf("escaped quote: %d %v", status, body)
	}
	e, err := a.store.EnvelopeForRecipient(t.Context(), body["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Items) != 1 {
		t.Errorf("escaped quote: %d items, want 1", len(e.Items))
	}
}
