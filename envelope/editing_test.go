package envelope

import "testing"

func TestFillsFields(t *testing.T) {
	want := map[Role]bool{RoleSigner: true, RoleApprover: true, RoleAssistant: true, RoleViewer: false, RoleCC: false}
	for _, r := range Roles() {
		if got := r.FillsFields(); got != want[r] {
			t.Errorf("%s.FillsFields() = %v, want %v", r, got, want[r])
		}
	}
}

func TestRequireUnacted(t *testing.T) {
	fresh := Recipient{ID: 1, SigningStatus: SigningStatusNotSigned}
	signed := Recipient{ID: 2, SigningStatus: SigningStatusSigned}
	rejected := Recipient{ID: 3, SigningStatus: SigningStatusRejected}
	fields := []Field{{ID: 10, RecipientID: 1}, {ID: 11, RecipientID: 4, Inserted: true}, {ID: 12, RecipientID: 5}}
	tests := []struct {
		name   string
		r      Recipient
		change Frozen
		want   string // "" for nil
	}{
		{"not signed, nothing filled", fresh, FrozenRecipient, ""},
		{"another's filled field does not count", Recipient{ID: 5, SigningStatus: SigningStatusNotSigned}, FrozenFields, ""},
		{"signed", signed, FrozenRecipient, "INVALID_REQUEST: Recipient 2 has already interacted with the document and can no longer change"},
		{"rejected", rejected, FrozenRemoval, "INVALID_REQUEST: Recipient 3 has already interacted with the document and cannot be removed"},
		{"filled a field", Recipient{ID: 4, SigningStatus: SigningStatusNotSigned}, FrozenFields,
			"INVALID_REQUEST: Recipient 4 has already interacted with the document; its fields can no longer change"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := RequireUnacted(tt.r, fields, tt.change)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("RequireUnacted = %q, want %q", got, tt.want)
			}
			if Acted(tt.r, fields) != (tt.want != "") {
				t.Errorf("Acted = %v", !(tt.want != ""))
			}
		})
	}
}
