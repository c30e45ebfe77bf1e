package envelope

import (
	"strings"
	"unicode/utf8"
)

// Bounds of fieldMeta members. Font size, line height and letter spacing are Documenso's own
// bounds (its zod schema); the SPEC and Documenso leave the others open, so Sobre picks limits
// that no real form reaches but that keep a stored meta small.
const (
	MinFontSize       = 8
	MaxFontSize       = 96
	MaxMetaText       = 255  // label, placeholder, and each RADIO, CHECKBOX or DROPDOWN option
	MaxCharacterLimit = 5000 // TEXT and RUT characterLimit: a value longer than MaxFieldText is refused anyway
	MaxFieldText      = 5000 // a TEXT default and any text value a recipient enters
	MaxOptions        = 100  // RADIO, CHECKBOX and DROPDOWN values
	MaxNumberFormat   = 50   // NUMBER numberFormat
	MinLineHeight     = 1.0
	MaxLineHeight     = 10.0
	MinLetterSpacing  = 0.0
	MaxLetterSpacing  = 100.0
)

// CheckboxValidationRules are Documenso's rules for how many CHECKBOX options must be ticked.
func CheckboxValidationRules() []string {
	return []string{"Select at least", "Select exactly", "Select at most"}
}

// metaMembers says which fieldMeta members beyond the base ones (type, label, placeholder,
// required, readOnly, fontSize, overflow) a field type keeps; this is the SPEC's table.
type metaMembers struct {
	textAlign   bool // INITIALS, NAME, EMAIL, DATE, TEXT, NUMBER, RUT, RUT_FIRMADO
	textLayout  bool // lineHeight, letterSpacing, verticalAlign: TEXT, NUMBER
	text        bool // text and characterLimit: TEXT, RUT
	number      bool // value, minValue, maxValue, numberFormat: NUMBER
	options     bool // values of {id, checked, value} and direction: RADIO, CHECKBOX
	checkboxLaw bool // validationRule, validationLength: CHECKBOX
	dropdown    bool // values of {value} and defaultValue: DROPDOWN
}

func membersOf(t FieldType) metaMembers {
	switch t {
	case FieldInitials, FieldName, FieldEmail, FieldDate, FieldRUTFirmado:
		return metaMembers{textAlign: true}
	case FieldText:
		return metaMembers{textAlign: true, textLayout: true, text: true}
	case FieldNumber:
		return metaMembers{textAlign: true, textLayout: true, number: true}
	case FieldRUT:
		return metaMembers{textAlign: true, text: true}
	case FieldRadio:
		return metaMembers{options: true}
	case FieldCheckbox:
		return metaMembers{options: true, checkboxLaw: true}
	case FieldDropdown:
		return metaMembers{dropdown: true}
	}
	return metaMembers{} // SIGNATURE, FREE_SIGNATURE: base options only
}

// ValidateFieldMeta checks the fieldMeta m given for a field of type t, recording each problem
// under path (the JSON path of the fieldMeta object), and returns the meta to store. It returns
// nil when m is nil. The returned meta:
//   - has type filled in when m leaves it empty (t.MetaType(); "signature" for FREE_SIGNATURE);
//   - keeps only the members the SPEC lists for t: the others are dropped, not refused, as
//     Documenso's schemas strip unknown keys, so responses carry only the type's options;
//   - drops members that mean "unset" in Documenso's editor defaults: an empty text, value,
//     numberFormat or defaultValue, and a characterLimit of 0 (no limit);
//   - holds a RUT default in the normal form 12345678-5, and a NUMBER value without surrounding
//     spaces.
//
// Validating the returned meta again records no problem and returns an equal meta.
func ValidateFieldMeta(p *Problems, path string, t FieldType, m *FieldMeta) *FieldMeta {
	if m == nil {
		return nil
	}
	at := func(member string) string { return Join(path, member) }
	out := &FieldMeta{Type: t.MetaType()}
	if m.Type != "" && m.Type != out.Type {
		p.Add(at("type"), "must be %q for a %s field, got %q", out.Type, t, m.Type)
	}

	// Base options, every type.
	if m.Label != nil {
		checkMetaString(p, at("label"), *m.Label, MaxMetaText)
		out.Label = m.Label
	}
	if m.Placeholder != nil {
		checkMetaString(p, at("placeholder"), *m.Placeholder, MaxMetaText)
		out.Placeholder = m.Placeholder
	}
	out.Required, out.ReadOnly = m.Required, m.ReadOnly
	if m.FontSize != nil {
		checkRange(p, at("fontSize"), *m.FontSize, MinFontSize, MaxFontSize)
		out.FontSize = m.FontSize
	}
	if m.Overflow != nil {
		checkOneOf(p, at("overflow"), *m.Overflow, "auto", "horizontal", "vertical", "crop")
		out.Overflow = m.Overflow
	}

	mem := membersOf(t)
	if mem.textAlign && m.TextAlign != nil {
		checkOneOf(p, at("textAlign"), *m.TextAlign, "left", "center", "right")
		out.TextAlign = m.TextAlign
	}
	if mem.textLayout {
		if m.LineHeight != nil {
			checkRange(p, at("lineHeight"), *m.LineHeight, MinLineHeight, MaxLineHeight)
			out.LineHeight = m.LineHeight
		}
		if m.LetterSpacing != nil {
			checkRange(p, at("letterSpacing"), *m.LetterSpacing, MinLetterSpacing, MaxLetterSpacing)
			out.LetterSpacing = m.LetterSpacing
		}
		if m.VerticalAlign != nil {
			checkOneOf(p, at("verticalAlign"), *m.VerticalAlign, "top", "middle", "bottom")
			out.VerticalAlign = m.VerticalAlign
		}
	}
	if mem.text {
		checkTextMeta(p, path, t, m, out)
	}
	if mem.number {
		checkNumberMeta(p, path, m, out)
	}
	if mem.options {
		checkOptions(p, path, t, m, out)
	}
	if mem.checkboxLaw {
		checkCheckboxRule(p, path, m, out)
	}
	if mem.dropdown {
		checkDropdown(p, path, m, out)
	}
	if t == FieldRUTFirmado {
		const why = "a RUT_FIRMADO field takes no default value: it is filled from the signer's verified identity"
		if m.Text != nil && *m.Text != "" {
			p.Add(at("text"), why)
		}
		if m.Value != nil && *m.Value != "" {
			p.Add(at("value"), why)
		}
	}
	checkReadOnly(p, path, t, out)
	return out
}

// checkTextMeta validates characterLimit and the default text of a TEXT or RUT field.
func checkTextMeta(p *Problems, path string, t FieldType, m, out *FieldMeta) {
	if m.CharacterLimit != nil && *m.CharacterLimit != 0 {
		if *m.CharacterLimit < 0 || *m.CharacterLimit > MaxCharacterLimit {
			p.Add(Join(path, "characterLimit"), "must be between 1 and %d (0 for no limit), got %d", MaxCharacterLimit, *m.CharacterLimit)
		}
		out.CharacterLimit = m.CharacterLimit
	}
	if m.Text == nil || *m.Text == "" {
		return
	}
	tp := Join(path, "text")
	text := *m.Text
	if t == FieldRUT {
		rut, err := NormalizeRUT(text)
		if err != nil {
			p.Add(tp, "must be a valid RUT such as 12.345.678-5: %v", err)
		} else {
			text = rut
		}
	}
	n := utf8.RuneCountInString(text)
	switch {
	case n > MaxFieldText:
		p.Add(tp, "must be at most %d characters, got %d", MaxFieldText, n)
	case out.CharacterLimit != nil && *out.CharacterLimit > 0 && n > *out.CharacterLimit:
		p.Add(tp, "is longer than characterLimit (%d characters, limit %d)", n, *out.CharacterLimit)
	}
	out.Text = &text
}

// checkNumberMeta validates the range, format and default value of a NUMBER field.
func checkNumberMeta(p *Problems, path string, m, out *FieldMeta) {
	at := func(member string) string { return Join(path, member) }
	out.MinValue, out.MaxValue = m.MinValue, m.MaxValue
	if m.MinValue != nil && m.MaxValue != nil && *m.MinValue > *m.MaxValue {
		p.Add(at("minValue"), "must not exceed maxValue (%g > %g)", *m.MinValue, *m.MaxValue)
	}
	format := ""
	if m.NumberFormat != nil && *m.NumberFormat != "" {
		format = *m.NumberFormat
		checkMetaString(p, at("numberFormat"), format, MaxNumberFormat)
		out.NumberFormat = m.NumberFormat
	}
	if m.Value == nil || strings.TrimSpace(*m.Value) == "" {
		return
	}
	value := strings.TrimSpace(*m.Value)
	out.Value = &value
	v, ok := ParseNumberFormat(value, format)
	switch {
	case !ok && format != "" && numberFormats[format].pattern != nil:
		p.Add(at("value"), "must be a number written as %s, got %q", format, value)
	case !ok:
		p.Add(at("value"), "must be a number such as 1234.5 or -3, got %q", value)
	case m.MinValue != nil && v < *m.MinValue:
		p.Add(at("value"), "must be at least minValue %g, got %g", *m.MinValue, v)
	case m.MaxValue != nil && v > *m.MaxValue:
		p.Add(at("value"), "must be at most maxValue %g, got %g", *m.MaxValue, v)
	}
}

// checkOptions validates the values and direction of a RADIO or CHECKBOX field.
func checkOptions(p *Problems, path string, t FieldType, m, out *FieldMeta) {
	if m.Direction != nil {
		checkOneOf(p, Join(path, "direction"), *m.Direction, "vertical", "horizontal")
		out.Direction = m.Direction
	}
	if m.Values == nil {
		return
	}
	vp := Join(path, "values")
	checkOptionCount(p, vp, len(m.Values))
	seen := map[string]bool{}
	checked := 0
	for i, v := range m.Values {
		ip := Join(vp, i)
		if v.ID == nil {
			p.Add(Join(ip, "id"), "is required")
		}
		if v.Checked == nil {
			p.Add(Join(ip, "checked"), "is required")
		} else if *v.Checked {
			checked++
		}
		checkMetaString(p, Join(ip, "value"), v.Value, MaxMetaText)
		if seen[v.Value] {
			p.Add(Join(ip, "value"), "repeats the option %q: a recipient picks an option by its value", v.Value)
		}
		seen[v.Value] = true
	}
	if t == FieldRadio && checked > 1 {
		p.Add(vp, "a RADIO field may have at most one checked option, got %d", checked)
	}
	out.Values = append([]FieldValue(nil), m.Values...)
}

func checkOptionCount(p *Problems, path string, n int) {
	switch {
	case n == 0:
		p.Add(path, "must hold at least one option")
	case n > MaxOptions:
		p.Add(path, "may hold at most %d options, got %d", MaxOptions, n)
	}
}

// checkCheckboxRule validates validationRule and validationLength of a CHECKBOX field. An empty
// rule with a length of 0 (Documenso's editor defaults) means no rule.
func checkCheckboxRule(p *Problems, path string, m, out *FieldMeta) {
	rp, lp := Join(path, "validationRule"), Join(path, "validationLength")
	rule := m.ValidationRule != nil && *m.ValidationRule != ""
	length := m.ValidationLength != nil && *m.ValidationLength != 0
	out.ValidationRule, out.ValidationLength = m.ValidationRule, m.ValidationLength
	if rule {
		checkOneOf(p, rp, *m.ValidationRule, CheckboxValidationRules()...)
		if !length {
			p.Add(lp, "is required with validationRule: the number of options the rule counts")
		}
	}
	if length {
		if !rule {
			p.Add(rp, "is required with validationLength: one of %v", CheckboxValidationRules())
		}
		if n := *m.ValidationLength; n < 1 || n > max(len(m.Values), 1) {
			p.Add(lp, "must be between 1 and the number of options (%d), got %d", len(m.Values), n)
		}
	}
}

// checkDropdown validates the values and defaultValue of a DROPDOWN field. Options are stored as
// {value} alone.
func checkDropdown(p *Problems, path string, m, out *FieldMeta) {
	seen := map[string]bool{}
	if m.Values != nil {
		vp := Join(path, "values")
		checkOptionCount(p, vp, len(m.Values))
		out.Values = make([]FieldValue, 0, len(m.Values))
		for i, v := range m.Values {
			ip := Join(Join(vp, i), "value")
			switch {
			case strings.TrimSpace(v.Value) == "":
				p.Add(ip, "may not be empty")
			case seen[v.Value]:
				p.Add(ip, "repeats the option %q", v.Value)
			default:
				checkMetaString(p, ip, v.Value, MaxMetaText)
			}
			seen[v.Value] = true
			out.Values = append(out.Values, FieldValue{Value: v.Value})
		}
	}
	if m.DefaultValue != nil && *m.DefaultValue != "" {
		if !seen[*m.DefaultValue] {
			p.Add(Join(path, "defaultValue"), "must be one of the options, got %q", *m.DefaultValue)
		}
		out.DefaultValue = m.DefaultValue
	}
}

// checkReadOnly applies the read-only rules to the normalised meta, as Documenso's field
// validators do: a read-only field is never also required, and one that a recipient would
// otherwise fill needs the value it is locked with.
func checkReadOnly(p *Problems, path string, t FieldType, out *FieldMeta) {
	if out.ReadOnly == nil || !*out.ReadOnly {
		return
	}
	rp := Join(path, "readOnly")
	switch t {
	case FieldSignature, FieldFreeSignature, FieldInitials, FieldRUTFirmado:
		p.Add(rp, "a %s field cannot be read-only: the recipient fills it", t)
		return
	}
	if out.Required != nil && *out.Required {
		p.Add(rp, "a field cannot be both read-only and required")
	}
	switch t {
	case FieldText, FieldRUT:
		if out.Text == nil {
			p.Add(rp, "a read-only %s field needs a default value in text", t)
		}
	case FieldNumber:
		if out.Value == nil {
			p.Add(rp, "a read-only NUMBER field needs a default value in value")
		}
	case FieldRadio, FieldCheckbox, FieldDropdown:
		if len(out.Values) == 0 {
			p.Add(rp, "a read-only %s field needs at least one option", t)
		}
	}
	if t == FieldCheckbox && out.ValidationRule != nil && out.ValidationLength != nil {
		checked := 0
		for _, v := range out.Values {
			if v.Checked != nil && *v.Checked {
				checked++
			}
		}
		if problem := checkCheckboxCount(valueTextFor(LanguageEnglish), out, checked); problem != "" {
			p.Add(rp, "a read-only CHECKBOX field's checked options break its validationRule: %s", problem)
		}
	}
}

func checkMetaString(p *Problems, path, s string, max int) {
	if n := utf8.RuneCountInString(s); n > max {
		p.Add(path, "must be at most %d characters, got %d", max, n)
	}
}

func checkOneOf(p *Problems, path, v string, allowed ...string) {
	if !OneOf(v, allowed) {
		p.Add(path, "must be one of %v, got %q", allowed, v)
	}
}

func checkRange(p *Problems, path string, v, lo, hi float64) {
	if !(v >= lo && v <= hi) {
		p.Add(path, "must be between %g and %g, got %g", lo, hi, v)
	}
}
