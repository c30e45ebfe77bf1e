package api

import "github.com/sobre-sign/sobre/envelope"

// The field schemas of the OpenAPI document: a field as answered, its fieldMeta as answered and as
// accepted (envelope.ValidateFieldMeta), and a field as created and as updated.

// enumFrom is the string enum of values.
func enumFrom[T ~string](values []T) obj {
	names := make([]string, 0, len(values))
	for _, v := range values {
		names = append(names, string(v))
	}
	return enumOf(names...)
}

// closed is the object schema with exactly the members props, of which required are required:
// what the API answers has no other member.
func closed(required []string, props obj) obj {
	o := object(required, props)
	o["additionalProperties"] = false
	return o
}

// nullableOf is schema s or null.
func nullableOf(s obj) obj { return obj{"oneOf": []any{s, obj{"type": "null"}}} }

// fieldMetaProps are the fieldMeta members, each as envelope.ValidateFieldMeta takes it; which
// members a field type keeps is the SPEC's table, given in the descriptions.
func fieldMetaProps() obj {
	metaTypes := make([]string, 0, len(envelope.FieldTypes()))
	for _, t := range envelope.FieldTypes() {
		if t != envelope.FieldFreeSignature {
			metaTypes = append(metaTypes, t.MetaType())
		}
	}
	option := object([]string{"value"}, obj{"id": obj{"type": "integer", "description": "RADIO and CHECKBOX: required"},
		"checked": obj{"type": "boolean", "description": "RADIO and CHECKBOX: required"}, "value": obj{"type": "string", "maxLength": envelope.MaxMetaText}})
	return obj{
		"type":        obj{"type": "string", "enum": metaTypes, "description": "the field's type in lower case (signature for FREE_SIGNATURE)"},
		"label":       obj{"type": "string", "maxLength": envelope.MaxMetaText},
		"placeholder": obj{"type": "string", "maxLength": envelope.MaxMetaText},
		"required":    obj{"type": "boolean"}, "readOnly": obj{"type": "boolean"},
		"fontSize":  obj{"type": "number", "minimum": envelope.MinFontSize, "maximum": envelope.MaxFontSize, "default": envelope.DefaultFontSize},
		"overflow":  enumOf("auto", "horizontal", "vertical", "crop"),
		"textAlign": obj{"type": "string", "enum": []string{"left", "center", "right"}, "description": "INITIALS, NAME, EMAIL, DATE, TEXT, NUMBER, RUT, RUT_FIRMADO"},
		"text":      obj{"type": "string", "maxLength": envelope.MaxFieldText, "description": "TEXT and RUT: default value (RUT normalised to 12345678-5)"},
		"characterLimit": obj{"type": "integer", "minimum": 0, "maximum": envelope.MaxCharacterLimit,
			"description": "TEXT and RUT; 0: no limit"},
		"lineHeight": obj{"type": []string{"number", "null"}, "minimum": envelope.MinLineHeight, "maximum": envelope.MaxLineHeight,
			"description": "TEXT and NUMBER"},
		"letterSpacing": obj{"type": []string{"number", "null"}, "minimum": envelope.MinLetterSpacing, "maximum": envelope.MaxLetterSpacing,
			"description": "TEXT and NUMBER"},
		"verticalAlign": obj{"type": []string{"string", "null"}, "enum": []any{"top", "middle", "bottom", nil}, "description": "TEXT and NUMBER"},
		"value":         obj{"type": "string", "description": "NUMBER: default value, written in numberFormat"},
		"minValue":      obj{"type": []string{"number", "null"}, "description": "NUMBER"},
		"maxValue":      obj{"type": []string{"number", "null"}, "description": "NUMBER"},
		"numberFormat": obj{"type": []string{"string", "null"}, "maxLength": envelope.MaxNumberFormat, "examples": envelope.NumberFormats(),
			"description": "NUMBER: how values are written; the examples are the layouts Sobre reads, any other is kept as given"},
		"values":           obj{"type": "array", "items": option, "maxItems": envelope.MaxOptions, "description": "RADIO and CHECKBOX: {id, checked, value}; DROPDOWN: {value}"},
		"direction":        obj{"type": "string", "enum": []string{"vertical", "horizontal"}, "description": "RADIO and CHECKBOX"},
		"validationRule":   obj{"type": "string", "enum": append([]string{""}, envelope.CheckboxValidationRules()...), "description": "CHECKBOX: how many options must be ticked, with validationLength"},
		"validationLength": obj{"type": "integer", "minimum": 0, "description": "CHECKBOX: the number validationRule counts"},
		"defaultValue":     obj{"type": "string", "description": "DROPDOWN: the option chosen by default"},
	}
}

// placed is a field input s that gives its place: page, position and size, or a placeholder to find.
func placed(s obj) obj {
	s["anyOf"] = []any{obj{"required": []string{"page", "positionX", "positionY", "width", "height"}}, obj{"required": []string{"placeholder"}}}
	return s
}

// fieldSchemas are the named field schemas: FieldInput inside a recipient of envelope/create,
// FieldCreate for field/create-many, FieldUpdate for field/update-many.
func fieldSchemas() obj {
	fieldTypes := enumFrom(envelope.FieldTypes())
	legacyID := nullable("integer")
	legacyID["description"] = "single reads and writes only (absent from envelope reads and lists)"
	position := func(desc string) obj {
		return obj{"type": "number", "minimum": 0, "maximum": 100, "description": desc}
	}
	placement := obj{
		"envelopeItemId": str("the document the field is on"),
		"page":           obj{"type": "integer", "minimum": 1},
		"positionX":      position("percent of the page width, from the left"),
		"positionY":      position("percent of the page height, from the top"),
		"width":          position("percent of the page width"),
		"height":         position("percent of the page height"),
		"fieldMeta":      nullableOf(ref("FieldMetaInput")),
	}
	create := obj{"type": fieldTypes, "recipientId": obj{"type": "integer", "description": "field/create-many: the recipient the field is for"},
		"identifier":  obj{"type": []string{"string", "integer"}, "description": "envelope/create: the file name or 0-based index of the file"},
		"placeholder": str("text to find in the PDF; the field takes its box"), "matchAll": obj{"type": "boolean"}}
	update := obj{"id": obj{"type": "integer"}, "type": fieldTypes, "recipientId": obj{"type": "integer"}}
	for k, v := range placement {
		create[k], update[k] = v, v
	}
	return obj{
		"Field": closed([]string{"id", "secondaryId", "envelopeId", "envelopeItemId", "type", "recipientId", "page", "positionX", "positionY",
			"width", "height", "customText", "inserted", "fieldMeta"}, obj{
			"id": obj{"type": "integer"}, "secondaryId": str(""), "envelopeId": str(""), "envelopeItemId": str(""), "type": fieldTypes,
			"recipientId": obj{"type": "integer"}, "page": obj{"type": "integer", "minimum": 1},
			"positionX": obj{"type": "number", "description": "percent of the page width, from the left"},
			"positionY": obj{"type": "number", "description": "percent of the page height, from the top"},
			"width":     obj{"type": "number"}, "height": obj{"type": "number"}, "customText": str("the value a recipient gave"), "inserted": obj{"type": "boolean"},
			"fieldMeta": nullableOf(ref("FieldMeta")), "documentId": legacyID, "templateId": legacyID}),
		"FieldMeta":      answered(closed([]string{"type", "fontSize"}, fieldMetaProps())),
		"FieldMetaInput": object(nil, fieldMetaProps()),
		"FieldInput":     placed(object([]string{"type"}, create)),
		"FieldCreate":    placed(object([]string{"type", "recipientId"}, create)),
		"FieldUpdate":    object([]string{"id"}, update),
	}
}
