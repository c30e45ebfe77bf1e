package envelope

// PrefilledField is one field an assistant filled for another recipient, as its completion
// (DOCUMENT_RECIPIENT_COMPLETED's prefilled) and the certificate of completion record it.
type PrefilledField struct {
	FieldID        string    `json:"fieldId"`
	FieldType      FieldType `json:"fieldType"`
	RecipientID    int64     `json:"recipientId"`
	RecipientEmail string    `json:"recipientEmail"`
	RecipientName  string    `json:"recipientName"`
}

// PrefilledFor is field f of owner as a PrefilledField.
func PrefilledFor(f Field, owner Recipient) PrefilledField {
	return PrefilledField{FieldID: f.SecondaryID, FieldType: f.Type, RecipientID: owner.ID, RecipientEmail: owner.Email, RecipientName: owner.Name}
}

// FieldPrefilledAudit is DOCUMENT_FIELD_PREFILLED: assistant a filling field f of owner with
// value (as the log shows it), in Documenso's shape R+{fieldId, field: {type, data}} where R is the
// assistant, with the field's recipient as fieldRecipientId, fieldRecipientEmail and
// fieldRecipientName (members Documenso's clients ignore).
func FieldPrefilledAudit(a, owner Recipient, f Field, value string) Audit {
	return Audit{AuditFieldPrefilled, with(recipientData(a), map[string]any{"fieldId": f.SecondaryID,
		"field":            map[string]any{"type": f.Type, "data": value},
		"fieldRecipientId": owner.ID, "fieldRecipientEmail": owner.Email, "fieldRecipientName": owner.Name})}
}
