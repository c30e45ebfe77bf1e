package envelope

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds of fieldMeta members the SPEC leaves open; Documenso's editor uses the same ranges.
const (
	MinFontSize       = 8
	MaxFontSize       = 96
	MaxMetaText       = 255  // label, placeholder
	MaxCharacterLimit = 5000 // TEXT and RUT characterLimit
	MaxFieldText      = 5000 // default text
	MaxOptions        = 100  // RADIO, CHECKBOX and DROPDOWN values
	MaxLineHeight     = 10.0
	MaxLetterSpacing  = 100.0
)

// CheckboxValidationRules are Documenso's rules for how many CHECKBOX options must be ticked.
func CheckboxValidationRules() []string {
	return []string{"Select at least", "Select exactly", "Select at most"}
}

// optionsFor says which fieldMeta members a field type keeps.
type optionsFor struct {
	textAlign, text, characterLimit, lineSpacing, verticalAlign, number, values, dropdown, checkbox, direction bool
}

func metaOptions(t FieldType) optionsFor {
	switch t {
	case FieldInitials, FieldName, FieldEmail, FieldDate, FieldRUTFirmado:
		return optionsFor{textAlign: true}
	case FieldText:
		return optionsFor{textAlign: true, text: true, characterLimit: true, lineSpacing: true, verticalAlign: true}
	case FieldNumber:
		return optionsFor{textAlign: true, number: true, lineSpacing: true, verticalAlign: true}
	case FieldRadio:
		return optionsFor{values: true, direction: true}
	case FieldCheckbox:
		return optionsFor{values: true, checkbox: true, direction: true}
	case FieldDropdown:
		return optionsFor{dropdown: true}
	case FieldRUT:
		return optionsFor{textAlign: true, text: true, characterLimit: true}
	}
	return optionsFor{}
}

// ValidateFieldMeta checks the fieldMeta m of a field of type t, recording problems under path,
// and returns the meta to store: the type's own members only (others are dropped, as
// Documenso's schemas strip them), type filled in, a RUT default normalised to 12345678-5.
// It returns nil when m is nil.
func ValidateFieldMeta(p *Problems, path string, t FieldType, m *FieldMeta) *FieldMeta {
	if m == nil {
		return nil
	}
	at := func(name string) string { return Join(path, name) }
	out := FieldMeta{Type: t.MetaType()}
	if m.Type != "" && m.Type != out.Type {
		p.Add(at("type"), "must be %q for a %s field, got %q", out.Type, t, m.Type)
	}
	if m.Label != nil {
		checkMetaString(p, at("label"), *m.Label, MaxMetaText)
		out.Label = m.Label
	}
	if m.Placeholder != nil {
		checkMetaString(p, at("placeholder"), *m.Placeholder, MaxMetaText)
		out.Placeholder = m.Placeholder
	}
	out.Required = m.Required
	if m.FontSize != nil {
		if *m.FontSize < MinFontSize || *m.FontSize > MaxFontSize {
			p.Add(at("fontSize"), "must be between %d and %d, got %g", MinFontSize, MaxFontSize, *m.FontSize)
		}
		out.FontSize = m.FontSize
	}
	if m.Overflow != nil {
		checkOneOf(p, at("overflow"), *m.Overflow, "auto", "horizontal", "vertical", "crop")
		out.Overflow = m.Overflow
	}
	opts := metaOptions(t)
	if opts.textAlign && m.TextAlign != nil {
		checkOneOf(p, at("textAlign"), *m.TextAlign, "left", "center", "right")
		out.TextAlign = m.TextAlign
	}
	if opts.verticalAlign && m.VerticalAlign != nil {
		checkOneOf(p, at("verticalAlign"), *m.VerticalAlign, "top", "middle", "bottom")
		out.VerticalAlign = m.VerticalAlign
	}
	if opts.lineSpacing {
		if m.LineHeight != nil {
			checkRange(p, at("lineHeight"), *m.LineHeight, 0.5, MaxLineHeight)
			out.LineHeight = m.LineHeight
		}
		if m.LetterSpacing != nil {
			checkRange(p, at("letterSpacing"), *m.LetterSpacing, 0, MaxLetterSpacing)
			out.LetterSpacing = m.LetterSpacing
		}
	}
	if opts.characterLimit && m.CharacterLimit != nil {
		if *m.CharacterLimit < 1 || *m.CharacterLimit > MaxCharacterLimit {
			p.Add(at("characterLimit"), "must be between 1 and %d, got %d", MaxCharacterLimit, *m.CharacterLimit)
		}
		out.CharacterLimit = m.CharacterLimit
	}
	hasDefault := false
	if opts.text && m.Text != nil && *m.Text != "" {
		text := *m.Text
		if t == FieldRUT {
			rut, err := NormalizeRUT(text)
			if err != nil {
				p.Add(at("text"), "must be a valid RUT such as 12.345.678-5: %v", err)
			} else {
				text = rut
			}
		}
		checkMetaString(p, at("text"), text, MaxFieldText)
		if out.CharacterLimit != nil && utf8.RuneCountInString(text) > *out.CharacterLimit {
			p.Add(at("text"), "is longer than characterLimit (%d)", *out.CharacterLimit)
		}
		out.Text = &text
		hasDefault = true
	}
	if opts.number {
		checkNumberMeta(p, path, m, &out)
		hasDefault = out.Value != nil && *out.Value != ""
	}
	if opts.values {
		hasDefault = checkOptions(p, path, t, m, &out)
	}
	if opts.checkbox {
		checkCheckboxRule(p, path, m, &out)
	}
	if opts.direction && m.Direction != nil {
		checkOneOf(p, at("direction"), *m.Direction, "vertical", "horizontal")
		out.Direction = m.Direction
	}
	if opts.dropdown {
		hasDefault = checkDropdown(p, path, m, &out)
	}
	if t == FieldRUTFirmado && (m.Text != nil || m.Value != nil) {
		p.Add(at("text"), "a RUT_FIRMADO field takes no default value: it is filled from the signer's verified identity")
	}
	if m.ReadOnly != nil && *m.ReadOnly {
		switch {
		case t.IsSignature() || t == FieldInitials || t == FieldRUTFirmado:
			p.Add(at("readOnly"), "a %s field cannot be read-only: the recipient fills it", t)
		case (opts.text || opts.number || opts.dropdown || opts.values) && !hasDefault:
			p.Add(at("readOnly"), "a read-only %s field needs a default value", t)
		}
	}
	out.ReadOnly = m.ReadOnly
	return &out
}

func checkMetaString(p *Problems, path, s string, max int) {
	if n := utf8.RuneCountInString(s); n > max {
		p.Add(path, "must be at most %d characters, got %d", max, n)
	}
}

func checkOneOf(p *Problems, path, v string, allowed ...string) {
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	p.Add(path, "must be one of %v, got %q", allowed, v)
}

func checkRange(p *Problems, path string, v, lo, hi float64) {
	if v < lo || v > hi {
		p.Add(path, "must be between %g and %g, got %g", lo, hi, v)
	}
}

// ParseNumber reads a NUMBER field's value: digits with an optional sign and one decimal point
// or comma ("1234.5", "-3", "2,75").
func ParseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.Count(s, ".")+strings.Count(s, ",") > 1 || strings.ContainsAny(s, "eEinfINFxX_") {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.Replace(s, ",", ".", 1), 64)
	return v, err == nil
}

func checkNumberMeta(p *Problems, path string, m *FieldMeta, out *FieldMeta) {
	at := func(name string) string { return Join(path, name) }
	out.MinValue, out.MaxValue = m.MinValue, m.MaxValue
	if m.MinValue != nil && m.MaxValue != nil && *m.MinValue > *m.MaxValue {
		p.Add(at("minValue"), "must not exceed maxValue (%g > %g)", *m.MinValue, *m.MaxValue)
	}
	if m.NumberFormat != nil {
		checkMetaString(p, at("numberFormat"), *m.NumberFormat, 50)
		out.NumberFormat = m.NumberFormat
	}
	if m.Value != nil && *m.Value != "" {
		v, ok := ParseNumber(*m.Value)
		switch {
		case !ok:
			p.Add(at("value"), "must be a number, got %q", *m.Value)
		case m.MinValue != nil && v < *m.MinValue:
			p.Add(at("value"), "must be at least minValue %g, got %g", *m.MinValue, v)
		case m.MaxValue != nil && v > *m.MaxValue:
			p.Add(at("value"), "must be at most maxValue %g, got %g", *m.MaxValue, v)
		}
	}
	out.Value = m.Value
}

// checkOptions validates RADIO and CHECKBOX values; it reports whether any is checked.
func checkOptions(p *Problems, path string, t FieldType, m *FieldMeta, out *FieldMeta) bool {
	vp := Join(path, "values")
	if len(m.Values) > MaxOptions {
		p.Add(vp, "may hold at most %d options, got %d", MaxOptions, len(m.Values))
	}
	seenValue, seenID := map[string]bool{}, map[int]bool{}
	checked := 0
	for i, v := range m.Values {
		ip := Join(vp, i)
		if v.ID == nil {
			p.Add(Join(ip, "id"), "is required")
		} else if seenID[*v.ID] {
			p.Add(Join(ip, "id"), "repeats id %d", *v.ID)
		} else {
			seenID[*v.ID] = true
		}
		if v.Checked == nil {
			p.Add(Join(ip, "checked"), "is required")
		} else if *v.Checked {
			checked++
		}
		checkMetaString(p, Join(ip, "value"), v.Value, MaxMetaText)
		if v.Value != "" && seenValue[v.Value] {
			p.Add(Join(ip, "value"), "repeats the option %q", v.Value)
		}
		seenValue[v.Value] = true
	}
	if t == FieldRadio && checked > 1 {
		p.Add(vp, "a RADIO field may have at most one checked option, got %d", checked)
	}
	out.Values = m.Values
	return checked > 0
}

func checkCheckboxRule(p *Problems, path string, m *FieldMeta, out *FieldMeta) {
	if m.ValidationRule != nil && *m.ValidationRule != "" {
		checkOneOf(p, Join(path, "validationRule"), *m.ValidationRule, CheckboxValidationRules()...)
		out.ValidationRule = m.ValidationRule
		if m.ValidationLength == nil {
			p.Add(Join(path, "validationLength"), "is required with validationRule")
		}
	}
	if m.ValidationLength != nil {
		if *m.ValidationLength < 1 || *m.ValidationLength > max(len(m.Values), 1) {
			p.Add(Join(path, "validationLength"), "must be between 1 and the number of options (%d), got %d", len(m.Values), *m.ValidationLength)
		}
		out.ValidationLength = m.ValidationLength
	}
}

// checkDropdown validates DROPDOWN values and defaultValue; it reports whether a default is set.
func checkDropdown(p *Problems, path string, m *FieldMeta, out *FieldMeta) bool {
	vp := Join(path, "values")
	if len(m.Values) > MaxOptions {
		p.Add(vp, "may hold at most %d options, got %d", MaxOptions, len(m.Values))
	}
	seen := map[string]bool{}
	for i, v := range m.Values {
		ip := Join(Join(vp, i), "value")
		switch {
		case strings.TrimSpace(v.Value) == "":
			p.Add(ip, "may not be empty")
		case seen[v.Value]:
			p.Add(ip, "repeats the option %q", v.Value)
		}
		checkMetaString(p, ip, v.Value, MaxMetaText)
		seen[v.Value] = true
		out.Values = append(out.Values, FieldValue{Value: v.Value})
	}
	if m.DefaultValue != nil && *m.DefaultValue != "" {
		if !seen[*m.DefaultValue] {
			p.Add(Join(path, "defaultValue"), "must be one of the options, got %q", *m.DefaultValue)
		}
		out.DefaultValue = m.DefaultValue
		return true
	}
	return false
}
