package envelope

import (
	"encoding/json"
	"testing"
)

// What Documenso's clients are shown of an entry: null lists as empty ones, only Documenso's
// change types, Chile's field types as TEXT; everything else as written, and the entry itself
// untouched.
func TestDocumensoAuditData(t *testing.T) {
	tests := []struct {
		name string
		typ  AuditType
		data string
		want string
	}{
		{"recipient created without auth", AuditRecipientCreated, `{"accessAuth":null,"actionAuth":null,"recipientId":8}`,
			`{"accessAuth":[],"actionAuth":[],"recipientId":8}`},
		{"recipient created with Sobre's methods", AuditRecipientCreated, `{"accessAuth":["ACCOUNT"],"actionAuth":["CLAVE_UNICA","PASSKEY","FAO_HASH"],"recipientId":8}`,
			`{"accessAuth":["ACCOUNT"],"actionAuth":["PASSKEY"],"recipientId":8}`},
		{"an action auth change with Sobre's methods", AuditRecipientUpdated,
			`{"changes":[{"from":["FAO_HASH"],"to":["CLAVE_UNICA","PASSWORD"],"type":"ACTION_AUTH"}]}`,
			`{"changes":[{"from":[],"to":["PASSWORD"],"type":"ACTION_AUTH"}]}`},
		{"opened without auth", AuditOpened, `{"accessAuth":null,"recipientId":8}`, `{"accessAuth":[],"recipientId":8}`},
		{"recipient updated with an expected RUN", AuditRecipientUpdated,
			`{"changes":[{"from":"a@x","to":"b@x","type":"EMAIL"},{"from":"12345678-5","to":null,"type":"EXPECTED_RUT"}]}`,
			`{"changes":[{"from":"a@x","to":"b@x","type":"EMAIL"}]}`},
		{"field updated: type and item left out", AuditFieldUpdated,
			`{"changes":[{"from":"TEXT","to":"NUMBER","type":"TYPE"},{"from":{"height":5,"width":30},"to":{"height":5,"width":31},"type":"DIMENSION"},{"from":"i1","to":"i2","type":"ENVELOPE_ITEM"}],"fieldId":"f"}`,
			`{"changes":[{"from":{"height":5,"width":30},"to":{"height":5,"width":31},"type":"DIMENSION"}],"fieldId":"f"}`},
		{"field updated, nothing moved", AuditFieldUpdated, `{"changes":null,"fieldId":"f"}`, `{"changes":[],"fieldId":"f"}`},
		{"RUT_FIRMADO inserted", AuditFieldInserted, `{"field":{"data":"12345678-5","type":"RUT_FIRMADO"},"fieldId":"f"}`,
			`{"field":{"data":"12345678-5","type":"TEXT"},"fieldId":"f"}`},
		{"RUT inserted", AuditFieldInserted, `{"field":{"data":"12345678-5","type":"RUT"},"fieldId":"f"}`,
			`{"field":{"data":"12345678-5","type":"TEXT"},"fieldId":"f"}`},
		{"a signature as it is", AuditFieldInserted, `{"field":{"data":"Ana","type":"SIGNATURE"},"fieldId":"f"}`,
			`{"field":{"data":"Ana","type":"SIGNATURE"},"fieldId":"f"}`},
		{"meta changes as they are", AuditMetaUpdated, `{"changes":[{"from":"a","to":"b","type":"SUBJECT"}]}`,
			`{"changes":[{"from":"a","to":"b","type":"SUBJECT"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var data map[string]any
			if err := json.Unmarshal([]byte(tt.data), &data); err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(DocumensoAuditData(tt.typ, data))
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if again, _ := json.Marshal(data); string(again) != tt.data {
				t.Errorf("the entry itself changed: %s", again)
			}
		})
	}
}
