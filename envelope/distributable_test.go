package envelope

import "testing"

func TestCheckDistributable(t *testing.T) {
	signer := Recipient{ID: 1, Email: "s@example.com", Role: RoleSigner}
	sig := Field{ID: 10, RecipientID: 1, Type: FieldSignature}
	items := []Item{{ID: "item_1"}}
	ready := func() *Envelope {
		return &Envelope{Type: TypeDocument, Status: StatusDraft, Recipients: []Recipient{signer}, Fields: []Field{sig}, Items: items}
	}
	with := func(change func(e *Envelope)) *Envelope { e := ready(); change(e); return e }
	tests := []struct {
		name   string
		e      *Envelope
		want   Code
		issues string // the first issue's path and message, when want has issues
	}{
		{"ready draft", ready(), "", ""},
		{"a template is used, never sent", with(func(e *Envelope) { e.Type = TypeTemplate }), CodeInvalidRequest, ""},
		{"pending (sending to recipients added later)", with(func(e *Envelope) { e.Status = StatusPending }), "", ""},
		{"free signature counts", with(func(e *Envelope) { e.Fields[0].Type = FieldFreeSignature }), "", ""},
		{"completed", with(func(e *Envelope) { e.Status = StatusCompleted }), CodeEnvelopeCompleted, ""},
		{"cancelled before anything else", with(func(e *Envelope) { e.Status = StatusCancelled; e.Recipients = nil }), CodeEnvelopeCancelled, ""},
		{"no recipients", with(func(e *Envelope) { e.Recipients = nil }), CodeInvalidRequest, ""},
		{"no documents", with(func(e *Envelope) { e.Items = nil }), CodeInvalidRequest, ""},
		{"auth without email", with(func(e *Envelope) {
			e.Recipients = append(e.Recipients, Recipient{ID: 2, Role: RoleViewer, AuthOptions: RecipientAuthOptions{ActionAuth: []ActionAuth{ActionAuthExplicitNone}}})
		}), CodeInvalidBody, "recipients[1].email recipient 2 needs an email address for its authentication"},
		{"envelope's auth without email", with(func(e *Envelope) {
			e.AuthOptions.GlobalAccessAuth = []AccessAuth{AccessAuthTwoFactorAuth}
			e.Recipients = append(e.Recipients, Recipient{ID: 2, Role: RoleApprover})
		}), CodeInvalidBody, "recipients[1].email recipient 2 needs an email address for its authentication"},
		{"CC with auth needs no email", with(func(e *Envelope) {
			e.AuthOptions.GlobalAccessAuth = []AccessAuth{AccessAuthTwoFactorAuth}
			e.Recipients = append(e.Recipients, Recipient{ID: 2, Role: RoleCC})
		}), "", ""},
		{"the direct link's placeholder is never mailed", with(func(e *Envelope) {
			e.Recipients = append(e.Recipients, Recipient{ID: 2, Role: RoleCC, Email: "Direct.Link@documenso.com"})
		}), CodeInvalidBody, "recipients[1].email recipient 2 still has the direct link's placeholder address direct.link@documenso.com, which stands for a visitor; give it a real address"},
		{"no auth, no email", with(func(e *Envelope) { e.Recipients = append(e.Recipients, Recipient{ID: 2, Role: RoleViewer}) }), "", ""},
		{"signer without signature field", with(func(e *Envelope) {
			e.Recipients = append(e.Recipients, Recipient{ID: 2, Role: RoleSigner, Email: "b@example.com"}, Recipient{ID: 3, Role: RoleSigner})
			e.Fields = append(e.Fields, Field{ID: 11, RecipientID: 2, Type: FieldName})
		}), CodeMissingSignatureField, " signers without a signature field: b@example.com, (no email)"},
		{"another's signature field does not count", with(func(e *Envelope) { e.Fields[0].RecipientID = 9 }), CodeMissingSignatureField,
			" signers without a signature field: s@example.com"},
		{"approver needs no signature field", with(func(e *Envelope) { e.Recipients[0].Role = RoleApprover; e.Fields = nil }), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDistributable(tt.e)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckDistributable = %v, want nil", err)
				}
				return
			}
			if ErrorCode(err) != tt.want {
				t.Fatalf("CheckDistributable = %v, want %s", err, tt.want)
			}
			if tt.issues != "" {
				is := err.(*Error).Issues
				if len(is) != 1 || is[0].Path+" "+is[0].Message != tt.issues {
					t.Errorf("issues = %+v, want %q", is, tt.issues)
				}
			}
		})
	}
}
