package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// Attachment links are http or https URLs: creating or updating one with another scheme is a 400
// naming data.data and the scheme, and nothing is stored.
func TestAttachmentLinksAreHTTP(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	status, body := a.createRaw(key, map[string]any{"title": "t", "type": "DOCUMENT"}, map[string][]byte{"a.pdf": minimalPDF("attachments")})
	if status != 200 {
		t.Fatalf("create: %d %v", status, body)
	}
	id := body["id"].(string)
	status, created := a.do("POST", "/api/v2/envelope/attachment/create", key, fmt.Sprintf(`{"envelopeId":%q,"data":{"label":"Anexo","data":"https://example.com/anexo.pdf"}}`, id))
	if status != 200 {
		t.Fatalf("an https link: %d %v", status, created)
	}
	for _, link := range []string{"javascript:alert(document.cookie)", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", "file:///etc/passwd", "ftp://example.com/x"} {
		scheme, _, _ := strings.Cut(link, ":")
		for _, req := range []struct{ path, body string }{
			{"/api/v2/envelope/attachment/create", fmt.Sprintf(`{"envelopeId":%q,"data":{"label":"x","data":%q}}`, id, link)},
			{"/api/v2/envelope/attachment/update", fmt.Sprintf(`{"id":%q,"data":{"label":"x","data":%q}}`, created["id"], link)},
		} {
			status, body := a.do("POST", req.path, key, req.body)
			issues, _ := body["issues"].([]any)
			if status != http.StatusBadRequest || len(issues) != 1 || issues[0].(map[string]any)["path"] != "data.data" ||
				!strings.Contains(issues[0].(map[string]any)["message"].(string), scheme) {
				t.Errorf("%s %s: %d %v", req.path, link, status, body)
			}
		}
	}
	_, list := a.do("GET", "/api/v2/envelope/attachment?envelopeId="+id, key, "")
	if data := list["data"].([]any); len(data) != 1 || data[0].(map[string]any)["data"] != "https://example.com/anexo.pdf" {
		t.Errorf("attachments stored: %v", data)
	}
}
