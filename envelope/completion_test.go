package envelope

import (
	"reflect"
	"testing"
	"time"
)

func TestComplete(t *testing.T) {
	now := time.Date(2026, 3, 4, 15, 30, 0, 0, time.UTC)
	format, tz := "yyyy-MM-dd", "UTC"
	m := Meta{DateFormat: &format, Timezone: &tz}
	yes, no := true, false
	signer := Recipient{ID: 1, Name: "Ana", Email: "ana@example.com", Role: RoleSigner, SigningStatus: SigningStatusNotSigned}
	nameless := Recipient{ID: 1, Role: RoleSigner, SigningStatus: SigningStatusNotSigned}
	other := Recipient{ID: 2, Role: RoleSigner, SigningStatus: SigningStatusNotSigned}
	otherSigned := Recipient{ID: 2, Role: RoleSigner, SigningStatus: SigningStatusSigned}
	cc := Recipient{ID: 3, Role: RoleCC, SigningStatus: SigningStatusNotSigned}
	f := func(id int64, typ FieldType, inserted bool) Field {
		return Field{ID: id, RecipientID: 1, Type: typ, Inserted: inserted}
	}
	text := func(id int64, required *bool) Field {
		g := f(id, FieldText, false)
		g.FieldMeta = &FieldMeta{Required: required}
		return g
	}
	tests := []struct {
		name     string
		r        Recipient
		rs       []Recipient
		fields   []Field
		want     CompletionDecision
		wantCode Code
	}{
		{"signed, last one: complete", signer, []Recipient{signer, otherSigned, cc},
			[]Field{f(10, FieldSignature, true)}, CompletionDecision{EnvelopeComplete: true}, ""},
		{"another still to sign", signer, []Recipient{signer, other},
			[]Field{f(10, FieldSignature, true)}, CompletionDecision{}, ""},
		{"date, name and email filled for them", signer, []Recipient{signer},
			[]Field{f(10, FieldSignature, true), f(11, FieldDate, false), f(12, FieldName, false), f(13, FieldEmail, false), f(14, FieldName, true)},
			CompletionDecision{AutoFilled: []AutoFill{{11, FieldDate, "2026-03-04"}, {12, FieldName, "Ana"}, {13, FieldEmail, "ana@example.com"}}, EnvelopeComplete: true}, ""},
		{"an empty name is not filled, and a NAME field is required", nameless, []Recipient{nameless},
			[]Field{f(10, FieldSignature, true), f(12, FieldName, false)}, CompletionDecision{}, CodeRecipientHasUnsignedFields},
		{"unsigned signature", signer, []Recipient{signer},
			[]Field{f(10, FieldSignature, false), f(11, FieldDate, false)}, CompletionDecision{}, CodeRecipientHasUnsignedFields},
		{"optional text may stay empty", signer, []Recipient{signer},
			[]Field{text(10, nil), text(11, &no)}, CompletionDecision{EnvelopeComplete: true}, ""},
		{"required text must be filled", signer, []Recipient{signer},
			[]Field{text(10, &yes)}, CompletionDecision{}, CodeRecipientHasUnsignedFields},
		{"RUT_FIRMADO is the identity step's", signer, []Recipient{signer},
			[]Field{f(10, FieldRUTFirmado, false)}, CompletionDecision{EnvelopeComplete: true}, ""},
		{"another's fields are not r's", signer, []Recipient{signer, otherSigned},
			[]Field{{ID: 20, RecipientID: 2, Type: FieldSignature}}, CompletionDecision{EnvelopeComplete: true}, ""},
		{"a viewer with no fields", Recipient{ID: 1, Role: RoleViewer, SigningStatus: SigningStatusNotSigned},
			[]Recipient{{ID: 1, Role: RoleViewer}}, nil, CompletionDecision{EnvelopeComplete: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Complete(tt.r, m, tt.rs, tt.fields, now)
			if tt.wantCode != "" {
				if ErrorCode(err) != tt.wantCode {
					t.Fatalf("Complete = %v, want %s", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Complete = %+v, want %+v", got, tt.want)
			}
		})
	}
	_, err := Complete(signer, m, []Recipient{signer}, []Field{f(10, FieldSignature, false), f(12, FieldInitials, false)}, now)
	if err == nil || err.Error() != "RECIPIENT_HAS_UNSIGNED_FIELDS: Recipient has 2 required fields to fill first: [10 12]" {
		t.Errorf("message = %v", err)
	}
}
