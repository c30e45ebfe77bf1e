package envelope

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// FormatDate writes t in the time zone tz with a documentMeta dateFormat (Luxon tokens, as
// Documenso's), with month and day names in the language lang.
func FormatDate(t time.Time, format, tz string, lang Language) string {
	if loc, err := time.LoadLocation(tz); err == nil {
		t = t.In(loc)
	}
	var b strings.Builder
	for i := 0; i < len(format); {
		rest := format[i:]
		token := ""
		for _, tok := range []string{"yyyy", "yy", "MMMM", "MM", "dd", "EEEE", "HH", "hh", "mm", "ss", "SSS", "XXX", "a"} {
			if strings.HasPrefix(rest, tok) {
				token = tok
				break
			}
		}
		switch token {
		case "yyyy":
			fmt.Fprintf(&b, "%04d", t.Year())
		case "yy":
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case "MMMM":
			b.WriteString(monthName(t.Month(), lang))
		case "MM":
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case "dd":
			fmt.Fprintf(&b, "%02d", t.Day())
		case "EEEE":
			b.WriteString(dayName(t.Weekday(), lang))
		case "HH":
			fmt.Fprintf(&b, "%02d", t.Hour())
		case "hh":
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			fmt.Fprintf(&b, "%02d", h)
		case "mm":
			fmt.Fprintf(&b, "%02d", t.Minute())
		case "ss":
			fmt.Fprintf(&b, "%02d", t.Second())
		case "SSS":
			fmt.Fprintf(&b, "%03d", t.Nanosecond()/1e6)
		case "XXX":
			b.WriteString(t.Format("Z07:00"))
		case "a":
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		default:
			if rest[0] == '\'' {
				end := strings.IndexByte(rest[1:], '\'')
				if end >= 0 {
					b.WriteString(rest[1 : end+1])
					i += end + 2
					continue
				}
			}
			b.WriteByte(rest[0])
			i++
			continue
		}
		i += len(token)
	}
	return b.String()
}

var (
	monthsES = []string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}
	daysES   = []string{"domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"}
)

func monthName(m time.Month, lang Language) string {
	if lang == LanguageSpanish {
		return monthsES[m-1]
	}
	return m.String()
}

func dayName(d time.Weekday, lang Language) string {
	if lang == LanguageSpanish {
		return daysES[d]
	}
	return d.String()
}

// AutoValue is the value Sobre fills in for a recipient's field when they complete: the date of
// completion for DATE, and the recipient's name and email for NAME and EMAIL.
func AutoValue(t FieldType, r Recipient, m Meta, now time.Time) (string, bool) {
	switch t {
	case FieldDate:
		format, tz := DefaultDateFormat, DefaultTimezone
		if m.DateFormat != nil && *m.DateFormat != "" {
			format = *m.DateFormat
		}
		if m.Timezone != nil && *m.Timezone != "" {
			tz = *m.Timezone
		}
		return FormatDate(now, format, tz, m.Language), true
	case FieldName:
		return r.Name, r.Name != ""
	case FieldEmail:
		return r.Email, r.Email != ""
	}
	return "", false
}

// FieldRequired reports whether a recipient must fill the field before completing: signatures,
// initials and the RUT fields always; the others when their meta says required (as Documenso).
func FieldRequired(f Field) bool {
	switch f.Type {
	case FieldText, FieldNumber, FieldRadio, FieldCheckbox, FieldDropdown, FieldRUT:
		return f.FieldMeta != nil && f.FieldMeta.Required != nil && *f.FieldMeta.Required
	case FieldRUTFirmado:
		return false // filled from the verified identity, in the identity step
	}
	return true
}

// SignatureValue is a signature as given: typed text or a PNG image.
type SignatureValue struct {
	Typed string
	PNG   []byte
}

// ParseFieldValue checks a value a recipient gives a field and returns the field's text (the
// customText stored) and, for signatures, the signature. The value is a JSON string for most
// types and an array of option values for CHECKBOX; SIGNATURE and INITIALS take typed text or a
// "data:image/png;base64," image, as documentMeta allows.
func ParseFieldValue(f Field, m Meta, raw json.RawMessage) (string, *SignatureValue, error) {
	t := valueTextFor(m.Language)
	bad := func(format string, args ...any) error {
		return Invalid("value", format, args...)
	}
	meta := f.FieldMeta
	if meta == nil {
		meta = &FieldMeta{}
	}
	if f.Type == FieldCheckbox {
		var picked []string
		if err := json.Unmarshal(raw, &picked); err != nil {
			return "", nil, bad("%s", t.checkboxArray)
		}
		var options []string
		for _, v := range meta.Values {
			options = append(options, v.Value)
		}
		for _, p := range picked {
			if !slices.Contains(options, p) {
				return "", nil, bad(t.notOption, p)
			}
		}
		if problem := checkCheckboxCount(t, meta, len(picked)); problem != "" {
			return "", nil, bad("%s", problem)
		}
		b, _ := json.Marshal(picked)
		return string(b), nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", nil, bad(t.takesString, f.Type)
	}
	switch f.Type {
	case FieldSignature, FieldFreeSignature, FieldInitials:
		if png, ok, err := decodePNGDataURL(s); ok {
			if err != nil {
				return "", nil, bad("%v", err)
			}
			if f.Type != FieldInitials && !m.UploadSignatureEnabled && !m.DrawSignatureEnabled {
				return "", nil, bad("%s", t.imagesDisabled)
			}
			return "", &SignatureValue{PNG: png}, nil
		}
		s = strings.TrimSpace(s)
		if s == "" || utf8.RuneCountInString(s) > 100 {
			return "", nil, bad("%s", t.typedLength)
		}
		if f.Type != FieldInitials && !m.TypedSignatureEnabled {
			return "", nil, bad("%s", t.typedDisabled)
		}
		return s, &SignatureValue{Typed: s}, nil
	case FieldDate:
		return "", nil, bad("%s", t.dateByCompleting)
	case FieldRUTFirmado:
		return "", nil, &Error{Code: CodeRUTFirmadoTyped, Message: "A RUT_FIRMADO field cannot be typed: it is filled with the RUN that ClaveÚnica verifies",
			Issues: []Issue{{Path: "value", Message: "RUT_FIRMADO fields are filled from the signer's verified identity"}}}
	case FieldRUT:
		rut, err := NormalizeRUT(s)
		switch {
		case errors.Is(err, ErrRUTCheckDigit):
			return "", nil, bad("%s", t.rutCheckDigit)
		case err != nil:
			return "", nil, bad("%s", t.rutFormat)
		}
		return rut, nil, nil
	case FieldNumber:
		format := ""
		if meta.NumberFormat != nil {
			format = *meta.NumberFormat
		}
		v, ok := ParseNumberFormat(s, format)
		switch {
		case !ok:
			return "", nil, bad(t.notNumber, s)
		case meta.MinValue != nil && v < *meta.MinValue:
			return "", nil, bad(t.atLeast, *meta.MinValue)
		case meta.MaxValue != nil && v > *meta.MaxValue:
			return "", nil, bad(t.atMost, *meta.MaxValue)
		}
		return strings.TrimSpace(s), nil, nil
	case FieldRadio, FieldDropdown:
		for _, v := range meta.Values {
			if v.Value == s {
				return s, nil, nil
			}
		}
		return "", nil, bad(t.notOption, s)
	case FieldEmail:
		if !ValidEmail(s) {
			return "", nil, bad(t.notEmail, s)
		}
	}
	if meta.CharacterLimit != nil && utf8.RuneCountInString(s) > *meta.CharacterLimit {
		return "", nil, bad(t.overLimit, *meta.CharacterLimit)
	}
	if utf8.RuneCountInString(s) > MaxFieldText {
		return "", nil, bad(t.overMax, MaxFieldText)
	}
	return s, nil, nil
}

// checkCheckboxCount is what t says of n options picked in a CHECKBOX whose meta m asks for a
// number of them; "" when n is fine.
func checkCheckboxCount(t valueText, m *FieldMeta, n int) string {
	if m.ValidationRule == nil || m.ValidationLength == nil {
		return ""
	}
	want := *m.ValidationLength
	switch *m.ValidationRule {
	case "Select at least":
		if n < want {
			return fmt.Sprintf(t.selectAtLeast, want)
		}
	case "Select exactly":
		if n != want {
			return fmt.Sprintf(t.selectExactly, want)
		}
	case "Select at most":
		if n > want {
			return fmt.Sprintf(t.selectAtMost, want)
		}
	}
	return ""
}

// PresetValue is the value a field holds before anyone fills it, inserted when the envelope is
// sent: a TEXT, NUMBER or RUT default, the ticked RADIO option, the ticked CHECKBOX options (as
// a JSON array), a DROPDOWN default, or the recipient's address in an EMAIL field.
func PresetValue(f Field, r Recipient) (string, bool) {
	m := f.FieldMeta
	switch f.Type {
	case FieldEmail:
		return r.Email, r.Email != ""
	}
	if m == nil {
		return "", false
	}
	switch f.Type {
	case FieldText, FieldRUT:
		if m.Text != nil && *m.Text != "" {
			return *m.Text, true
		}
	case FieldNumber:
		if m.Value != nil && *m.Value != "" {
			return *m.Value, true
		}
	case FieldDropdown:
		if m.DefaultValue != nil && *m.DefaultValue != "" {
			return *m.DefaultValue, true
		}
	case FieldRadio:
		for _, v := range m.Values {
			if v.Checked != nil && *v.Checked {
				return v.Value, true
			}
		}
	case FieldCheckbox:
		var picked []string
		for _, v := range m.Values {
			if v.Checked != nil && *v.Checked {
				picked = append(picked, v.Value)
			}
		}
		if len(picked) > 0 {
			b, _ := json.Marshal(picked)
			return string(b), true
		}
	}
	return "", false
}
