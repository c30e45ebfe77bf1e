package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// Uploads are normalised: a document that hides content or would cost too much to read is a 400
// naming the file and why, and nothing is written; an accepted one keeps its upload, byte for
// byte, as the original, and the normalised document is what the default download gives before
// completion.
func TestUploadsAreNormalisedOrRefused(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for _, c := range []struct{ file, reason string }{
		{"ocg-hidden.pdf", "hidden by default"},
		{"xfa.pdf", "dynamic XFA"},
		{"objstm-bomb.pdf", "more than 64 MiB"},
		{"image-bomb.pdf", "pixels"},
	} {
		status, body := a.createRaw(key, map[string]any{"title": "t", "type": "DOCUMENT"}, map[string][]byte{c.file: read(c.file)})
		issues, _ := body["issues"].([]any)
		if status != 400 || body["code"] != string(envelope.CodeInvalidBody) || len(issues) != 1 {
			t.Errorf("%s: %d %v", c.file, status, body)
			continue
		}
		issue := issues[0].(map[string]any)
		if issue["path"] != "files[0]" || !strings.Contains(issue["message"].(string), c.file) || !strings.Contains(issue["message"].(string), c.reason) {
			t.Errorf("%s: issue %v, want files[0] naming the file and %q", c.file, issue, c.reason)
		}
	}
	upload := read("javascript.pdf")
	status, body := a.createRaw(key, map[string]any{"title": "t", "type": "DOCUMENT"}, map[string][]byte{"javascript.pdf": upload})
	if status != 200 {
		t.Fatalf("create: %d %v", status, body)
	}
	id := body["id"].(string)
	status, env := a.do("GET", "/api/v2/envelope/"+id, key, "")
	if status != 200 {
		t.Fatalf("get: %d %v", status, env)
	}
	itemID := env["envelopeItems"].([]any)[0].(map[string]any)["id"].(string)
	get := func(version string) []byte {
		req, _ := http.NewRequest("GET", a.srv.URL+"/api/v2/envelope/item/"+itemID+"/download?version="+version, nil)
		req.Header.Set("Authorization", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("download %s: %d %s", version, res.StatusCode, b)
		}
		return b
	}
	if got := get("original"); string(got) != string(upload) {
		t.Error("the original download is not the upload byte for byte")
	}
	var current []byte
	err := a.store.InTx(context.Background(), func(tx *persistence.Tx) (err error) {
		current, err = tx.ItemData(context.Background(), itemID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(current), "/JavaScript") || strings.Contains(string(current), "/OpenAction") {
		t.Error("the stored document still holds JavaScript")
	}
	// Before completion, "signed" (and no version, Documenso's default) is the document as it is
	// now: the normalised one, not the upload.
	for _, version := range []string{"signed", ""} {
		if got := get(version); string(got) != string(current) {
			t.Errorf("download version=%q of a DRAFT: %d bytes, not the current document's %d", version, len(got), len(current))
		}
	}
	req, _ := http.NewRequest("GET", a.srv.URL+"/api/v2/envelope/item/"+itemID+"/download?version=latest", nil)
	req.Header.Set("Authorization", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("download version=latest: %d, want 400", res.StatusCode)
	}
}

// A sent envelope's documents are frozen: a field placed by placeholder (which would white the
// text out) is refused naming why, and the document is untouched; placing by coordinates for a
// recipient who has not acted still works.
func TestPlaceholderRefusedOnceSent(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "ana@acme.cl", envelope.TeamRoleAdmin)
	payload := map[string]any{"title": "t", "type": "DOCUMENT",
		"recipients": []any{map[string]any{"email": "ana@example.com", "name": "Ana", "role": "SIGNER"}}}
	status, body := a.createRaw(key, payload, map[string][]byte{"a.pdf": minimalPDF("Firma: {{sig}}")})
	if status != 200 {
		t.Fatalf("create: %d %v", status, body)
	}
	id := body["id"].(string)
	_, env := a.do("GET", "/api/v2/envelope/"+id, key, "")
	itemID := env["envelopeItems"].([]any)[0].(map[string]any)["id"].(string)
	recipientID := env["recipients"].([]any)[0].(map[string]any)["id"].(float64)
	ctx := context.Background()
	stored := func() (data []byte) {
		if err := a.store.InTx(ctx, func(tx *persistence.Tx) (err error) { data, err = tx.ItemData(ctx, itemID); return err }); err != nil {
			t.Fatal(err)
		}
		return data
	}
	before := stored()
	if _, err := a.store.MarkPending(ctx, id, nil); err != nil { // the workflow's first step
		t.Fatal(err)
	}
	field := func(extra string) string {
		return fmt.Sprintf(`{"envelopeId":%q,"data":[{"recipientId":%d,"type":"SIGNATURE",%s}]}`, id, int64(recipientID), extra)
	}
	status, body = a.do("POST", "/api/v2/envelope/field/create-many", key, field(`"placeholder":"{{sig}}"`))
	issues, _ := body["issues"].([]any)
	if status != 400 || len(issues) != 1 || issues[0].(map[string]any)["path"] != "data[0].placeholder" ||
		!strings.Contains(issues[0].(map[string]any)["message"].(string), "frozen") {
		t.Errorf("placeholder on a PENDING envelope: %d %v", status, body)
	}
	if !bytes.Equal(stored(), before) {
		t.Error("the document changed after it was sent")
	}
	status, body = a.do("POST", "/api/v2/envelope/field/create-many", key, field(`"page":1,"positionX":10,"positionY":10,"width":10,"height":5`))
	if status != 200 {
		t.Errorf("a field by coordinates on a PENDING envelope: %d %v", status, body)
	}
}
