package envelope

import (
	"errors"
	"testing"
)

// directFixture is a template owned by user 1 of team 1: recipient 1 a SIGNER with a signature
// field, 2 a SIGNER without one, 3 a CC, 4 an APPROVER, changed by change.
func directFixture(change func(e *Envelope)) *Envelope {
	e := &Envelope{ID: "t", Type: TypeTemplate, Status: StatusDraft, TeamID: 1, UserID: 1, Visibility: VisibilityEveryone,
		Recipients: []Recipient{
			{ID: 1, Role: RoleSigner, Email: "a@x.cl"},
			{ID: 2, Role: RoleSigner, Email: "b@x.cl"},
			{ID: 3, Role: RoleCC, Email: "c@x.cl"},
			{ID: 4, Role: RoleApprover, Email: "d@x.cl"},
		},
		Fields: []Field{{ID: 10, RecipientID: 1, Type: FieldSignature}, {ID: 11, RecipientID: 1, Type: FieldText}},
	}
	if change != nil {
		change(e)
	}
	return e
}

func TestMayChangeDirectLink(t *testing.T) {
	tests := []struct {
		name   string
		m      Member
		change func(*Envelope)
		want   Code
	}{
		{"owner, member", Member{TeamID: 1, UserID: 1, Role: TeamRoleMember}, nil, ""},
		{"manager of the team", Member{TeamID: 1, UserID: 2, Role: TeamRoleManager}, nil, ""},
		{"member who does not own it", Member{TeamID: 1, UserID: 2, Role: TeamRoleMember}, nil, CodeForbidden},
		{"another team", Member{TeamID: 2, UserID: 1, Role: TeamRoleAdmin}, nil, CodeNotFound},
		{"a document", Member{TeamID: 1, UserID: 1, Role: TeamRoleMember}, func(e *Envelope) { e.Type = TypeDocument }, CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codeOf(MayChangeDirectLink(tt.m, directFixture(tt.change))); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckDirectLinkCreate(t *testing.T) {
	id := func(v int64) *int64 { return &v }
	none := []ActionAuth{ActionAuthExplicitNone}
	tests := []struct {
		name     string
		hasLink  bool
		direct   *int64
		change   func(*Envelope)
		want     Code
		wantPath string
	}{
		{"a signer with a signature field", false, id(1), nil, "", ""},
		{"an approver needs no field", false, id(4), nil, "", ""},
		{"placeholder", false, nil, nil, "", ""},
		{"second link", true, id(1), nil, CodeAlreadyExists, ""},
		{"recipient of another envelope", false, id(9), nil, CodeNotFound, ""},
		{"a CC", false, id(3), nil, CodeInvalidBody, "directRecipientId"},
		{"a signer without a signature field", false, id(2), nil, CodeMissingSignatureField, "directRecipientId"},
		{"a RUT_FIRMADO field", false, id(1), func(e *Envelope) {
			e.Fields = append(e.Fields, Field{ID: 12, RecipientID: 1, Type: FieldRUTFirmado})
		}, CodeInvalidBody, "directRecipientId"},
		{"placeholder's address taken", false, nil, func(e *Envelope) { e.Recipients[1].Email = "Direct.Link@documenso.com" }, CodeInvalidBody, "directRecipientId"},
		{"template access auth", false, id(1), func(e *Envelope) { e.AuthOptions.GlobalAccessAuth = []AccessAuth{AccessAuthAccount} },
			CodeInvalidBody, "authOptions.globalAccessAuth"},
		{"template access auth, placeholder", false, nil, func(e *Envelope) { e.AuthOptions.GlobalAccessAuth = []AccessAuth{AccessAuthTwoFactorAuth} },
			CodeInvalidBody, "authOptions.globalAccessAuth"},
		{"template action auth", false, id(1), func(e *Envelope) { e.AuthOptions.GlobalActionAuth = []ActionAuth{ActionAuthClaveUnica} },
			CodeInvalidBody, "authOptions.globalActionAuth"},
		{"template EXPLICIT_NONE", false, id(1), func(e *Envelope) { e.AuthOptions.GlobalActionAuth = none }, "", ""},
		{"recipient access auth", false, id(1), func(e *Envelope) { e.Recipients[0].AuthOptions.AccessAuth = []AccessAuth{AccessAuthAccount} },
			CodeInvalidBody, "recipients.authOptions.accessAuth"},
		{"recipient action auth", false, id(1), func(e *Envelope) { e.Recipients[0].AuthOptions.ActionAuth = []ActionAuth{ActionAuthPasskey} },
			CodeInvalidBody, "recipients.authOptions.actionAuth"},
		{"recipient EXPLICIT_NONE", false, id(1), func(e *Envelope) { e.Recipients[0].AuthOptions.ActionAuth = none }, "", ""},
		{"expected RUN", false, id(1), func(e *Envelope) { r := "12345678-5"; e.Recipients[0].ExpectedRUT = &r },
			CodeInvalidBody, "recipients.expectedRut"},
		{"another recipient's auth does not matter", false, id(1), func(e *Envelope) {
			e.Recipients[1].AuthOptions.ActionAuth = []ActionAuth{ActionAuthClaveUnica}
		}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDirectLinkCreate(directFixture(tt.change), tt.hasLink, tt.direct)
			if got := codeOf(err); got != tt.want {
				t.Fatalf("got %q (%v), want %q", got, err, tt.want)
			}
			if tt.wantPath != "" && issuePath(err) != tt.wantPath {
				t.Fatalf("path %q, want %q", issuePath(err), tt.wantPath)
			}
		})
	}
}

func TestCheckDirectUse(t *testing.T) {
	tests := []struct {
		name   string
		link   DirectLink
		change func(*Envelope)
		want   Code
	}{
		{"enabled, ready", DirectLink{Enabled: true, RecipientID: 1}, func(e *Envelope) { e.Recipients = e.Recipients[:1] }, ""},
		{"disabled", DirectLink{Enabled: false, RecipientID: 1}, func(e *Envelope) { e.Recipients = e.Recipients[:1] }, CodeLinkEnded},
		{"another signer lacks a signature field", DirectLink{Enabled: true, RecipientID: 1}, nil, CodeMissingSignatureField},
		{"direct recipient gone", DirectLink{Enabled: true, RecipientID: 7}, nil, CodeInvalidRequest},
		{"direct recipient became a CC", DirectLink{Enabled: true, RecipientID: 1}, func(e *Envelope) {
			e.Recipients = e.Recipients[:1]
			e.Recipients[0].Role = RoleCC
		}, CodeInvalidBody},
		{"auth added to the template since", DirectLink{Enabled: true, RecipientID: 1}, func(e *Envelope) {
			e.Recipients = e.Recipients[:1]
			e.AuthOptions.GlobalActionAuth = []ActionAuth{ActionAuthFAOHash}
		}, CodeInvalidBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codeOf(CheckDirectUse(directFixture(tt.change), tt.link)); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckDirectVisitor(t *testing.T) {
	tests := []struct {
		name  string
		v     DirectVisitor
		paths []string
	}{
		{"name and email", DirectVisitor{Name: "Vera", Email: "vera@x.cl"}, nil},
		{"no email", DirectVisitor{Name: "Vera"}, []string{"email"}},
		{"not an email", DirectVisitor{Name: "Vera", Email: "vera"}, []string{"email"}},
		{"no name", DirectVisitor{Email: "vera@x.cl"}, []string{"name"}},
		{"nothing", DirectVisitor{}, []string{"email", "name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Problems
			CheckDirectVisitor(&p, tt.v)
			var got []string
			var e *Error
			if errors.As(p.Err(), &e) {
				for _, i := range e.Issues {
					got = append(got, i.Path)
				}
			}
			if len(got) != len(tt.paths) {
				t.Fatalf("issues at %v, want %v", got, tt.paths)
			}
			for i := range got {
				if got[i] != tt.paths[i] {
					t.Fatalf("issues at %v, want %v", got, tt.paths)
				}
			}
		})
	}
}

func TestDirectCreatedAudit(t *testing.T) {
	a := DirectCreatedAudit("Inscripción", 7, "vera@x.cl")
	data := a.Data.(map[string]any)
	src := data["source"].(map[string]any)
	if a.Type != AuditDocumentCreated || data["title"] != "Inscripción" || src["type"] != SourceTemplateDirectLink ||
		src["templateId"] != int64(7) || src["directRecipientEmail"] != "vera@x.cl" {
		t.Fatalf("got %+v", a)
	}
}

// issuePath is the path of err's first issue, "" for none.
func issuePath(err error) string {
	e, ok := err.(*Error)
	if !ok || len(e.Issues) == 0 {
		return ""
	}
	return e.Issues[0].Path
}

func TestCheckDirectLinkKept(t *testing.T) {
	linked := func(change func(*Envelope)) func(*Envelope) {
		return func(e *Envelope) {
			e.DirectLink = &DirectLink{Enabled: true, RecipientID: 1}
			if change != nil {
				change(e)
			}
		}
	}
	tests := []struct {
		name   string
		change func(*Envelope)
		want   Code
	}{
		{"no link: anything goes", func(e *Envelope) { e.AuthOptions.GlobalAccessAuth = []AccessAuth{AccessAuthAccount} }, ""},
		{"link, unchanged", linked(nil), ""},
		{"link, signature field removed: the page says not ready", linked(func(e *Envelope) { e.Fields = nil }), ""},
		{"link, direct recipient became a CC", linked(func(e *Envelope) { e.Recipients[0].Role = RoleCC }), CodeInvalidBody},
		{"link, template access auth", linked(func(e *Envelope) { e.AuthOptions.GlobalAccessAuth = []AccessAuth{AccessAuthAccount} }), CodeInvalidBody},
		{"link, direct recipient action auth", linked(func(e *Envelope) { e.Recipients[0].AuthOptions.ActionAuth = []ActionAuth{ActionAuthPassword} }), CodeInvalidBody},
		{"link, another recipient's auth", linked(func(e *Envelope) { e.Recipients[1].AuthOptions.AccessAuth = []AccessAuth{AccessAuthAccount} }), ""},
		{"link, direct recipient removed", linked(func(e *Envelope) { e.Recipients = e.Recipients[1:] }), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codeOf(CheckDirectLinkKept(directFixture(tt.change))); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
