package api

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// An expired or revoked key gets the very answer an unknown key gets: 401 with the same body, so
// a caller cannot tell a key that existed from one that never did. A key stored without an
// expiry (as keys were made before they expired) keeps working.
func TestExpiredKeyIsAnsweredAsUnknown(t *testing.T) {
	a := newTestAPI(t)
	ctx := context.Background()
	soon := time.Now().Add(time.Hour)
	expired, stored, err := a.keys.Issue(ctx, "Acme", "ana@acme.cl", "", envelope.TeamRoleMember, "", &soon)
	if err != nil {
		t.Fatal(err)
	}
	revoked := a.key("Acme", "bo@acme.cl", envelope.TeamRoleMember)
	forever := a.key("Acme", "cy@acme.cl", envelope.TeamRoleMember) // stored without an expiry
	if status, _ := a.do("GET", "/api/v2/envelope", expired, ""); status != http.StatusOK {
		t.Fatalf("key before its expiry: %d", status)
	}
	a.exec(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, stored.ID)
	got, err := a.keys.Resolve(ctx, revoked)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.store.RevokeAPIKey(ctx, got.Member.TeamID, got.ID); err != nil {
		t.Fatal(err)
	}

	_, unknownBody := a.do("GET", "/api/v2/envelope", "api_"+strings.Repeat("q", 32), "")
	for name, key := range map[string]string{"expired": expired, "revoked": revoked, "expired, as Bearer": "Bearer " + expired} {
		status, body := a.do("GET", "/api/v2/envelope", key, "")
		wantError(t, status, body, http.StatusUnauthorized, envelope.CodeUnauthorized)
		if !reflect.DeepEqual(body, unknownBody) {
			t.Errorf("%s key: body %v, an unknown key gets %v", name, body, unknownBody)
		}
	}
	if status, body := a.do("GET", "/api/v2/envelope", forever, ""); status != http.StatusOK {
		t.Errorf("key without an expiry: %d %v", status, body)
	}
}
