package envelope

import "encoding/json"

// FieldChanges lists what changed between two versions of a field, as FIELD_UPDATED records it:
// TYPE, POSITION {page, positionX, positionY}, DIMENSION {width, height} and ENVELOPE_ITEM, in
// that order; nil when nothing did.
func FieldChanges(a, b Field) []AuditChange {
	var out []AuditChange
	add := func(name string, from, to any) {
		out = append(out, AuditChange{Type: name, From: from, To: to})
	}
	if a.Type != b.Type {
		add("TYPE", a.Type, b.Type)
	}
	if a.Page != b.Page || a.PositionX != b.PositionX || a.PositionY != b.PositionY {
		add("POSITION", map[string]any{"page": a.Page, "positionX": a.PositionX, "positionY": a.PositionY},
			map[string]any{"page": b.Page, "positionX": b.PositionX, "positionY": b.PositionY})
	}
	if a.Width != b.Width || a.Height != b.Height {
		add("DIMENSION", map[string]any{"width": a.Width, "height": a.Height}, map[string]any{"width": b.Width, "height": b.Height})
	}
	if a.EnvelopeItemID != b.EnvelopeItemID {
		add("ENVELOPE_ITEM", a.EnvelopeItemID, b.EnvelopeItemID)
	}
	return out
}

// metaAuditTypes names, as Documenso's audit log does, the documentMeta members whose changes
// DOCUMENT_META_UPDATED records. Documenso's clients parse exactly these; changes to the other
// members (signing order, language, signature kinds...) are not recorded there.
var metaAuditTypes = map[string]string{
	"subject": "SUBJECT", "message": "MESSAGE", "timezone": "TIMEZONE", "dateFormat": "DATE_FORMAT",
	"redirectUrl": "REDIRECT_URL", "emailId": "EMAIL_ID", "emailReplyTo": "EMAIL_REPLY_TO", "emailSettings": "EMAIL_SETTINGS",
}

// MetaAuditChanges turns documentMeta changes into DOCUMENT_META_UPDATED's {type, from, to}
// entries, with from and to as strings (other values as their JSON) or null; changes of members
// the entry does not record are left out.
func MetaAuditChanges(changes []MetaChange) []AuditChange {
	var out []AuditChange
	asString := func(v any) any {
		switch x := v.(type) {
		case nil:
			return nil
		case string:
			return x
		default:
			b, _ := json.Marshal(x)
			return string(b)
		}
	}
	for _, c := range changes {
		if t, ok := metaAuditTypes[c.Type]; ok {
			out = append(out, AuditChange{Type: t, From: asString(c.From), To: asString(c.To)})
		}
	}
	return out
}
