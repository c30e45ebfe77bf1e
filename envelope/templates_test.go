package envelope

import (
	"encoding/json"
	"testing"
)

func TestApplyPrefill(t *testing.T) {
	one, two := 1, 2
	no := false
	options := []FieldValue{{ID: &one, Checked: &no, Value: "Sí"}, {ID: &two, Checked: &no, Value: "No"}}
	min, max, limit := 1.0, 10.0, 5
	fields := map[string]Field{
		"text":      {ID: 1, Type: FieldText, FieldMeta: &FieldMeta{Type: "text", CharacterLimit: &limit}},
		"number":    {ID: 2, Type: FieldNumber, FieldMeta: &FieldMeta{Type: "number", MinValue: &min, MaxValue: &max}},
		"radio":     {ID: 3, Type: FieldRadio, FieldMeta: &FieldMeta{Type: "radio", Values: options}},
		"checkbox":  {ID: 4, Type: FieldCheckbox, FieldMeta: &FieldMeta{Type: "checkbox", Values: options}},
		"dropdown":  {ID: 5, Type: FieldDropdown, FieldMeta: &FieldMeta{Type: "dropdown", Values: []FieldValue{{Value: "a"}, {Value: "b"}}}},
		"date":      {ID: 6, Type: FieldDate},
		"signature": {ID: 7, Type: FieldSignature},
	}
	meta := DefaultMeta("m")
	tests := []struct {
		name, field, typ, value string
		wantPath                string
		check                   func(t *testing.T, f Field)
	}{
		{"text", "text", "text", `"hola"`, "", func(t *testing.T, f Field) {
			if *f.FieldMeta.Text != "hola" || f.Inserted {
				t.Errorf("text %+v", f)
			}
		}},
		{"text over limit", "text", "text", `"holaaa"`, "p.value", nil},
		{"number", "number", "number", `"7"`, "", func(t *testing.T, f Field) {
			if *f.FieldMeta.Value != "7" {
				t.Errorf("value %v", f.FieldMeta.Value)
			}
		}},
		{"number out of range", "number", "number", `"70"`, "p.value", nil},
		{"number not a number", "number", "number", `"siete"`, "p.value", nil},
		{"radio", "radio", "radio", `"No"`, "", func(t *testing.T, f Field) {
			if *f.FieldMeta.Values[0].Checked || !*f.FieldMeta.Values[1].Checked {
				t.Errorf("checked %+v", f.FieldMeta.Values)
			}
		}},
		{"radio unknown", "radio", "radio", `"Quizás"`, "p.value", nil},
		{"checkbox", "checkbox", "checkbox", `["Sí","No"]`, "", func(t *testing.T, f Field) {
			if !*f.FieldMeta.Values[0].Checked || !*f.FieldMeta.Values[1].Checked {
				t.Errorf("checked %+v", f.FieldMeta.Values)
			}
		}},
		{"checkbox not an array", "checkbox", "checkbox", `"Sí"`, "p.value", nil},
		{"checkbox unknown", "checkbox", "checkbox", `["x"]`, "p.value", nil},
		{"dropdown", "dropdown", "dropdown", `"b"`, "", func(t *testing.T, f Field) {
			if *f.FieldMeta.DefaultValue != "b" {
				t.Errorf("default %v", f.FieldMeta.DefaultValue)
			}
		}},
		{"dropdown unknown", "dropdown", "dropdown", `"c"`, "p.value", nil},
		{"date", "date", "date", `"2026-03-05T14:07:00Z"`, "", func(t *testing.T, f Field) {
			if f.CustomText != "2026-03-05 02:07 PM" || !f.Inserted {
				t.Errorf("date %q inserted %v", f.CustomText, f.Inserted)
			}
		}},
		{"date invalid", "date", "date", `"mañana"`, "p.value", nil},
		{"type mismatch", "text", "number", `"1"`, "p.type", nil},
		{"unknown type", "text", "rut", `"1"`, "p.type", nil},
		{"signature cannot be prefilled", "signature", "text", `"x"`, "p.type", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Problems
			typ := tt.typ
			id := fields[tt.field].ID
			before, _ := json.Marshal(fields[tt.field])
			got := ApplyPrefill(&p, "p", fields[tt.field], Prefill{ID: &id, Type: &typ, Value: json.RawMessage(tt.value)}, meta)
			after, _ := json.Marshal(fields[tt.field])
			if string(before) != string(after) {
				t.Fatal("the template's field was changed")
			}
			if tt.wantPath == "" {
				if p.Len() != 0 {
					t.Fatalf("problems %v", p.issues)
				}
				if tt.check != nil {
					tt.check(t, got)
				}
				return
			}
			if p.Len() != 1 || p.issues[0].Path != tt.wantPath {
				t.Errorf("problems %v, want one at %s", p.issues, tt.wantPath)
			}
		})
	}
}

func TestMatchFiles(t *testing.T) {
	items := []string{"item_a", "item_b"}
	files := []string{"nuevo.pdf", "otro.pdf"}
	tests := []struct {
		name     string
		custom   []CustomDocument
		files    []string
		want     map[string]int
		wantCode Code
		wantPath string
	}{
		{"by name", []CustomDocument{{"otro.pdf", "item_b"}}, files, map[string]int{"item_b": 1}, "", ""},
		{"by index", []CustomDocument{{float64(0), "item_a"}}, files, map[string]int{"item_a": 0}, "", ""},
		{"both items", []CustomDocument{{"nuevo.pdf", "item_a"}, {float64(1), "item_b"}}, files, map[string]int{"item_a": 0, "item_b": 1}, "", ""},
		{"unknown file name", []CustomDocument{{"x.pdf", "item_a"}}, files, nil, CodeNotFound, ""},
		{"index out of range", []CustomDocument{{float64(5), "item_a"}}, files, nil, CodeNotFound, ""},
		{"unknown item", []CustomDocument{{"nuevo.pdf", "item_z"}}, files, nil, CodeNotFound, ""},
		{"item twice", []CustomDocument{{"nuevo.pdf", "item_a"}, {"otro.pdf", "item_a"}}, files, nil, "", "customDocumentData[1].envelopeItemId"},
		{"bad identifier", []CustomDocument{{true, "item_a"}}, files, nil, "", "customDocumentData[0].identifier"},
		{"too many files", nil, []string{"1", "2", "3"}, nil, "", "files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Problems
			got, err := MatchFiles(&p, tt.custom, tt.files, items)
			if tt.wantCode != "" {
				if ErrorCode(err) != tt.wantCode {
					t.Fatalf("error %v, want %s", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantPath != "" {
				if p.Len() == 0 || p.issues[0].Path != tt.wantPath {
					t.Fatalf("problems %v, want %s", p.issues, tt.wantPath)
				}
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
	if !SameLayout([][2]float64{{595, 842}}, [][2]float64{{595.28, 841.89}}) || SameLayout([][2]float64{{595, 842}}, [][2]float64{{842, 595}}) ||
		SameLayout([][2]float64{{595, 842}}, [][2]float64{{595, 842}, {595, 842}}) {
		t.Error("SameLayout")
	}
}

// A prefill of the wrong type names the template's field as the caller named it: the field it
// fills is a copy, not stored yet.
func TestApplyPrefillNamesTheTemplatesField(t *testing.T) {
	var p Problems
	id, typ := int64(3), "text"
	ApplyPrefill(&p, "prefillFields[0]", Field{Type: FieldRUT}, Prefill{ID: &id, Type: &typ, Value: json.RawMessage(`"x"`)}, DefaultMeta("m"))
	if p.Len() != 1 || p.issues[0].Message != "field 3 is a RUT field, not text" {
		t.Errorf("problems %v", p.issues)
	}
}
