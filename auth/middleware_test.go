package auth_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sobre-sign/sobre/auth"
	"github.com/sobre-sign/sobre/envelope"
)

func TestRequireRole(t *testing.T) {
	var got envelope.Code
	writeError := func(w http.ResponseWriter, r *http.Request, err error) {
		got = envelope.ErrorCode(err)
		w.WriteHeader(map[envelope.Code]int{envelope.CodeForbidden: 403, envelope.CodeUnauthorized: 401}[got])
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	h := auth.RequireRole(writeError, envelope.TeamRoleManager, envelope.TeamRoleAdmin)(ok)
	tests := []struct {
		name   string
		member *envelope.Member
		want   int
	}{
		{"no member", nil, 401},
		{"member", &envelope.Member{Role: envelope.TeamRoleMember}, 403},
		{"manager", &envelope.Member{Role: envelope.TeamRoleManager}, 204},
		{"admin", &envelope.Member{Role: envelope.TeamRoleAdmin}, 204},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/", nil)
			if tt.member != nil {
				req = req.WithContext(auth.WithMember(req.Context(), *tt.member))
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Errorf("status %d, want %d (code %s)", rec.Code, tt.want, got)
			}
		})
	}
}
