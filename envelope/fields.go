package envelope

// FieldType is the kind of a field.
type FieldType string

const (
	FieldSignature     = FieldType("SIGNATURE")
	FieldFreeSignature = FieldType("FREE_SIGNATURE") // Documenso's; a signature placed anywhere
	FieldInitials      = FieldType("INITIALS")
	FieldName          = FieldType("NAME")
	FieldEmail         = FieldType("EMAIL")
	FieldDate          = FieldType("DATE")
	FieldText          = FieldType("TEXT")
	FieldNumber        = FieldType("NUMBER")
	FieldRadio         = FieldType("RADIO")
	FieldCheckbox      = FieldType("CHECKBOX")
	FieldDropdown      = FieldType("DROPDOWN")
	FieldRUT           = FieldType("RUT")         // a Chilean RUT, check digit verified
	FieldRUTFirmado    = FieldType("RUT_FIRMADO") // the signer's RUT as verified by Clave Única
)

// FieldTypes lists every FieldType.
func FieldTypes() []FieldType {
	return []FieldType{FieldSignature, FieldFreeSignature, FieldInitials, FieldName, FieldEmail, FieldDate,
		FieldText, FieldNumber, FieldRadio, FieldCheckbox, FieldDropdown, FieldRUT, FieldRUTFirmado}
}

// IsSignature reports whether the field takes a signature.
func (t FieldType) IsSignature() bool { return t == FieldSignature || t == FieldFreeSignature }

// MetaType is the lower-case name of the type used in fieldMeta.type.
func (t FieldType) MetaType() string {
	switch t {
	case FieldFreeSignature:
		return "signature"
	case FieldRUTFirmado:
		return "rut_firmado"
	}
	b := []byte(t)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// FieldValue is one option of a RADIO, CHECKBOX (id, checked, value) or DROPDOWN (value) field.
type FieldValue struct {
	ID      *int   `json:"id,omitempty"`
	Checked *bool  `json:"checked,omitempty"`
	Value   string `json:"value"`
}

// FieldMeta holds a field's options. Which members apply depends on the field's type; Validate
// checks them and Normalize fills the defaults responses carry.
type FieldMeta struct {
	Type             string       `json:"type"`
	Label            *string      `json:"label,omitempty"`
	Placeholder      *string      `json:"placeholder,omitempty"`
	Required         *bool        `json:"required,omitempty"`
	ReadOnly         *bool        `json:"readOnly,omitempty"`
	FontSize         *float64     `json:"fontSize,omitempty"`
	Overflow         *string      `json:"overflow,omitempty"`
	TextAlign        *string      `json:"textAlign,omitempty"`
	Text             *string      `json:"text,omitempty"`
	CharacterLimit   *int         `json:"characterLimit,omitempty"`
	LineHeight       *float64     `json:"lineHeight,omitempty"`
	LetterSpacing    *float64     `json:"letterSpacing,omitempty"`
	VerticalAlign    *string      `json:"verticalAlign,omitempty"`
	Value            *string      `json:"value,omitempty"`
	MinValue         *float64     `json:"minValue,omitempty"`
	MaxValue         *float64     `json:"maxValue,omitempty"`
	NumberFormat     *string      `json:"numberFormat,omitempty"`
	Values           []FieldValue `json:"values,omitempty"`
	Direction        *string      `json:"direction,omitempty"`
	ValidationRule   *string      `json:"validationRule,omitempty"`
	ValidationLength *int         `json:"validationLength,omitempty"`
	DefaultValue     *string      `json:"defaultValue,omitempty"`
}

// ResponseMeta returns the fieldMeta a response shows for a field of type t: the stored meta with
// the defaults Documenso's clients expect (fontSize 12; direction for RADIO and CHECKBOX;
// overflow for SIGNATURE, EMAIL and DATE), or nil when the field has none.
func ResponseMeta(t FieldType, m *FieldMeta) *FieldMeta {
	if m == nil {
		return nil
	}
	out := *m
	if out.Type == "" {
		out.Type = t.MetaType()
	}
	if out.FontSize == nil {
		size := DefaultFontSize
		out.FontSize = &size
	}
	switch t {
	case FieldRadio, FieldCheckbox:
		if out.Direction == nil {
			d := "vertical"
			out.Direction = &d
		}
	case FieldSignature, FieldFreeSignature, FieldEmail, FieldDate:
		if out.Overflow == nil {
			o := "auto"
			out.Overflow = &o
		}
	}
	return &out
}

// DefaultFontSize is the font size of a field whose meta does not set one.
const DefaultFontSize = 12.0
