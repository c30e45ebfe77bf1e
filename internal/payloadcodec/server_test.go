package payloadcodec_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/sobre-sign/sobre/internal/payloadcodec"
)

const uiOrigin = "http://127.0.0.1:8233"

func post(t *testing.T, url string, body []byte, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func sealedBody(t *testing.T, c *payloadcodec.Codec, data string) []byte {
	t.Helper()
	sealed, err := c.Encode([]*commonpb.Payload{{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(data)}})
	if err != nil {
		t.Fatal(err)
	}
	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: sealed})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func TestCodecServerDecodesForTheWebUI(t *testing.T) {
	c := payloadcodec.New(ring(t, "k1"))
	srv := httptest.NewServer(payloadcodec.Handler(c, payloadcodec.ServerOptions{Origins: []string{uiOrigin}}))
	defer srv.Close()
	body := sealedBody(t, c, `{"email":"ana@example.cl"}`)
	if bytes.Contains(body, []byte("ana@example.cl")) {
		t.Fatal("the request already holds the address in clear")
	}

	resp, got := post(t, srv.URL+"/decode", body, map[string]string{"Origin": uiOrigin, "X-Namespace": "default"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != uiOrigin {
		t.Fatalf("decode: %d %v %s", resp.StatusCode, resp.Header, got)
	}
	var out struct {
		Payloads []struct {
			Metadata map[string][]byte `json:"metadata"`
			Data     []byte            `json:"data"`
		} `json:"payloads"`
	}
	if err := json.Unmarshal(got, &out); err != nil || len(out.Payloads) != 1 {
		t.Fatalf("decode answer %s: %v", got, err)
	}
	if string(out.Payloads[0].Data) != `{"email":"ana@example.cl"}` || string(out.Payloads[0].Metadata["encoding"]) != "json/plain" {
		t.Fatalf("decoded %+v", out.Payloads[0])
	}

	// The browser's preflight.
	req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/decode", nil)
	req.Header.Set("Origin", uiOrigin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type,x-namespace")
	pre, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	pre.Body.Close()
	if pre.StatusCode != http.StatusNoContent || pre.Header.Get("Access-Control-Allow-Origin") != uiOrigin ||
		!strings.Contains(pre.Header.Get("Access-Control-Allow-Headers"), "X-Namespace") || !strings.Contains(pre.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Fatalf("preflight: %d %v", pre.StatusCode, pre.Header)
	}

	// Another site's page cannot have a visitor's browser decode.
	if resp, _ := post(t, srv.URL+"/decode", body, map[string]string{"Origin": "https://evil.example"}); resp.StatusCode != http.StatusForbidden ||
		resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a foreign origin: %d %v", resp.StatusCode, resp.Header)
	}
	// Encode answers too (the Web UI encodes the input of a signal it sends).
	if resp, got := post(t, srv.URL+"/encode", []byte(`{"payloads":[{"data":"eyJ4IjoxfQ=="}]}`), nil); resp.StatusCode != http.StatusOK ||
		!strings.Contains(string(got), "YmluYXJ5L2VuY3J5cHRlZA==") { // base64 of "binary/encrypted"
		t.Errorf("encode: %d %s", resp.StatusCode, got)
	}
	// Only POST.
	if resp, err := http.Get(srv.URL + "/decode"); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %v %v", resp.StatusCode, err)
	}
	// A body above the limit is refused.
	big := append([]byte(`{"payloads":[{"data":"`), bytes.Repeat([]byte("A"), payloadcodec.MaxRequestBytes)...)
	if resp, _ := post(t, srv.URL+"/decode", append(big, `"}]}`...), nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a body over the limit: %d", resp.StatusCode)
	}
}

func TestCodecServerToken(t *testing.T) {
	c := payloadcodec.New(ring(t, "k1"))
	srv := httptest.NewServer(payloadcodec.Handler(c, payloadcodec.ServerOptions{Origins: []string{uiOrigin}, Token: "s3cret-codec"}))
	defer srv.Close()
	body := sealedBody(t, c, `"x"`)
	for _, h := range []map[string]string{nil, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret-codec"}} {
		if resp, got := post(t, srv.URL+"/decode", body, h); resp.StatusCode != http.StatusUnauthorized || bytes.Contains(got, []byte(`"x"`)) {
			t.Errorf("%v: %d %s, want 401", h, resp.StatusCode, got)
		}
	}
	if resp, got := post(t, srv.URL+"/decode", body, map[string]string{"Authorization": "Bearer s3cret-codec"}); resp.StatusCode != http.StatusOK {
		t.Errorf("with the token: %d %s", resp.StatusCode, got)
	}
	// The preflight carries no credentials and is answered without them.
	req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/decode", nil)
	req.Header.Set("Origin", uiOrigin)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Errorf("preflight with a token set: %v %v", resp.StatusCode, err)
	}
}

// A payload sealed with a key the server does not hold is refused with the key's name.
func TestCodecServerUnknownKey(t *testing.T) {
	srv := httptest.NewServer(payloadcodec.Handler(payloadcodec.New(ring(t, "k2")), payloadcodec.ServerOptions{}))
	defer srv.Close()
	resp, got := post(t, srv.URL+"/decode", sealedBody(t, payloadcodec.New(ring(t, "k1")), `"x"`), nil)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(got), `"k1"`) {
		t.Errorf("unknown key: %d %s", resp.StatusCode, got)
	}
}
