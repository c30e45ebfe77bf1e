package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
)

// directLinkOf makes a directTemplate with a direct link for its first recipient, and returns
// the template and the link's token.
func (a *testAPI) directLinkOf(key string) (*envelope.Envelope, string) {
	a.t.Helper()
	tpl := a.directTemplate(key)
	status, link := a.do("POST", "/api/v2/template/direct/create", key, fmt.Sprintf(`{"templateId":%d,"directRecipientId":%d}`, tpl.LegacyID, tpl.Recipients[0].ID))
	if status != http.StatusOK {
		a.t.Fatalf("create the direct link: %d %v", status, link)
	}
	return tpl, link["token"].(string)
}

// directOwnValues are values for every field of the template's first recipient, as a submit's
// fields list (without its brackets).
func directOwnValues(tpl *envelope.Envelope) string {
	var values []string
	for _, f := range tpl.Fields {
		if f.RecipientID == tpl.Recipients[0].ID {
			values = append(values, fmt.Sprintf(`{"fieldId":%d,"value":"Vera"}`, f.ID))
		}
	}
	return strings.Join(values, ",")
}
