package api

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// The OpenAPI document and the router agree: every routed operation of /api/v2 is documented,
// and every documented operation is routed.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	r := chi.NewRouter()
	s := &Server{}
	s.envelopeRoutes(r)
	s.webhookRoutes(r)
	s.embedOriginRoutes(r)
	s.directLinkRoutes(r)
	s.directSubmitRoutes(r)
	s.bulkSendRoutes(r)
	r.Route("/signing/{token}", s.signingRoutes)
	routed := map[string]bool{}
	err := chi.Walk(r, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		routed[method+" "+strings.TrimSuffix(route, "/")] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	doc := OpenAPI()
	documented := map[string]bool{}
	for path, item := range doc["paths"].(obj) {
		for method := range item.(obj) {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	var missing, extra []string
	for k := range routed {
		if !documented[k] {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if !routed[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("routed but not in openapi.json: %v", missing)
	}
	if len(extra) > 0 {
		t.Errorf("in openapi.json but not routed: %v", extra)
	}
	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi version %v", doc["openapi"])
	}
	// Every $ref points at a defined schema.
	schemas := doc["components"].(obj)["schemas"].(obj)
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case obj:
			if ref, ok := x["$ref"].(string); ok {
				name := strings.TrimPrefix(ref, "#/components/schemas/")
				if _, ok := schemas[name]; !ok {
					t.Errorf("dangling $ref %s", ref)
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		case []obj:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)

	// The end of a signing link is documented where it shows.
	item := doc["paths"].(obj)["/signing/{token}/items/{itemId}"].(obj)["get"].(obj)["responses"].(obj)
	if _, ok := item["410"]; !ok {
		t.Errorf("signing-item does not document 410 SIGNING_LINK_ENDED")
	}
	distribute := doc["paths"].(obj)["/envelope/distribute"].(obj)["post"].(obj)["responses"].(obj)
	if _, ok := distribute["429"]; !ok {
		t.Errorf("distribute does not document 429 TOO_MANY_REQUESTS (rate limits, mail quota)")
	}
	view := schemas["SigningView"].(obj)["properties"].(obj)
	if _, ok := view["readableUntil"]; !ok {
		t.Errorf("SigningView does not document readableUntil")
	}
}
