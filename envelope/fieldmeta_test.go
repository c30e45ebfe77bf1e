package envelope

import (
	"encoding/json"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestValidateFieldMeta(t *testing.T) {
	opt := func(id int, checked bool, v string) FieldValue {
		return FieldValue{ID: &id, Checked: &checked, Value: v}
	}
	tests := []struct {
		name      string
		typ       FieldType
		meta      FieldMeta
		wantPaths []string
		check     func(t *testing.T, out *FieldMeta)
	}{
		{"signature defaults", FieldSignature, FieldMeta{}, nil, func(t *testing.T, out *FieldMeta) {
			if out.Type != "signature" {
				t.Errorf("type %q", out.Type)
			}
		}},
		{"free signature is signature", FieldFreeSignature, FieldMeta{Type: "signature"}, nil, nil},
		{"wrong type", FieldText, FieldMeta{Type: "number"}, []string{"m.type"}, nil},
		{"font size bounds", FieldText, FieldMeta{FontSize: ptr(8.0)}, nil, nil},
		{"font size too small", FieldText, FieldMeta{FontSize: ptr(7.9)}, []string{"m.fontSize"}, nil},
		{"font size too big", FieldName, FieldMeta{FontSize: ptr(96.5)}, []string{"m.fontSize"}, nil},
		{"overflow", FieldEmail, FieldMeta{Overflow: ptr("wrap")}, []string{"m.overflow"}, nil},
		{"text align", FieldDate, FieldMeta{TextAlign: ptr("justify")}, []string{"m.textAlign"}, nil},
		{"label too long", FieldText, FieldMeta{Label: ptr(string(make([]byte, 256)))}, []string{"m.label"}, nil},
		{"text within limit", FieldText, FieldMeta{Text: ptr("hola"), CharacterLimit: ptr(4)}, nil, nil},
		{"text over limit", FieldText, FieldMeta{Text: ptr("hola!"), CharacterLimit: ptr(4)}, []string{"m.text"}, nil},
		{"character limit zero", FieldText, FieldMeta{CharacterLimit: ptr(0)}, []string{"m.characterLimit"}, nil},
		{"vertical align", FieldText, FieldMeta{VerticalAlign: ptr("center")}, []string{"m.verticalAlign"}, nil},
		{"number in range", FieldNumber, FieldMeta{Value: ptr("5"), MinValue: ptr(1.0), MaxValue: ptr(10.0)}, nil, nil},
		{"number decimal comma", FieldNumber, FieldMeta{Value: ptr("2,5")}, nil, nil},
		{"number not a number", FieldNumber, FieldMeta{Value: ptr("five")}, []string{"m.value"}, nil},
		{"number below min", FieldNumber, FieldMeta{Value: ptr("0"), MinValue: ptr(1.0)}, []string{"m.value"}, nil},
		{"number above max", FieldNumber, FieldMeta{Value: ptr("11"), MaxValue: ptr(10.0)}, []string{"m.value"}, nil},
		{"min above max", FieldNumber, FieldMeta{MinValue: ptr(5.0), MaxValue: ptr(1.0)}, []string{"m.minValue"}, nil},
		{"radio ok", FieldRadio, FieldMeta{Values: []FieldValue{opt(1, true, "Sí"), opt(2, false, "No")}}, nil, nil},
		{"radio two checked", FieldRadio, FieldMeta{Values: []FieldValue{opt(1, true, "Sí"), opt(2, true, "No")}}, []string{"m.values"}, nil},
		{"radio missing id and checked", FieldRadio, FieldMeta{Values: []FieldValue{{Value: "x"}}}, []string{"m.values[0].id", "m.values[0].checked"}, nil},
		{"radio repeated value", FieldRadio, FieldMeta{Values: []FieldValue{opt(1, false, "a"), opt(2, false, "a")}}, []string{"m.values[1].value"}, nil},
		{"radio direction", FieldRadio, FieldMeta{Direction: ptr("diagonal")}, []string{"m.direction"}, nil},
		{"checkbox several checked", FieldCheckbox, FieldMeta{Values: []FieldValue{opt(1, true, "a"), opt(2, true, "b")}}, nil, nil},
		{"checkbox rule", FieldCheckbox, FieldMeta{Values: []FieldValue{opt(1, false, "a"), opt(2, false, "b")}, ValidationRule: ptr("Select at least"), ValidationLength: ptr(2)}, nil, nil},
		{"checkbox unknown rule", FieldCheckbox, FieldMeta{Values: []FieldValue{opt(1, false, "a")}, ValidationRule: ptr("Select some"), ValidationLength: ptr(1)}, []string{"m.validationRule"}, nil},
		{"checkbox length over options", FieldCheckbox, FieldMeta{Values: []FieldValue{opt(1, false, "a")}, ValidationRule: ptr("Select exactly"), ValidationLength: ptr(2)}, []string{"m.validationLength"}, nil},
		{"dropdown ok", FieldDropdown, FieldMeta{Values: []FieldValue{{Value: "a"}, {Value: "b"}}, DefaultValue: ptr("b")}, nil, nil},
		{"dropdown default not an option", FieldDropdown, FieldMeta{Values: []FieldValue{{Value: "a"}}, DefaultValue: ptr("c")}, []string{"m.defaultValue"}, nil},
		{"dropdown empty option", FieldDropdown, FieldMeta{Values: []FieldValue{{Value: " "}}}, []string{"m.values[0].value"}, nil},
		{"rut normalised", FieldRUT, FieldMeta{Text: ptr("12.345.678-5")}, nil, func(t *testing.T, out *FieldMeta) {
			if *out.Text != "12345678-5" {
				t.Errorf("text %q, want 12345678-5", *out.Text)
			}
		}},
		{"rut with K", FieldRUT, FieldMeta{Text: ptr("10.000.013-k")}, nil, func(t *testing.T, out *FieldMeta) {
			if *out.Text != "10000013-K" {
				t.Errorf("text %q", *out.Text)
			}
		}},
		{"rut bad check digit", FieldRUT, FieldMeta{Text: ptr("12.345.678-9")}, []string{"m.text"}, nil},
		{"rut firmado takes no default", FieldRUTFirmado, FieldMeta{Text: ptr("12345678-5")}, []string{"m.text"}, nil},
		{"read-only signature", FieldSignature, FieldMeta{ReadOnly: ptr(true)}, []string{"m.readOnly"}, nil},
		{"read-only text needs default", FieldText, FieldMeta{ReadOnly: ptr(true)}, []string{"m.readOnly"}, nil},
		{"read-only text with default", FieldText, FieldMeta{ReadOnly: ptr(true), Text: ptr("fijo")}, nil, nil},
		{"foreign members dropped", FieldSignature, FieldMeta{Text: ptr("x"), Values: []FieldValue{{Value: "a"}}, TextAlign: ptr("left")}, nil, func(t *testing.T, out *FieldMeta) {
			if out.Text != nil || out.Values != nil || out.TextAlign != nil {
				t.Errorf("kept foreign members: %+v", out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Problems
			m := tt.meta
			out := ValidateFieldMeta(&p, "m", tt.typ, &m)
			var paths []string
			for _, i := range p.issues {
				paths = append(paths, i.Path)
			}
			if len(paths) != len(tt.wantPaths) {
				t.Fatalf("problems %v, want paths %v", p.issues, tt.wantPaths)
			}
			for i := range paths {
				if paths[i] != tt.wantPaths[i] {
					t.Errorf("problem %d at %s, want %s (%v)", i, paths[i], tt.wantPaths[i], p.issues)
				}
			}
			if tt.check != nil {
				tt.check(t, out)
			}
		})
	}
	var p Problems
	if ValidateFieldMeta(&p, "m", FieldText, nil) != nil || p.Len() != 0 {
		t.Error("nil meta should stay nil without problems")
	}
}

func FuzzValidateFieldMeta(f *testing.F) {
	f.Add([]byte(`{"type":"text","text":"hola","characterLimit":10}`), 6)
	f.Add([]byte(`{"type":"radio","values":[{"id":1,"checked":true,"value":"a"}]}`), 8)
	f.Add([]byte(`{"type":"rut","text":"12.345.678-5"}`), 11)
	f.Add([]byte(`{"type":"dropdown","values":[{"value":"a"}],"defaultValue":"a"}`), 10)
	f.Add([]byte(`{"type":"number","value":"3","minValue":1,"maxValue":2}`), 7)
	f.Fuzz(func(t *testing.T, raw []byte, typeIndex int) {
		var m FieldMeta
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		types := FieldTypes()
		typ := types[((typeIndex%len(types))+len(types))%len(types)]
		var p Problems
		out := ValidateFieldMeta(&p, "m", typ, &m)
		if p.Len() > 0 {
			return
		}
		// What was accepted is accepted again, unchanged.
		var again Problems
		out2 := ValidateFieldMeta(&again, "m", typ, out)
		if again.Len() != 0 {
			t.Fatalf("normalised meta %+v fails again: %v", out, again.issues)
		}
		a, _ := json.Marshal(out)
		b, _ := json.Marshal(out2)
		if string(a) != string(b) {
			t.Fatalf("not idempotent: %s vs %s", a, b)
		}
	})
}
