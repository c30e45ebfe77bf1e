package envelope

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// metaPath is the fieldMeta path the table tests validate under.
const metaPath = "data[2].fieldMeta"

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("bad JSON %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("bad JSON %s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func issuePaths(p *Problems) []string {
	var paths []string
	for _, i := range p.issues {
		paths = append(paths, i.Path)
	}
	return paths
}

// options builds a JSON array of RADIO or CHECKBOX options: "a", "b*" (checked), ...
func options(vals ...string) string {
	var items []string
	for i, v := range vals {
		checked := strings.HasSuffix(v, "*")
		items = append(items, fmt.Sprintf(`{"id":%d,"checked":%t,"value":%q}`, i+1, checked, strings.TrimSuffix(v, "*")))
	}
	return "[" + strings.Join(items, ",") + "]"
}

func TestValidateFieldMeta(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	many := make([]string, MaxOptions+1)
	for i := range many {
		many[i] = fmt.Sprint("o", i)
	}
	dropdownMany := `[`
	for i := range MaxOptions + 1 {
		if i > 0 {
			dropdownMany += ","
		}
		dropdownMany += fmt.Sprintf(`{"value":"o%d"}`, i)
	}
	dropdownMany += `]`

	tests := []struct {
		name string
		typ  FieldType
		in   string   // the fieldMeta as a client sends it
		want []string // problem paths under metaPath, in order; nil when accepted
		out  string   // when set, the returned meta as JSON
	}{
		// type
		{"signature type filled", FieldSignature, `{}`, nil, `{"type":"signature"}`},
		{"signature type given", FieldSignature, `{"type":"signature"}`, nil, `{"type":"signature"}`},
		{"type is case-sensitive", FieldSignature, `{"type":"SIGNATURE"}`, []string{"type"}, `{"type":"signature"}`},
		{"type of another field", FieldText, `{"type":"number"}`, []string{"type"}, `{"type":"text"}`},
		{"free signature uses signature", FieldFreeSignature, `{"type":"signature"}`, nil, `{"type":"signature"}`},
		{"free signature type filled", FieldFreeSignature, `{}`, nil, `{"type":"signature"}`},
		{"free signature refuses free_signature", FieldFreeSignature, `{"type":"free_signature"}`, []string{"type"}, ""},
		{"rut type", FieldRUT, `{"type":"rut"}`, nil, `{"type":"rut"}`},
		{"rut firmado type", FieldRUTFirmado, `{"type":"rut_firmado"}`, nil, `{"type":"rut_firmado"}`},
		{"rut firmado is not rut", FieldRUTFirmado, `{"type":"rut"}`, []string{"type"}, ""},

		// base options
		{"signature base options kept", FieldSignature,
			`{"type":"signature","label":"Firma","placeholder":"Firme aquí","required":true,"fontSize":20,"overflow":"crop"}`, nil,
			`{"type":"signature","label":"Firma","placeholder":"Firme aquí","required":true,"fontSize":20,"overflow":"crop"}`},
		{"font size lower bound", FieldText, `{"fontSize":8}`, nil, `{"type":"text","fontSize":8}`},
		{"font size upper bound", FieldName, `{"fontSize":96}`, nil, ""},
		{"font size too small", FieldText, `{"fontSize":7.9}`, []string{"fontSize"}, ""},
		{"font size too big", FieldName, `{"fontSize":96.5}`, []string{"fontSize"}, ""},
		{"font size zero", FieldSignature, `{"fontSize":0}`, []string{"fontSize"}, ""},
		{"overflow values", FieldEmail, `{"overflow":"horizontal"}`, nil, ""},
		{"overflow unknown", FieldEmail, `{"overflow":"wrap"}`, []string{"overflow"}, ""},
		{"label at bound", FieldText, `{"label":"` + strings.Repeat("ñ", MaxMetaText) + `"}`, nil, ""},
		{"label too long", FieldText, `{"label":"` + long(MaxMetaText+1) + `"}`, []string{"label"}, ""},
		{"placeholder too long", FieldNumber, `{"placeholder":"` + long(MaxMetaText+1) + `"}`, []string{"placeholder"}, ""},
		{"every bad base option reported", FieldDate, `{"type":"text","fontSize":1,"overflow":"x","textAlign":"justify"}`,
			[]string{"type", "fontSize", "overflow", "textAlign"}, ""},
		{"signature foreign members dropped", FieldSignature,
			`{"text":"x","textAlign":"left","values":[{"value":"a"}],"direction":"vertical","lineHeight":2,"characterLimit":3,"defaultValue":"a","value":"1"}`,
			nil, `{"type":"signature"}`},
		{"signature read-only", FieldSignature, `{"readOnly":true}`, []string{"readOnly"}, ""},
		{"signature read-only false", FieldSignature, `{"readOnly":false}`, nil, `{"type":"signature","readOnly":false}`},
		{"free signature read-only", FieldFreeSignature, `{"readOnly":true}`, []string{"readOnly"}, ""},

		// textAlign types
		{"initials text align", FieldInitials, `{"textAlign":"center"}`, nil, `{"type":"initials","textAlign":"center"}`},
		{"initials bad text align", FieldInitials, `{"textAlign":"justify"}`, []string{"textAlign"}, ""},
		{"initials read-only", FieldInitials, `{"readOnly":true}`, []string{"readOnly"}, ""},
		{"initials layout dropped", FieldInitials, `{"verticalAlign":"top","lineHeight":2,"letterSpacing":1}`, nil, `{"type":"initials"}`},
		{"name text align right", FieldName, `{"textAlign":"right"}`, nil, ""},
		{"name read-only", FieldName, `{"readOnly":true}`, nil, `{"type":"name","readOnly":true}`},
		{"name read-only and required", FieldName, `{"readOnly":true,"required":true}`, []string{"readOnly"}, ""},
		{"email text align", FieldEmail, `{"type":"email","textAlign":"left"}`, nil, ""},
		{"email bad text align", FieldEmail, `{"textAlign":"LEFT"}`, []string{"textAlign"}, ""},
		{"date text dropped", FieldDate, `{"text":"hoy","textAlign":"left"}`, nil, `{"type":"date","textAlign":"left"}`},
		{"date bad text align", FieldDate, `{"textAlign":"middle"}`, []string{"textAlign"}, ""},

		// TEXT
		{"text every option", FieldText,
			`{"type":"text","text":"hola","characterLimit":10,"textAlign":"center","lineHeight":1.5,"letterSpacing":2,"verticalAlign":"top"}`, nil,
			`{"type":"text","text":"hola","characterLimit":10,"textAlign":"center","lineHeight":1.5,"letterSpacing":2,"verticalAlign":"top"}`},
		{"text within limit counts characters", FieldText, `{"text":"ñandú","characterLimit":5}`, nil, ""},
		{"text over limit", FieldText, `{"text":"hola!","characterLimit":4}`, []string{"text"}, ""},
		{"text character limit zero means none", FieldText, `{"text":"hola","characterLimit":0}`, nil, `{"type":"text","text":"hola"}`},
		{"text character limit negative", FieldText, `{"characterLimit":-1}`, []string{"characterLimit"}, ""},
		{"text character limit at bound", FieldText, fmt.Sprintf(`{"characterLimit":%d}`, MaxCharacterLimit), nil, ""},
		{"text character limit too big", FieldText, fmt.Sprintf(`{"characterLimit":%d}`, MaxCharacterLimit+1), []string{"characterLimit"}, ""},
		{"text default too long", FieldText, `{"text":"` + long(MaxFieldText+1) + `"}`, []string{"text"}, ""},
		{"text empty default dropped", FieldText, `{"text":""}`, nil, `{"type":"text"}`},
		{"text line height bounds", FieldText, `{"lineHeight":1,"letterSpacing":0}`, nil, ""},
		{"text line height upper bounds", FieldText, `{"lineHeight":10,"letterSpacing":100}`, nil, ""},
		{"text line height too small", FieldText, `{"lineHeight":0.5}`, []string{"lineHeight"}, ""},
		{"text line height too big", FieldText, `{"lineHeight":10.5}`, []string{"lineHeight"}, ""},
		{"text letter spacing negative", FieldText, `{"letterSpacing":-1}`, []string{"letterSpacing"}, ""},
		{"text letter spacing too big", FieldText, `{"letterSpacing":101}`, []string{"letterSpacing"}, ""},
		{"text vertical align", FieldText, `{"verticalAlign":"bottom"}`, nil, ""},
		{"text bad vertical align", FieldText, `{"verticalAlign":"center"}`, []string{"verticalAlign"}, ""},
		{"text null layout", FieldText, `{"lineHeight":null,"letterSpacing":null,"verticalAlign":null}`, nil, `{"type":"text"}`},
		{"text read-only needs default", FieldText, `{"readOnly":true}`, []string{"readOnly"}, ""},
		{"text read-only with default", FieldText, `{"readOnly":true,"text":"fijo"}`, nil, ""},
		{"text read-only and required", FieldText, `{"readOnly":true,"required":true,"text":"fijo"}`, []string{"readOnly"}, ""},
		{"text read-only required no default", FieldText, `{"readOnly":true,"required":true}`, []string{"readOnly", "readOnly"}, ""},
		{"text foreign members dropped", FieldText, `{"value":"3","values":[{"value":"a"}],"direction":"vertical","defaultValue":"a","minValue":1}`,
			nil, `{"type":"text"}`},

		// NUMBER
		{"number in range", FieldNumber, `{"value":"5","minValue":1,"maxValue":10}`, nil, `{"type":"number","value":"5","minValue":1,"maxValue":10}`},
		{"number negative", FieldNumber, `{"value":"-3","minValue":-10}`, nil, ""},
		{"number decimal point", FieldNumber, `{"value":"1234.5"}`, nil, ""},
		{"number decimal comma", FieldNumber, `{"value":"2,5"}`, nil, ""},
		{"number trimmed", FieldNumber, `{"value":" 42 "}`, nil, `{"type":"number","value":"42"}`},
		{"number empty value dropped", FieldNumber, `{"value":"","numberFormat":""}`, nil, `{"type":"number"}`},
		{"number not a number", FieldNumber, `{"value":"five"}`, []string{"value"}, ""},
		{"number exponent refused", FieldNumber, `{"value":"1e3"}`, []string{"value"}, ""},
		{"number hex refused", FieldNumber, `{"value":"0x10"}`, []string{"value"}, ""},
		{"number infinity refused", FieldNumber, `{"value":"Infinity"}`, []string{"value"}, ""},
		{"number grouping without format refused", FieldNumber, `{"value":"1,234.50"}`, []string{"value"}, ""},
		{"number grouping with format", FieldNumber, `{"value":"1,234.50","numberFormat":"123,456,789.00"}`, nil, ""},
		{"number chilean format", FieldNumber, `{"value":"1.234,5","numberFormat":"123.456.789,00","minValue":1000,"maxValue":2000}`, nil, ""},
		{"number chilean format out of range", FieldNumber, `{"value":"1.234,5","numberFormat":"123.456.789,00","maxValue":1000}`, []string{"value"}, ""},
		{"number format three decimals", FieldNumber, `{"value":"1.234,567","numberFormat":"123.456.789,00"}`, []string{"value"}, ""},
		{"number format bad grouping", FieldNumber, `{"value":"1.5","numberFormat":"123.456.789,00"}`, []string{"value"}, ""},
		{"number custom format", FieldNumber, `{"value":"12.5","numberFormat":"0.00 CLP"}`, nil, `{"type":"number","value":"12.5","numberFormat":"0.00 CLP"}`},
		{"number format too long", FieldNumber, `{"numberFormat":"` + long(MaxNumberFormat+1) + `"}`, []string{"numberFormat"}, ""},
		{"number below min", FieldNumber, `{"value":"0","minValue":1}`, []string{"value"}, ""},
		{"number above max", FieldNumber, `{"value":"11","maxValue":10}`, []string{"value"}, ""},
		{"number min above max", FieldNumber, `{"minValue":5,"maxValue":1}`, []string{"minValue"}, ""},
		{"number min equals max", FieldNumber, `{"minValue":5,"maxValue":5,"value":"5"}`, nil, ""},
		{"number null range", FieldNumber, `{"minValue":null,"maxValue":null,"numberFormat":null}`, nil, `{"type":"number"}`},
		{"number layout", FieldNumber, `{"textAlign":"right","lineHeight":2,"letterSpacing":1,"verticalAlign":"middle"}`, nil, ""},
		{"number bad layout", FieldNumber, `{"textAlign":"up","verticalAlign":"up"}`, []string{"textAlign", "verticalAlign"}, ""},
		{"number read-only needs value", FieldNumber, `{"readOnly":true}`, []string{"readOnly"}, ""},
		{"number read-only with zero", FieldNumber, `{"readOnly":true,"value":"0"}`, nil, ""},
		{"number read-only and required", FieldNumber, `{"readOnly":true,"required":true,"value":"1"}`, []string{"readOnly"}, ""},
		{"number foreign members dropped", FieldNumber, `{"text":"x","characterLimit":3,"values":[{"value":"a"}]}`, nil, `{"type":"number"}`},

		// RADIO
		{"radio ok", FieldRadio, `{"values":` + options("Sí*", "No") + `,"direction":"horizontal"}`, nil,
			`{"type":"radio","values":` + options("Sí*", "No") + `,"direction":"horizontal"}`},
		{"radio no values", FieldRadio, `{"direction":"vertical"}`, nil, ""},
		{"radio empty values", FieldRadio, `{"values":[]}`, []string{"values"}, ""},
		{"radio too many", FieldRadio, `{"values":` + options(many...) + `}`, []string{"values"}, ""},
		{"radio two checked", FieldRadio, `{"values":` + options("Sí*", "No*") + `}`, []string{"values"}, ""},
		{"radio missing id and checked", FieldRadio, `{"values":[{"value":"x"}]}`, []string{"values[0].id", "values[0].checked"}, ""},
		{"radio repeated value", FieldRadio, `{"values":` + options("a", "a") + `}`, []string{"values[1].value"}, ""},
		{"radio one empty value", FieldRadio, `{"values":` + options("") + `}`, nil, ""},
		{"radio repeated ids allowed", FieldRadio, `{"values":[{"id":1,"checked":false,"value":"a"},{"id":1,"checked":false,"value":"b"}]}`, nil, ""},
		{"radio value too long", FieldRadio, `{"values":` + options(long(MaxMetaText+1)) + `}`, []string{"values[0].value"}, ""},
		{"radio direction", FieldRadio, `{"direction":"diagonal"}`, []string{"direction"}, ""},
		{"radio read-only", FieldRadio, `{"readOnly":true,"values":` + options("a*", "b") + `}`, nil, ""},
		{"radio read-only without options", FieldRadio, `{"readOnly":true}`, []string{"readOnly"}, ""},
		{"radio read-only and required", FieldRadio, `{"readOnly":true,"required":true,"values":` + options("a") + `}`, []string{"readOnly"}, ""},
		{"radio foreign members dropped", FieldRadio, `{"validationRule":"Select at least","validationLength":1,"defaultValue":"a","textAlign":"left"}`,
			nil, `{"type":"radio"}`},

		// CHECKBOX
		{"checkbox several checked", FieldCheckbox, `{"values":` + options("a*", "b*") + `}`, nil, ""},
		{"checkbox rule", FieldCheckbox, `{"values":` + options("a", "b") + `,"validationRule":"Select at least","validationLength":2,"direction":"horizontal"}`, nil,
			`{"type":"checkbox","values":` + options("a", "b") + `,"validationRule":"Select at least","validationLength":2,"direction":"horizontal"}`},
		{"checkbox select exactly", FieldCheckbox, `{"values":` + options("a", "b") + `,"validationRule":"Select exactly","validationLength":1}`, nil, ""},
		{"checkbox select at most", FieldCheckbox, `{"values":` + options("a", "b") + `,"validationRule":"Select at most","validationLength":1}`, nil, ""},
		{"checkbox editor defaults mean no rule", FieldCheckbox, `{"values":` + options("a") + `,"validationRule":"","validationLength":0}`, nil, ""},
		{"checkbox unknown rule", FieldCheckbox, `{"values":` + options("a") + `,"validationRule":"Select some","validationLength":1}`, []string{"validationRule"}, ""},
		{"checkbox length over options", FieldCheckbox, `{"values":` + options("a") + `,"validationRule":"Select exactly","validationLength":2}`, []string{"validationLength"}, ""},
		{"checkbox negative length", FieldCheckbox, `{"values":` + options("a") + `,"validationRule":"Select exactly","validationLength":-1}`, []string{"validationLength"}, ""},
		{"checkbox rule without length", FieldCheckbox, `{"values":` + options("a") + `,"validationRule":"Select at least"}`, []string{"validationLength"}, ""},
		{"checkbox length without rule", FieldCheckbox, `{"values":` + options("a") + `,"validationLength":1}`, []string{"validationRule"}, ""},
		{"checkbox empty values", FieldCheckbox, `{"values":[]}`, []string{"values"}, ""},
		{"checkbox missing checked", FieldCheckbox, `{"values":[{"id":1,"value":"a"}]}`, []string{"values[0].checked"}, ""},
		{"checkbox repeated value", FieldCheckbox, `{"values":` + options("a*", "a") + `}`, []string{"values[1].value"}, ""},
		{"checkbox direction", FieldCheckbox, `{"direction":"sideways"}`, []string{"direction"}, ""},
		{"checkbox read-only", FieldCheckbox, `{"readOnly":true,"values":` + options("a*", "b*") + `,"validationRule":"Select at least","validationLength":2}`, nil, ""},
		{"checkbox read-only breaks rule", FieldCheckbox, `{"readOnly":true,"values":` + options("a*", "b") + `,"validationRule":"Select at least","validationLength":2}`, []string{"readOnly"}, ""},
		{"checkbox read-only without options", FieldCheckbox, `{"readOnly":true}`, []string{"readOnly"}, ""},

		// DROPDOWN
		{"dropdown ok", FieldDropdown, `{"values":[{"value":"a"},{"value":"b"}],"defaultValue":"b"}`, nil,
			`{"type":"dropdown","values":[{"value":"a"},{"value":"b"}],"defaultValue":"b"}`},
		{"dropdown ids and checked stripped", FieldDropdown, `{"values":` + options("a*", "b") + `}`, nil,
			`{"type":"dropdown","values":[{"value":"a"},{"value":"b"}]}`},
		{"dropdown empty default dropped", FieldDropdown, `{"values":[{"value":"a"}],"defaultValue":""}`, nil, `{"type":"dropdown","values":[{"value":"a"}]}`},
		{"dropdown default not an option", FieldDropdown, `{"values":[{"value":"a"}],"defaultValue":"c"}`, []string{"defaultValue"}, ""},
		{"dropdown default without options", FieldDropdown, `{"defaultValue":"c"}`, []string{"defaultValue"}, ""},
		{"dropdown empty option", FieldDropdown, `{"values":[{"value":" "}]}`, []string{"values[0].value"}, ""},
		{"dropdown repeated option", FieldDropdown, `{"values":[{"value":"a"},{"value":"a"}]}`, []string{"values[1].value"}, ""},
		{"dropdown option too long", FieldDropdown, `{"values":[{"value":"` + long(MaxMetaText+1) + `"}]}`, []string{"values[0].value"}, ""},
		{"dropdown empty values", FieldDropdown, `{"values":[]}`, []string{"values"}, ""},
		{"dropdown too many", FieldDropdown, `{"values":` + dropdownMany + `}`, []string{"values"}, ""},
		{"dropdown read-only", FieldDropdown, `{"readOnly":true,"values":[{"value":"a"}],"defaultValue":"a"}`, nil, ""},
		{"dropdown read-only without options", FieldDropdown, `{"readOnly":true}`, []string{"readOnly"}, ""},
		{"dropdown foreign members dropped", FieldDropdown, `{"direction":"vertical","text":"a","textAlign":"left"}`, nil, `{"type":"dropdown"}`},

		// RUT
		{"rut normalised", FieldRUT, `{"text":"12.345.678-5"}`, nil, `{"type":"rut","text":"12345678-5"}`},
		{"rut with k", FieldRUT, `{"text":"10.000.013-k"}`, nil, `{"type":"rut","text":"10000013-K"}`},
		{"rut bad check digit", FieldRUT, `{"text":"12.345.678-9"}`, []string{"text"}, ""},
		{"rut not a rut", FieldRUT, `{"text":"abc"}`, []string{"text"}, ""},
		{"rut limit applies to normal form", FieldRUT, `{"text":"12.345.678-5","characterLimit":10}`, nil, ""},
		{"rut over limit", FieldRUT, `{"text":"12.345.678-5","characterLimit":9}`, []string{"text"}, ""},
		{"rut bad limit", FieldRUT, `{"characterLimit":-5}`, []string{"characterLimit"}, ""},
		{"rut text align", FieldRUT, `{"textAlign":"center"}`, nil, ""},
		{"rut bad text align", FieldRUT, `{"textAlign":"justify"}`, []string{"textAlign"}, ""},
		{"rut read-only needs default", FieldRUT, `{"readOnly":true}`, []string{"readOnly"}, ""},
		{"rut read-only with default", FieldRUT, `{"readOnly":true,"text":"11.111.111-1"}`, nil, `{"type":"rut","readOnly":true,"text":"11111111-1"}`},
		{"rut foreign members dropped", FieldRUT, `{"lineHeight":2,"verticalAlign":"top","value":"1"}`, nil, `{"type":"rut"}`},

		// RUT_FIRMADO
		{"rut firmado text align", FieldRUTFirmado, `{"textAlign":"right","label":"RUT"}`, nil, `{"type":"rut_firmado","textAlign":"right","label":"RUT"}`},
		{"rut firmado bad text align", FieldRUTFirmado, `{"textAlign":"justify"}`, []string{"textAlign"}, ""},
		{"rut firmado refuses text", FieldRUTFirmado, `{"text":"12345678-5"}`, []string{"text"}, `{"type":"rut_firmado"}`},
		{"rut firmado refuses value", FieldRUTFirmado, `{"value":"12345678-5"}`, []string{"value"}, ""},
		{"rut firmado empty text dropped", FieldRUTFirmado, `{"text":"","value":""}`, nil, `{"type":"rut_firmado"}`},
		{"rut firmado read-only", FieldRUTFirmado, `{"readOnly":true}`, []string{"readOnly"}, ""},
		{"rut firmado foreign members dropped", FieldRUTFirmado, `{"characterLimit":10,"defaultValue":"x"}`, nil, `{"type":"rut_firmado"}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.typ)+"/"+tt.name, func(t *testing.T) {
			var m FieldMeta
			if err := json.Unmarshal([]byte(tt.in), &m); err != nil {
				t.Fatalf("bad test input %s: %v", tt.in, err)
			}
			before, _ := json.Marshal(m)
			var p Problems
			out := ValidateFieldMeta(&p, metaPath, tt.typ, &m)
			var want []string
			for _, w := range tt.want {
				want = append(want, metaPath+"."+w)
			}
			if got := issuePaths(&p); !slices.Equal(got, want) {
				t.Fatalf("problems at %v, want %v\n%v", got, want, p.issues)
			}
			if out == nil {
				t.Fatal("nil meta returned for a non-nil one")
			}
			if out.Type != tt.typ.MetaType() {
				t.Errorf("type %q, want %q", out.Type, tt.typ.MetaType())
			}
			got, _ := json.Marshal(out)
			if tt.out != "" && !sameJSON(t, got, []byte(tt.out)) {
				t.Errorf("returned meta %s, want %s", got, tt.out)
			}
			if after, _ := json.Marshal(m); string(after) != string(before) {
				t.Errorf("input modified: %s became %s", before, after)
			}
			if p.Len() > 0 {
				return
			}
			var again Problems
			out2 := ValidateFieldMeta(&again, metaPath, tt.typ, out)
			got2, _ := json.Marshal(out2)
			if again.Len() > 0 || string(got) != string(got2) {
				t.Errorf("not idempotent: %s gives %s, %v", got, got2, again.issues)
			}
		})
	}
}

func TestValidateFieldMetaNil(t *testing.T) {
	for _, typ := range FieldTypes() {
		var p Problems
		if ValidateFieldMeta(&p, metaPath, typ, nil) != nil || p.Len() != 0 {
			t.Errorf("%s: a nil meta should stay nil without problems", typ)
		}
	}
}

func TestValidateFieldMetaFillsType(t *testing.T) {
	want := map[FieldType]string{
		FieldSignature: "signature", FieldFreeSignature: "signature", FieldInitials: "initials", FieldName: "name",
		FieldEmail: "email", FieldDate: "date", FieldText: "text", FieldNumber: "number", FieldRadio: "radio",
		FieldCheckbox: "checkbox", FieldDropdown: "dropdown", FieldRUT: "rut", FieldRUTFirmado: "rut_firmado",
	}
	for _, typ := range FieldTypes() {
		t.Run(string(typ), func(t *testing.T) {
			var p Problems
			out := ValidateFieldMeta(&p, metaPath, typ, &FieldMeta{})
			if p.Len() != 0 || out == nil || out.Type != want[typ] {
				t.Fatalf("got %+v, problems %v; want type %q", out, p.issues, want[typ])
			}
			// The filled type is accepted when given.
			out = ValidateFieldMeta(&p, metaPath, typ, &FieldMeta{Type: want[typ]})
			if p.Len() != 0 || out.Type != want[typ] {
				t.Fatalf("type %q refused: %v", want[typ], p.issues)
			}
		})
	}
}

func TestParseNumber(t *testing.T) {
	tests := []struct {
		in     string
		format string
		want   float64
		ok     bool
	}{
		{"1234.5", "", 1234.5, true},
		{"-3", "", -3, true},
		{"2,75", "", 2.75, true},
		{" 7 ", "", 7, true},
		{"", "", 0, false},
		{"1,234.5", "", 0, false},
		{"1e3", "", 0, false},
		{"NaN", "", 0, false},
		{"inf", "", 0, false},
		{"0x1p3", "", 0, false},
		{"1_000", "", 0, false},
		{"abc", "", 0, false},
		{"12.5", "custom", 12.5, true},
		{"1,234,567.89", "123,456,789.00", 1234567.89, true},
		{"1234567.89", "123,456,789.00", 1234567.89, true},
		{"-1,234", "123,456,789.00", -1234, true},
		{"1,23", "123,456,789.00", 0, false},
		{"1.234.567,89", "123.456.789,00", 1234567.89, true},
		{"1234,5", "123.456.789,00", 1234.5, true},
		{"1,234.5", "123.456.789,00", 0, false},
		{"1 234 567,89", "123 456 789,00", 1234567.89, true},
		{"1 234 567.89", "123 456 789.00", 1234567.89, true},
		{"12,34,56,789.00", "12,34,56,789.00", 123456789, true},
		{"1,234", "12,34,56,789.00", 1234, true},
		{"123456,789.01", "123456,789.00", 123456789.01, true},
		{"123456.5", "123456,789.00", 123456.5, true},
		{"1.2.3", "123456,789.00", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.format+"/"+tt.in, func(t *testing.T) {
			got, ok := ParseNumberFormat(tt.in, tt.format)
			if ok != tt.ok || (ok && got != tt.want) {
				t.Errorf("ParseNumberFormat(%q, %q) = %v, %v; want %v, %v", tt.in, tt.format, got, ok, tt.want, tt.ok)
			}
		})
	}
	for _, f := range NumberFormats() {
		if _, known := numberFormats[f]; !known {
			t.Errorf("NumberFormats lists %q without a layout", f)
		}
	}
	if len(NumberFormats()) != len(numberFormats) {
		t.Error("NumberFormats and numberFormats differ")
	}
}

// allowedMembers lists, from the SPEC's tables, the fieldMeta members a field type may carry.
func allowedMembers(t FieldType) []string {
	base := []string{"type", "label", "placeholder", "required", "readOnly", "fontSize", "overflow"}
	layout := []string{"textAlign", "lineHeight", "letterSpacing", "verticalAlign"}
	switch t {
	case FieldInitials, FieldName, FieldEmail, FieldDate, FieldRUTFirmado:
		return append(base, "textAlign")
	case FieldText:
		return append(append(base, layout...), "text", "characterLimit")
	case FieldNumber:
		return append(append(base, layout...), "value", "minValue", "maxValue", "numberFormat")
	case FieldRadio:
		return append(base, "values", "direction")
	case FieldCheckbox:
		return append(base, "values", "direction", "validationRule", "validationLength")
	case FieldDropdown:
		return append(base, "values", "defaultValue")
	case FieldRUT:
		return append(base, "textAlign", "text", "characterLimit")
	}
	return base
}

func FuzzValidateFieldMeta(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"type":"signature","fontSize":12,"overflow":"auto","readOnly":false}`,
		`{"type":"text","text":"hola","characterLimit":10,"lineHeight":1.5,"verticalAlign":"top"}`,
		`{"type":"text","text":"","characterLimit":0,"readOnly":true}`,
		`{"type":"number","value":"3","minValue":1,"maxValue":2}`,
		`{"type":"number","value":" 1.234,5 ","numberFormat":"123.456.789,00","minValue":null}`,
		`{"type":"radio","values":[{"id":1,"checked":true,"value":"a"},{"id":2,"checked":false,"value":"b"}],"direction":"horizontal"}`,
		`{"type":"checkbox","values":[{"id":1,"checked":true,"value":"a"}],"validationRule":"Select at most","validationLength":1,"readOnly":true}`,
		`{"type":"checkbox","values":[],"validationRule":"","validationLength":0}`,
		`{"type":"dropdown","values":[{"value":"a"},{"id":3,"checked":true,"value":"b"}],"defaultValue":"a"}`,
		`{"type":"rut","text":"12.345.678-5","characterLimit":12,"textAlign":"left"}`,
		`{"type":"rut_firmado","text":"12345678-5","value":"x"}`,
		`{"label":"x","placeholder":"y","required":true,"readOnly":true,"text":"1","value":"1","values":[{"value":"1"}],"defaultValue":"1"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var m FieldMeta
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		for _, typ := range FieldTypes() {
			var p Problems
			out := ValidateFieldMeta(&p, metaPath, typ, &m)
			if out == nil || out.Type != typ.MetaType() {
				t.Fatalf("%s: returned %+v", typ, out)
			}
			for _, i := range p.issues {
				if !strings.HasPrefix(i.Path, metaPath+".") || i.Message == "" {
					t.Fatalf("%s: problem outside the meta: %+v", typ, i)
				}
			}
			if p.Len() > 0 {
				continue
			}
			got, _ := json.Marshal(out)
			var members map[string]json.RawMessage
			if err := json.Unmarshal(got, &members); err != nil {
				t.Fatal(err)
			}
			for k := range members {
				if !slices.Contains(allowedMembers(typ), k) {
					t.Fatalf("%s: kept foreign member %q in %s", typ, k, got)
				}
			}
			// What was accepted is accepted again, unchanged.
			var again Problems
			out2 := ValidateFieldMeta(&again, metaPath, typ, out)
			if again.Len() != 0 {
				t.Fatalf("%s: normalised meta %s fails again: %v", typ, got, again.issues)
			}
			if got2, _ := json.Marshal(out2); string(got) != string(got2) {
				t.Fatalf("%s: not idempotent: %s then %s", typ, got, got2)
			}
		}
	})
}
