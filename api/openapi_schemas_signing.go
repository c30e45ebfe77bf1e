package api

import "github.com/sobre-sign/sobre/envelope"

// signingViewSchema is a recipient's view of the envelope on its signing link (GET /signing/{token}).
func signingViewSchema() obj {
	methods := arrayOf(enumFrom(envelope.RecipientActionAuths()))
	return object([]string{"envelope", "recipient", "fields", "mayActNow", "auth"}, obj{
		"envelope": object([]string{"id", "title", "status"}, obj{"id": str(""), "title": str(""), "status": enumFrom(envelope.Statuses()),
			"documentMeta": ref("DocumentMeta"),
			"envelopeItems": arrayOf(object([]string{"id", "title", "order", "url"}, obj{"id": str(""), "title": str(""),
				"order": obj{"type": "integer"}, "url": str("")})), "ownerName": str("")}),
		"recipient": ref("RecipientSummary"), "fields": arrayOf(ref("Field")), "mayActNow": obj{"type": "boolean"},
		"filledElsewhere": obj{"type": "array", "items": obj{"type": "integer"},
			"description": "ids of fields whose value another browser or session gave, which this caller must fill or clear again before completing (an identity or account proof is asked)"},
		"assisting": arrayOf(closed([]string{"id", "name", "email", "role", "signingOrder"}, obj{"id": obj{"type": "integer"}, "name": str(""), "email": str(""),
			"role": enumFrom(envelope.Roles()), "signingOrder": nullable("integer")})),
		"waiting": str("why the recipient may not act now: RECIPIENT_OUT_OF_TURN, RECIPIENT_EXPIRED..."), "expired": obj{"type": "boolean"},
		"auth": object(nil, obj{"accessAuth": arrayOf(enumFrom(envelope.AccessAuths())), "actionAuth": methods}),
		"verification": object(nil, obj{
			"accessCodeRequired": obj{"type": "boolean"}, "accessVerified": obj{"type": "boolean"},
			"claveUnicaRequired": obj{"type": "boolean"}, "claveUnicaRun": nullable("string"), "claveUnicaName": nullable("string"),
			"faoHashRequired": obj{"type": "boolean"}, "faoHashVerified": obj{"type": "boolean"}, "digest": nullable("string"),
			"unavailable":     obj{"type": "array", "items": enumFrom(envelope.RecipientActionAuths()), "description": "methods asked that this server cannot take"},
			"accountRequired": obj{"type": "boolean", "description": "ACCOUNT access: signed in to the account of the recipient's email"},
			"actionMethods":   obj{"type": "array", "items": enumFrom(envelope.RecipientActionAuths()), "description": "the action methods, any one of which completes"},
			"account": obj{"type": []string{"object", "null"}, "description": "the signer account this browser is signed in to",
				"properties": obj{"email": str(""), "emailVerified": obj{"type": "boolean"}, "totpEnabled": obj{"type": "boolean"}}},
			"accountMatches": obj{"type": "boolean"},
			"accountProofs":  object(nil, obj{"password": obj{"type": "boolean"}, "totp": obj{"type": "boolean"}, "passkey": obj{"type": "boolean"}}),
		}),
		"readableUntil": obj{"type": []string{"string", "null"}, "format": "date-time",
			"description": "once the link ended (the envelope COMPLETED, REJECTED or CANCELLED, or the recipient's deadline passed): when it stops showing the document, its pages and the field values, SOBRE_LINK_READ_DAYS days (30 by default) after the end; after it envelopeItems and fields are empty. Null while the link is open"}})
}
