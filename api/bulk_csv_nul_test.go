package api

import (
	"net/http"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// TestBulkSendCSVWithANulByte: a CSV holding a NUL byte (which PostgreSQL text cannot store) is
// a 400 naming the row and column, not a server error.
func TestBulkSendCSVWithANulByte(t *testing.T) {
	a, _ := newBulkTestAPI(t)
	key := a.key("Bulk", "owner@bulk.test", envelope.TeamRoleAdmin)
	tpl := a.bulkTemplate(key)
	status, body := a.bulkCSV(key, tpl, "recipient_1_email,recipient_1_name\nuno@bulk.test,Un\x00o\n", true)
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidBody)
}
