package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// TestDirectSubmitTakesOnlyTheDirectRecipientsFields: a value for another recipient's field, for
// another template's field, for a field twice, an empty signature or an externalId over
// MaxExternalID is 400, and none makes a document (five: the client's limit a minute).
func TestDirectSubmitTakesOnlyTheDirectRecipientsFields(t *testing.T) {
	a := newTestAPI(t)
	key := a.key("Acme", "owner@acme.test", envelope.TeamRoleMember)
	tpl, token := a.directLinkOf(key)
	other := a.directTemplate(key)
	direct := tpl.Recipients[0]
	var sig, text, berta, foreign int64
	for _, f := range tpl.Fields {
		switch {
		case f.RecipientID == direct.ID && f.Type == envelope.FieldSignature:
			sig = f.ID
		case f.RecipientID == direct.ID:
			text = f.ID
		default:
			berta = f.ID
		}
	}
	foreign = other.Fields[0].ID
	own := fmt.Sprintf(`{"fieldId":%d,"value":"Vera"},{"fieldId":%d,"value":"x"}`, sig, text)
	before := a.envelopeCount()
	for _, c := range []struct{ name, email, externalID, fields string }{
		{"another recipient's field", "v@visita.test", `"e"`, own + fmt.Sprintf(`,{"fieldId":%d,"value":"Berta"}`, berta)},
		{"another template's field", "v@visita.test", `"e"`, own + fmt.Sprintf(`,{"fieldId":%d,"value":"x"}`, foreign)},
		{"a field twice", "v@visita.test", `"e"`, own + fmt.Sprintf(`,{"fieldId":%d,"value":"x"}`, text)},
		{"an empty signature", "v@visita.test", `"e"`, fmt.Sprintf(`{"fieldId":%d,"value":""},{"fieldId":%d,"value":"x"}`, sig, text)},
		{"externalId too long", "v@visita.test", fmt.Sprintf("%q", strings.Repeat("e", envelope.MaxExternalID+1)), own},
	} {
		status, body := a.do("POST", "/api/v2/direct/"+token, "", fmt.Sprintf(`{"name":"Vera","email":%q,"externalId":%s,
			"templateUpdatedAt":%q,"fields":[%s]}`, c.email, c.externalID, tpl.UpdatedAt.Format(time.RFC3339Nano), c.fields))
		if status != http.StatusBadRequest {
			t.Errorf("%s: %d %v", c.name, status, body)
		}
	}
	if after := a.envelopeCount(); after != before {
		t.Errorf("refused submits made %d envelopes", after-before)
	}
}
