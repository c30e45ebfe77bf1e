package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// TestBulkSendNeverMailsTheDirectLinkPlaceholder: a template whose direct link made a
// placeholder recipient (envelope.DirectRecipientEmail), given a signature field, is bulk sent
// with rows that name only the other recipients: no document goes to the placeholder's address,
// which stands for a visitor; each row is FAILED naming the recipient to fill in.
func TestBulkSendNeverMailsTheDirectLinkPlaceholder(t *testing.T) {
	a, _ := newBulkTestAPI(t)
	key := a.key("Bulk", "owner@bulk.test", envelope.TeamRoleAdmin)
	tpl := a.directTemplate(key)
	status, link := a.do("POST", "/api/v2/template/direct/create", key, fmt.Sprintf(`{"templateId":%d}`, tpl.LegacyID))
	if status != http.StatusOK {
		t.Fatalf("create link: %d %v", status, link)
	}
	placeholder := int64(link["directTemplateRecipientId"].(float64))
	status, body := a.do("POST", "/api/v2/envelope/field/create-many", key, fmt.Sprintf(`{"envelopeId":%q,"data":[{"recipientId":%d,"type":"SIGNATURE",
		"page":1,"positionX":50,"positionY":50,"width":10,"height":5}]}`, tpl.ID, placeholder))
	if status != http.StatusOK {
		t.Fatalf("placeholder's field: %d %v", status, body)
	}
	csv := "recipient_1_email,recipient_2_email,recipient_3_email,recipient_4_email\n" +
		"uno@bulk.test,dos@bulk.test,tres@bulk.test,\n"
	status, body = a.bulkCSV(key, tpl.ID, csv, true)
	if status != http.StatusOK {
		t.Fatalf("bulk send: %d %v", status, body)
	}
	got := a.waitBulk(key, body["jobId"].(string))
	row := got["rows"].([]any)[0].(map[string]any)
	if row["status"] != string(envelope.BulkRowFailed) || !strings.Contains(fmt.Sprint(row["error"]), envelope.DirectRecipientEmail) {
		t.Errorf("row 1: %v, want FAILED naming %s", row, envelope.DirectRecipientEmail)
	}
}
