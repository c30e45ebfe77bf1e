package envelope

// valueText is what ParseFieldValue tells a recipient whose value it refuses, in one language:
// the signer reads it under the field, in the envelope's language (Meta.Language). A signature
// image the page did not draw is refused in English (decodePNGDataURL).
type valueText struct {
	checkboxArray, takesString, notOption                        string
	selectAtLeast, selectExactly, selectAtMost                   string
	imagesDisabled, typedLength, typedDisabled, dateByCompleting string
	rutFormat, rutCheckDigit                                     string
	notNumber, atLeast, atMost, notEmail, overLimit, overMax     string
}

var valueTexts = map[Language]valueText{
	LanguageEnglish: {
		checkboxArray: "a CHECKBOX takes an array of option values", takesString: "a %s field takes a string",
		notOption:     "%q is not an option of this field",
		selectAtLeast: "select at least %d of the options", selectExactly: "select exactly %d of the options", selectAtMost: "select at most %d of the options",
		imagesDisabled: "image signatures are disabled for this envelope", typedLength: "a typed signature is 1 to 100 characters",
		typedDisabled: "typed signatures are disabled for this envelope", dateByCompleting: "DATE fields are filled by Sobre when the recipient completes",
		rutFormat: ErrRUTFormat.Error(), rutCheckDigit: ErrRUTCheckDigit.Error(),
		notNumber: "%q is not a number", atLeast: "must be at least %g", atMost: "must be at most %g",
		notEmail: "%q is not an email address", overLimit: "longer than the field's limit of %d characters", overMax: "longer than %d characters",
	},
	LanguageSpanish: {
		checkboxArray: "un campo CHECKBOX recibe una lista de opciones", takesString: "un campo %s recibe un texto",
		notOption:     "%q no es una opción de este campo",
		selectAtLeast: "seleccione al menos %d de las opciones", selectExactly: "seleccione exactamente %d de las opciones", selectAtMost: "seleccione como máximo %d de las opciones",
		imagesDisabled: "este sobre no admite firmas como imagen", typedLength: "una firma escrita tiene de 1 a 100 caracteres",
		typedDisabled: "este sobre no admite firmas escritas", dateByCompleting: "Sobre completa los campos de fecha al firmar",
		rutFormat: "no es un RUT: escriba el número con su dígito verificador, como 12.345.678-5", rutCheckDigit: "el dígito verificador no corresponde al número del RUT",
		notNumber: "%q no es un número", atLeast: "debe ser al menos %g", atMost: "debe ser como máximo %g",
		notEmail: "%q no es un correo electrónico", overLimit: "supera el límite de %d caracteres del campo", overMax: "supera los %d caracteres",
	},
}

// valueTextFor is the recipient's text of an envelope in language lang (English for any other).
func valueTextFor(lang Language) valueText {
	if t, ok := valueTexts[lang]; ok {
		return t
	}
	return valueTexts[LanguageEnglish]
}
