package api

import "github.com/sobre-sign/sobre/envelope"

// The envelope and recipient schemas of the OpenAPI document, as view.Envelope and
// view.Recipient answer them.

// envelopeSchemas are the named envelope schemas: an envelope as lists show it and as reads do.
func envelopeSchemas() obj {
	summary := obj{
		"id": str(""), "secondaryId": str("document_<n> or template_<n>"), "internalVersion": obj{"type": "integer"},
		"type": enumFrom(envelope.Types()), "status": enumFrom(envelope.Statuses()), "source": enumFrom(envelope.Sources()),
		"visibility": enumFrom(envelope.Visibilities()), "templateType": enumFrom(envelope.TemplateTypes()),
		"externalId": nullable("string"), "createdAt": str(""), "updatedAt": str(""), "completedAt": nullable("string"), "deletedAt": nullable("string"),
		"title": str(""), "authOptions": closed([]string{"globalAccessAuth", "globalActionAuth"}, obj{
			"globalAccessAuth": arrayOf(enumFrom(envelope.AccessAuths())), "globalActionAuth": arrayOf(enumFrom(envelope.GlobalActionAuths()))}),
		"formValues": nullableOf(formValues()), "publicTitle": str(""), "publicDescription": str(""), "userId": obj{"type": "integer"},
		"teamId": obj{"type": "integer"}, "folderId": nullable("string"), "templateId": nullable("integer"),
		"user":       closed([]string{"id", "name", "email"}, obj{"id": obj{"type": "integer"}, "name": str(""), "email": str("")}),
		"team":       closed([]string{"id", "url"}, obj{"id": obj{"type": "integer"}, "url": str("")}),
		"recipients": arrayOf(ref("RecipientSummary")),
	}
	full := obj{}
	for k, v := range summary {
		full[k] = v
	}
	full["recipients"] = arrayOf(ref("EnvelopeRecipient"))
	full["documentMeta"] = ref("DocumentMeta")
	full["fields"] = arrayOf(ref("Field"))
	full["envelopeItems"] = arrayOf(ref("EnvelopeItem"))
	full["attachments"] = arrayOf(ref("Attachment"))
	full["directLink"] = nullableOf(closed([]string{"id", "token", "enabled", "directTemplateRecipientId"}, obj{
		"id": str(""), "token": str(""), "enabled": obj{"type": "boolean"}, "directTemplateRecipientId": obj{"type": "integer"}}))
	return obj{
		"EnvelopeSummary": closed(keys(summary), summary),
		"Envelope":        closed(keys(full), full),
	}
}

// recipientProps are the members of every recipient answer.
func recipientProps() obj {
	expectedRut := obj{"type": []string{"string", "null"}, "description": "Sobre extension: the RUN (RUT of a person) whose Clave Única login or FAO_HASH certificate alone may sign; another is refused with RUT_MISMATCH, audited and mailed to the owner. Normalised to 12345678-5; null: any. Changing it replaces the signing link.", "x-sobre-extension": "expected identity"}
	return obj{
		"id": obj{"type": "integer"}, "envelopeId": str(""), "email": str("an email address, or empty"), "name": str(""), "role": enumFrom(envelope.Roles()),
		"token":      str("the recipient's signing token; \"\" unless the caller may manage the envelope (its owner, a MANAGER or an ADMIN who sees it)"),
		"readStatus": enumOf("NOT_OPENED", "OPENED"), "signingStatus": enumOf("NOT_SIGNED", "SIGNED", "REJECTED"),
		"sendStatus": enumOf("NOT_SENT", "SENT"), "signingOrder": nullable("integer"), "signedAt": nullable("string"),
		"expired": nullable("string"), "expiresAt": nullable("string"), "expirationNotifiedAt": nullable("string"),
		"documentDeletedAt": nullable("string"), "rejectionReason": nullable("string"),
		"authOptions": closed([]string{"accessAuth", "actionAuth"}, obj{"accessAuth": arrayOf(enumFrom(envelope.AccessAuths())),
			"actionAuth": arrayOf(enumFrom(envelope.RecipientActionAuths()))}),
		"expectedRut":   expectedRut,
		"deliveryError": obj{"type": []string{"string", "null"}, "description": "Sobre extension: the mail server's answer to the last mail to this recipient that it refused for good (such as \"550 5.1.1 no such mailbox\"), also in the audit log as EMAIL_REFUSED; null when none, and again once a later mail to them is sent.", "x-sobre-extension": "mail delivery"},
	}
}

// recipientSchemas are the named recipient schemas: a recipient in lists (RecipientSummary), in
// envelope reads with its fields (EnvelopeRecipient), in single reads and writes with its fields
// and the envelope's legacy ids (Recipient), and as created and updated.
func recipientSchemas() obj {
	summary := recipientProps()
	inEnvelope := recipientProps()
	inEnvelope["fields"] = arrayOf(ref("Field"))
	detail := recipientProps()
	detail["fields"] = arrayOf(ref("Field"))
	detail["documentId"], detail["templateId"] = nullable("integer"), nullable("integer")
	input := obj{
		"email": obj{"type": "string", "maxLength": envelope.MaxEmail, "description": "an email address or the empty string"}, "name": obj{"type": "string", "maxLength": envelope.MaxRecipientName},
		"role": enumFrom(envelope.Roles()), "signingOrder": obj{"type": []string{"integer", "null"}},
		"accessAuth":  obj{"type": []string{"array", "null"}, "items": enumFrom(envelope.AccessAuths()), "description": "null: none"},
		"actionAuth":  obj{"type": []string{"array", "null"}, "items": enumFrom(envelope.RecipientActionAuths()), "description": "null: none"},
		"expectedRut": summary["expectedRut"],
	}
	update := obj{"id": obj{"type": "integer"}}
	for k, v := range input {
		update[k] = v
	}
	input["fields"] = arrayOf(ref("FieldInput"))
	return obj{
		"RecipientSummary":  closed(keys(summary), summary),
		"EnvelopeRecipient": closed(keys(inEnvelope), inEnvelope),
		"Recipient":         closed(keys(detail), detail),
		"RecipientInput":    object([]string{"email", "name", "role"}, input),
		"RecipientUpdate":   object([]string{"id"}, update),
		"SentRecipient": closed([]string{"id", "name", "email", "token", "role", "signingOrder", "signingUrl"}, obj{
			"id": obj{"type": "integer"}, "name": str(""), "email": str(""), "token": str(""), "role": enumFrom(envelope.Roles()),
			"signingOrder": nullable("integer"), "signingUrl": str("{SOBRE_PUBLIC_URL}/sign/{token}")}),
	}
}
