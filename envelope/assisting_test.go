package envelope

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

func TestFollows(t *testing.T) {
	tests := []struct {
		name string
		q, p Participant
		want bool
	}{
		{"higher order follows", part(2, RoleSigner, 3, ns), part(1, RoleAssistant, 1, ns), true},
		{"same order follows", part(2, RoleSigner, 1, ns), part(1, RoleAssistant, 1, ns), true},
		{"lower order does not", part(2, RoleSigner, 0, ns), part(1, RoleAssistant, 1, ns), false},
		{"no order after an order", part(2, RoleSigner, -1, ns), part(1, RoleAssistant, 5, ns), true},
		{"an order never after no order", part(2, RoleSigner, 5, ns), part(1, RoleAssistant, -1, ns), false},
		{"neither ordered: higher id follows", part(2, RoleSigner, -1, ns), part(1, RoleAssistant, -1, ns), true},
		{"neither ordered: lower id does not", part(1, RoleSigner, -1, ns), part(2, RoleAssistant, -1, ns), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Follows(tt.q, tt.p); got != tt.want {
				t.Errorf("Follows = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAssists(t *testing.T) {
	a := part(1, RoleAssistant, 1, ns)
	tests := []struct {
		name     string
		a, owner Participant
		typ      FieldType
		want     bool
		parallel bool
	}{
		{"later signer's text", a, part(2, RoleSigner, 2, ns), FieldText, true, false},
		{"later approver's dropdown", a, part(2, RoleApprover, 2, ns), FieldDropdown, true, false},
		{"never a date (Sobre fills it)", a, part(2, RoleApprover, 2, ns), FieldDate, false, false},
		{"not a same-order signer: it may act already", a, part(2, RoleSigner, 1, ns), FieldName, false, false},
		{"not a later signer of a PARALLEL envelope: it may act already", a, part(2, RoleSigner, 2, ns), FieldText, false, true},
		{"later signer's email", a, part(2, RoleSigner, 2, ns), FieldEmail, true, false},
		{"never initials", a, part(2, RoleSigner, 2, ns), FieldInitials, false, false},
		{"never a signature", a, part(2, RoleSigner, 2, ns), FieldSignature, false, false},
		{"never a free signature", a, part(2, RoleSigner, 2, ns), FieldFreeSignature, false, false},
		{"never RUT_FIRMADO", a, part(2, RoleSigner, 2, ns), FieldRUTFirmado, false, false},
		{"a RUT it may", a, part(2, RoleSigner, 2, ns), FieldRUT, true, false},
		{"not an earlier recipient", a, part(2, RoleSigner, 0, ns), FieldText, false, false},
		{"not one who signed", a, part(2, RoleSigner, 2, sg), FieldText, false, false},
		{"not one who rejected", a, part(2, RoleSigner, 2, rj), FieldText, false, false},
		{"not a CC", a, part(2, RoleCC, 2, ns), FieldText, false, false},
		{"not its own (MayFill decides those)", a, a, FieldText, false, false},
		{"a signer assists nobody", part(1, RoleSigner, 1, ns), part(2, RoleSigner, 2, ns), FieldText, false, false},
		{"an approver assists nobody", part(1, RoleApprover, 1, ns), part(2, RoleSigner, 2, ns), FieldText, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			order := SigningOrderSequential
			if tt.parallel {
				order = SigningOrderParallel
			}
			if got := Assists(order, []Participant{tt.a, tt.owner}, tt.a, tt.owner, tt.typ); got != tt.want {
				t.Errorf("Assists = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMayFillField(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	past := now.Add(-time.Hour)
	expired := func(p Participant) Participant { p.ExpiresAt = &past; return p }
	seq := []Participant{part(1, RoleSigner, 1, sg), part(2, RoleAssistant, 2, ns), part(3, RoleSigner, 3, ns), part(4, RoleSigner, 4, ns)}
	waiting := []Participant{part(1, RoleSigner, 1, ns), part(2, RoleAssistant, 2, ns), part(3, RoleSigner, 3, ns)}
	tests := []struct {
		name          string
		order         SigningOrder
		ps            []Participant
		filler, owner int64
		typ           FieldType
		want          Code // "" for nil
	}{
		{"own field", SigningOrderSequential, seq, 3, 3, FieldText, ""},
		{"own field before its turn", SigningOrderSequential, waiting, 3, 3, FieldText, ""},
		{"own field once signed", SigningOrderSequential, seq, 1, 1, FieldText, CodeRecipientAlreadySigned},
		{"own field past its deadline", SigningOrderSequential, []Participant{expired(part(1, RoleSigner, 1, ns))}, 1, 1, FieldText, CodeRecipientExpired},
		{"assistant: later signer's text", SigningOrderSequential, seq, 2, 3, FieldText, ""},
		{"assistant: the one after", SigningOrderSequential, seq, 2, 4, FieldCheckbox, ""},
		{"assistant: later signer's signature", SigningOrderSequential, seq, 2, 3, FieldSignature, CodeInvalidRequest},
		{"assistant: later signer's RUT_FIRMADO", SigningOrderSequential, seq, 2, 3, FieldRUTFirmado, CodeInvalidRequest},
		{"assistant: earlier recipient", SigningOrderSequential, waiting, 2, 1, FieldText, CodeNotFound},
		{"assistant: signed recipient", SigningOrderSequential,
			[]Participant{part(2, RoleAssistant, 2, ns), part(3, RoleSigner, 2, sg)}, 2, 3, FieldText, CodeNotFound},
		{"assistant: before its turn", SigningOrderSequential, waiting, 2, 3, FieldText, CodeRecipientOutOfTurn},
		{"assistant: after it completed", SigningOrderSequential,
			[]Participant{part(2, RoleAssistant, 2, sg), part(3, RoleSigner, 3, ns)}, 2, 3, FieldText, CodeRecipientAlreadySigned},
		{"assistant: owner past its deadline", SigningOrderSequential,
			[]Participant{part(2, RoleAssistant, 2, ns), expired(part(3, RoleSigner, 3, ns))}, 2, 3, FieldText, CodeRecipientExpired},
		{"assistant: parallel, later order (the owner may act)", SigningOrderParallel, waiting, 2, 3, FieldText, CodeInvalidRequest},
		{"assistant: same order (the owner may act)", SigningOrderSequential,
			[]Participant{part(2, RoleAssistant, 2, ns), part(3, RoleSigner, 2, ns)}, 2, 3, FieldText, CodeInvalidRequest},
		{"assistant: parallel, the owner held back by an approver", SigningOrderParallel,
			[]Participant{part(1, RoleApprover, 1, ns), part(2, RoleAssistant, 1, ns), part(3, RoleSigner, 2, ns)}, 2, 3, FieldText, ""},
		{"signer: another's field", SigningOrderParallel, waiting, 1, 3, FieldText, CodeNotFound},
		{"unknown filler", SigningOrderParallel, waiting, 9, 3, FieldText, CodeNotFound},
		{"unknown owner", SigningOrderParallel, waiting, 2, 9, FieldText, CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := MayFillField(tt.order, tt.ps, tt.filler, tt.owner, tt.typ, now)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("MayFillField = %v, want nil", err)
				}
				return
			}
			if got := ErrorCode(err); got != tt.want {
				t.Errorf("MayFillField = %v (%s), want %s", err, got, tt.want)
			}
		})
	}
}

func TestFieldsToFill(t *testing.T) {
	ps := []Participant{part(1, RoleSigner, 1, sg), part(2, RoleAssistant, 2, ns), part(3, RoleSigner, 3, ns), part(4, RoleCC, 4, ns)}
	fields := []Field{
		{ID: 10, RecipientID: 1, Type: FieldText},
		{ID: 11, RecipientID: 2, Type: FieldText},
		{ID: 12, RecipientID: 3, Type: FieldText},
		{ID: 13, RecipientID: 3, Type: FieldSignature},
		{ID: 14, RecipientID: 3, Type: FieldRUTFirmado},
		{ID: 15, RecipientID: 3, Type: FieldDate},
		{ID: 17, RecipientID: 3, Type: FieldNumber},
		{ID: 16, RecipientID: 4, Type: FieldText},
	}
	ids := func(fs []Field) []int64 {
		var out []int64
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}
	tests := []struct {
		name string
		id   int64
		want []int64
	}{
		{"assistant: its own and the later signer's, no signature, no date", 2, []int64{11, 12, 17}},
		{"signer: its own only", 3, []int64{12, 13, 14, 15, 17}},
		{"signed signer: its own", 1, []int64{10}},
		{"unknown", 9, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(FieldsToFill(SigningOrderSequential, ps, tt.id, fields)); !slices.Equal(got, tt.want) {
				t.Errorf("FieldsToFill = %v, want %v", got, tt.want)
			}
		})
	}
}

// A prefilled value reads to Documenso's clients in Documenso's type, as an inserted one does.
func TestPrefilledIsDocumensos(t *testing.T) {
	a := Recipient{ID: 5, Email: "asis@example.cl", Name: "Asistente", Role: RoleAssistant}
	owner := Recipient{ID: 7, Email: "ana@example.cl", Name: "Ana", Role: RoleSigner}
	rut := Field{ID: 11, SecondaryID: "cfield1", Type: FieldRUT, RecipientID: 7}
	if AuditFieldPrefilled.Extension() {
		t.Error("DOCUMENT_FIELD_PREFILLED is Documenso's own type, listed to its clients")
	}
	var data map[string]any
	b, _ := json.Marshal(FieldPrefilledAudit(a, owner, rut, "12345678-5").Data)
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	if got := DocumensoAuditData(AuditFieldPrefilled, data)["field"].(map[string]any)["type"]; got != string(FieldText) {
		t.Errorf("a prefilled RUT reads to Documenso's clients as %v, want TEXT", got)
	}
}

func TestMayReplaceValue(t *testing.T) {
	assistant := int64(1)
	tests := []struct {
		name string
		f    Field
		ok   bool
	}{
		{"an empty field", Field{ID: 7}, true},
		{"a field its recipient cleared", Field{ID: 7, FilledBy: "session-b"}, true},
		{"the assistant's own value", Field{ID: 7, Inserted: true, CustomText: "a", FilledBy: "session-a", PrefilledBy: &assistant}, true},
		{"the sender's preset", Field{ID: 7, Inserted: true, CustomText: "p", FilledBy: FilledBySender}, true},
		{"the recipient's own value", Field{ID: 7, Inserted: true, CustomText: "b", FilledBy: "session-b"}, false},
		{"the recipient's value through its link", Field{ID: 7, Inserted: true, CustomText: "b", FilledBy: "link"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := MayReplaceValue(tt.f); (err == nil) != tt.ok {
				t.Errorf("MayReplaceValue = %v, want ok %v", err, tt.ok)
			}
		})
	}
}
