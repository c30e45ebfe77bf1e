package envelope

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"testing"
	"time"
)

func TestFormatDate(t *testing.T) {
	at := time.Date(2026, 3, 5, 14, 7, 9, 123e6, time.UTC)
	tests := []struct {
		format, tz string
		lang       Language
		want       string
	}{
		{"yyyy-MM-dd hh:mm a", "Etc/UTC", LanguageEnglish, "2026-03-05 02:07 PM"},
		{"dd/MM/yyyy HH:mm", "America/Santiago", LanguageSpanish, "05/03/2026 11:07"},
		{"MMMM dd, yyyy", "Etc/UTC", LanguageEnglish, "March 05, 2026"},
		{"EEEE, MMMM dd, yyyy", "Etc/UTC", LanguageSpanish, "jueves, marzo 05, 2026"},
		{"yy-MM-dd", "Etc/UTC", LanguageEnglish, "26-03-05"},
		{"dd.MM.yyyy", "Etc/UTC", LanguageEnglish, "05.03.2026"},
		{"yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "America/Santiago", LanguageEnglish, "2026-03-05T11:07:09.123-03:00"},
		{"yyyy-MM-dd HH:mm:ss", "Not/AZone", LanguageEnglish, "2026-03-05 14:07:09"},
	}
	for _, tt := range tests {
		if got := FormatDate(at, tt.format, tt.tz, tt.lang); got != tt.want {
			t.Errorf("FormatDate(%q, %s) = %q, want %q", tt.format, tt.tz, got, tt.want)
		}
	}
	for _, f := range DateFormats() {
		if got := FormatDate(at, f, "Etc/UTC", LanguageEnglish); got == "" || got == f {
			t.Errorf("format %q not applied: %q", f, got)
		}
	}
}

func TestParseFieldValue(t *testing.T) {
	png := "data:image/png;base64," + base64.StdEncoding.EncodeToString(tinyPNG())
	broken := "data:image/png;base64," + base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), 0, 0, 0))
	meta := DefaultMeta("m")
	noTyped := meta
	noTyped.TypedSignatureEnabled = false
	one, yes := 1, true
	opts := &FieldMeta{Values: []FieldValue{{ID: &one, Checked: &yes, Value: "Sí"}, {Value: "No"}}}
	min, max := 1.0, 10.0
	tests := []struct {
		name    string
		field   Field
		meta    Meta
		value   string
		want    string
		wantErr bool
	}{
		{"text", Field{Type: FieldText}, meta, `"hola"`, "hola", false},
		{"text over limit", Field{Type: FieldText, FieldMeta: &FieldMeta{CharacterLimit: ptr(3)}}, meta, `"hola"`, "", true},
		{"text not a string", Field{Type: FieldText}, meta, `5`, "", true},
		{"rut normalised", Field{Type: FieldRUT}, meta, `"12.345.678-5"`, "12345678-5", false},
		{"rut wrong digit", Field{Type: FieldRUT}, meta, `"12.345.678-4"`, "", true},
		{"number", Field{Type: FieldNumber, FieldMeta: &FieldMeta{MinValue: &min, MaxValue: &max}}, meta, `"7"`, "7", false},
		{"number out of range", Field{Type: FieldNumber, FieldMeta: &FieldMeta{MinValue: &min, MaxValue: &max}}, meta, `"11"`, "", true},
		{"number in the field's format", Field{Type: FieldNumber, FieldMeta: &FieldMeta{NumberFormat: ptr("123.456.789,00")}}, meta, `"1.234,5"`, "1.234,5", false},
		{"number not in the field's format", Field{Type: FieldNumber, FieldMeta: &FieldMeta{NumberFormat: ptr("123.456.789,00")}}, meta, `"1,234.5"`, "", true},
		{"radio option", Field{Type: FieldRadio, FieldMeta: opts}, meta, `"No"`, "No", false},
		{"radio unknown", Field{Type: FieldRadio, FieldMeta: opts}, meta, `"Tal vez"`, "", true},
		{"checkbox", Field{Type: FieldCheckbox, FieldMeta: opts}, meta, `["Sí","No"]`, `["Sí","No"]`, false},
		{"checkbox unknown", Field{Type: FieldCheckbox, FieldMeta: opts}, meta, `["x"]`, "", true},
		{"checkbox not an array", Field{Type: FieldCheckbox, FieldMeta: opts}, meta, `"Sí"`, "", true},
		{"typed signature", Field{Type: FieldSignature}, meta, `"Ana Pérez"`, "Ana Pérez", false},
		{"typed signature disabled", Field{Type: FieldSignature}, noTyped, `"Ana"`, "", true},
		{"image signature", Field{Type: FieldSignature}, noTyped, `"` + png + `"`, "", false},
		{"a PNG header without an image", Field{Type: FieldSignature}, noTyped, `"` + broken + `"`, "", true},
		{"bad image", Field{Type: FieldSignature}, meta, `"data:image/png;base64,aGVsbG8="`, "", true},
		{"date is automatic", Field{Type: FieldDate}, meta, `"2026-01-01"`, "", true},
		{"rut firmado is verified", Field{Type: FieldRUTFirmado}, meta, `"12345678-5"`, "", true},
		{"email", Field{Type: FieldEmail}, meta, `"a@b.cl"`, "a@b.cl", false},
		{"email invalid", Field{Type: FieldEmail}, meta, `"nope"`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := ParseFieldValue(tt.field, tt.meta, json.RawMessage(tt.value))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseFieldValue = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// tinyPNG is a valid 2×1 PNG.
func tinyPNG() []byte {
	img := image.NewGray(image.Rect(0, 0, 2, 1))
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// A refused value is told in the envelope's language: the signer reads it under the field.
func TestParseFieldValueSpeaksTheEnvelopesLanguage(t *testing.T) {
	es := DefaultMeta("m")
	es.Language = LanguageSpanish
	en := DefaultMeta("m")
	min := 5.0
	limit := 3
	for _, c := range []struct {
		field  Field
		value  string
		en, es string
	}{
		{Field{Type: FieldRUT}, `"12.345.678-4"`, "the RUT's check digit does not match its number", "el dígito verificador no corresponde al número del RUT"},
		{Field{Type: FieldRUT}, `"doce"`, "not a RUT: expected digits with a check digit, like 12.345.678-5", "no es un RUT: escriba el número con su dígito verificador, como 12.345.678-5"},
		{Field{Type: FieldNumber, FieldMeta: &FieldMeta{MinValue: &min}}, `"2"`, "must be at least 5", "debe ser al menos 5"},
		{Field{Type: FieldEmail}, `"ana"`, `"ana" is not an email address`, `"ana" no es un correo electrónico`},
		{Field{Type: FieldText, FieldMeta: &FieldMeta{CharacterLimit: &limit}}, `"hola"`, "longer than the field's limit of 3 characters", "supera el límite de 3 caracteres del campo"},
	} {
		for meta, want := range map[*Meta]string{&en: c.en, &es: c.es} {
			_, _, err := ParseFieldValue(c.field, *meta, json.RawMessage(c.value))
			var e *Error
			if !errors.As(err, &e) || len(e.Issues) != 1 || e.Issues[0].Path != "value" || e.Issues[0].Message != want {
				t.Errorf("%s %s in %s: %v, want the issue %q", c.field.Type, c.value, meta.Language, err, want)
			}
		}
	}
}
