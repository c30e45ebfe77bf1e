package api

// schemas are the named schemas of the OpenAPI document (components.schemas).
func schemas() obj {
	duration := func(units ...string) obj {
		return object([]string{"unit", "amount"}, obj{"unit": enumOf(units...), "amount": obj{"type": "integer", "minimum": 1}})
	}
	emailSettings := obj{"type": "object", "properties": obj{}}
	for _, k := range []string{"recipientSigningRequest", "recipientRemoved", "recipientSigned", "documentPending", "documentCompleted",
		"documentDeleted", "ownerDocumentCompleted", "ownerRecipientExpired", "ownerDocumentCreated"} {
		emailSettings["properties"].(obj)[k] = obj{"type": "boolean", "default": true}
	}
	fieldTypes := enumOf("SIGNATURE", "FREE_SIGNATURE", "INITIALS", "NAME", "EMAIL", "DATE", "TEXT", "NUMBER", "RADIO", "CHECKBOX", "DROPDOWN", "RUT", "RUT_FIRMADO")
	roles := enumOf("CC", "SIGNER", "VIEWER", "APPROVER", "ASSISTANT")
	accessAuth := arrayOf(enumOf("ACCOUNT", "TWO_FACTOR_AUTH"))
	actionAuth := arrayOf(enumOf("ACCOUNT", "PASSKEY", "TWO_FACTOR_AUTH", "PASSWORD", "EXPLICIT_NONE", "CLAVE_UNICA", "FAO_HASH"))
	expectedRut := obj{"type": []string{"string", "null"}, "description": "Sobre extension: the RUN (RUT of a person) whose Clave Única login or FAO_HASH certificate alone may sign; another is refused with RUT_MISMATCH, audited and mailed to the owner. Normalised to 12345678-5; null: any. Changing it replaces the signing link.", "x-sobre-extension": "expected identity"}
	recipient := object([]string{"id", "envelopeId", "email", "name", "role", "token", "readStatus", "signingStatus", "sendStatus"}, obj{
		"id": obj{"type": "integer"}, "envelopeId": str(""), "email": str(""), "name": str(""), "role": roles,
		"token":      str("the recipient's signing token; \"\" unless the caller may manage the envelope (its owner, a MANAGER or an ADMIN who sees it)"),
		"readStatus": enumOf("NOT_OPENED", "OPENED"), "signingStatus": enumOf("NOT_SIGNED", "SIGNED", "REJECTED"),
		"sendStatus": enumOf("NOT_SENT", "SENT"), "signingOrder": nullable("integer"), "signedAt": nullable("string"),
		"expired": nullable("string"), "expiresAt": nullable("string"), "expirationNotifiedAt": nullable("string"),
		"documentDeletedAt": nullable("string"), "rejectionReason": nullable("string"),
		"authOptions": object(nil, obj{"accessAuth": accessAuth, "actionAuth": actionAuth}),
		"fields":      arrayOf(ref("Field")), "documentId": nullable("integer"), "templateId": nullable("integer"),
		"expectedRut":   expectedRut,
		"deliveryError": obj{"type": []string{"string", "null"}, "description": "Sobre extension: the mail server's answer to the last mail to this recipient that it refused for good (such as \"550 5.1.1 no such mailbox\"), also in the audit log as EMAIL_REFUSED; null when none, and again once a later mail to them is sent.", "x-sobre-extension": "mail delivery"},
	})
	scalar := obj{
		"id": str(""), "secondaryId": str("document_<n> or template_<n>"), "internalVersion": obj{"type": "integer"},
		"type": enumOf("DOCUMENT", "TEMPLATE"), "status": enumOf("DRAFT", "PENDING", "COMPLETED", "REJECTED", "CANCELLED"),
		"source": enumOf("DOCUMENT", "TEMPLATE", "TEMPLATE_DIRECT_LINK"), "visibility": enumOf("EVERYONE", "MANAGER_AND_ABOVE", "ADMIN"),
		"templateType": enumOf("PUBLIC", "PRIVATE", "ORGANISATION"), "externalId": nullable("string"),
		"createdAt": str(""), "updatedAt": str(""), "completedAt": nullable("string"), "deletedAt": nullable("string"),
		"title": str(""), "authOptions": object(nil, obj{"globalAccessAuth": accessAuth, "globalActionAuth": arrayOf(enumOf("ACCOUNT", "PASSKEY", "TWO_FACTOR_AUTH", "PASSWORD"))}),
		"formValues": nullable("object"), "publicTitle": str(""), "publicDescription": str(""), "userId": obj{"type": "integer"},
		"teamId": obj{"type": "integer"}, "folderId": nullable("string"), "templateId": nullable("integer"),
		"user":       object(nil, obj{"id": obj{"type": "integer"}, "name": str(""), "email": str("")}),
		"team":       object(nil, obj{"id": obj{"type": "integer"}, "url": str("")}),
		"recipients": arrayOf(ref("Recipient")),
	}
	full := obj{}
	for k, v := range scalar {
		full[k] = v
	}
	full["documentMeta"] = ref("DocumentMeta")
	full["fields"] = arrayOf(ref("Field"))
	full["envelopeItems"] = arrayOf(ref("EnvelopeItem"))
	full["attachments"] = arrayOf(ref("Attachment"))
	full["directLink"] = directLinkSchema()
	metaProps := obj{
		"subject": obj{"type": []string{"string", "null"}, "maxLength": 254}, "message": obj{"type": []string{"string", "null"}, "maxLength": 5000},
		"timezone": nullable("string"), "dateFormat": nullable("string"), "distributionMethod": enumOf("EMAIL", "NONE"),
		"signingOrder": enumOf("PARALLEL", "SEQUENTIAL"), "allowDictateNextSigner": obj{"type": "boolean"},
		"redirectUrl": nullable("string"), "language": enumOf("en", "es"), "typedSignatureEnabled": obj{"type": "boolean"},
		"uploadSignatureEnabled": obj{"type": "boolean"}, "drawSignatureEnabled": obj{"type": "boolean"},
		"emailId": nullable("string"), "emailReplyTo": obj{"type": []string{"string", "null"}, "format": "email"},
		"emailSettings":            emailSettings,
		"envelopeExpirationPeriod": obj{"oneOf": []any{duration("day", "week", "month", "year"), object([]string{"disabled"}, obj{"disabled": obj{"const": true}}), obj{"type": "null"}}},
		"reminderSettings":         obj{"oneOf": []any{object([]string{"sendAfter", "repeatEvery"}, obj{"sendAfter": duration("day", "week", "month"), "repeatEvery": duration("day", "week", "month")}), obj{"type": "null"}}},
	}
	documentMeta := obj{"id": str("")}
	for k, v := range metaProps {
		documentMeta[k] = v
	}
	return obj{
		"Error": object([]string{"message", "code"}, obj{"message": str(""), "code": str("e.g. INVALID_BODY, NOT_FOUND, UNAUTHORIZED"),
			"issues": arrayOf(object([]string{"message"}, obj{"message": str(""), "path": str("JSON path of the bad value")}))}),
		"EnvelopeSummary": object([]string{"id", "secondaryId", "type", "status", "title", "recipients"}, scalar),
		"Envelope":        object([]string{"id", "secondaryId", "type", "status", "title", "documentMeta", "recipients", "fields", "envelopeItems"}, full),
		"DocumentMeta":    object([]string{"id", "signingOrder", "distributionMethod", "language", "emailSettings"}, documentMeta),
		"MetaInput":       object(nil, metaProps),
		"EnvelopeItem": object([]string{"id", "envelopeId", "documentDataId", "title", "order"}, obj{
			"id": str(""), "envelopeId": str(""), "documentDataId": str(""), "title": str(""), "order": obj{"type": "integer"}}),
		"Recipient": recipient,
		"RecipientInput": object([]string{"email", "name", "role"}, obj{
			"id": obj{"type": "integer", "description": "update-many only"}, "email": obj{"type": "string", "description": "an email address or the empty string"},
			"name": obj{"type": "string", "maxLength": 255}, "role": roles, "signingOrder": obj{"type": "integer"},
			"accessAuth": accessAuth, "actionAuth": actionAuth, "fields": arrayOf(ref("FieldInput")), "expectedRut": expectedRut}),
		"Field": object([]string{"id", "secondaryId", "envelopeId", "envelopeItemId", "type", "recipientId", "page", "customText", "inserted"}, obj{
			"id": obj{"type": "integer"}, "secondaryId": str(""), "envelopeId": str(""), "envelopeItemId": str(""), "type": fieldTypes,
			"recipientId": obj{"type": "integer"}, "page": obj{"type": "integer", "minimum": 1},
			"positionX": obj{"type": "number", "description": "percent of the page width, from the left"},
			"positionY": obj{"type": "number", "description": "percent of the page height, from the top"},
			"width":     obj{"type": "number"}, "height": obj{"type": "number"}, "customText": str(""), "inserted": obj{"type": "boolean"},
			"fieldMeta": obj{"oneOf": []any{ref("FieldMeta"), obj{"type": "null"}}}, "documentId": nullable("integer"), "templateId": nullable("integer")}),
		"FieldInput": object([]string{"type"}, obj{
			"id": obj{"type": "integer"}, "recipientId": obj{"type": "integer"}, "envelopeItemId": str(""), "type": fieldTypes,
			"fieldMeta": ref("FieldMeta"), "identifier": obj{"type": []string{"string", "integer"}, "description": "create: the file name or 0-based index of the file"},
			"page": obj{"type": "integer", "minimum": 1}, "positionX": obj{"type": "number", "minimum": 0, "maximum": 100},
			"positionY": obj{"type": "number", "minimum": 0, "maximum": 100}, "width": obj{"type": "number", "minimum": 0, "maximum": 100},
			"height": obj{"type": "number", "minimum": 0, "maximum": 100}, "placeholder": str("text to find in the PDF; the field takes its box"),
			"matchAll": obj{"type": "boolean"}}),
		"FieldMeta": object([]string{"type"}, obj{
			"type":  enumOf("signature", "initials", "name", "email", "date", "text", "number", "radio", "checkbox", "dropdown", "rut", "rut_firmado"),
			"label": str(""), "placeholder": str(""), "required": obj{"type": "boolean"}, "readOnly": obj{"type": "boolean"},
			"fontSize": obj{"type": "number", "minimum": 8, "maximum": 96, "default": 12}, "overflow": enumOf("auto", "horizontal", "vertical", "crop"),
			"textAlign": enumOf("left", "center", "right"), "text": str("TEXT and RUT: default value (RUT normalised to 12345678-5)"),
			"characterLimit": obj{"type": "integer"}, "value": str("NUMBER: default value"), "minValue": nullable("number"), "maxValue": nullable("number"),
			"values":    arrayOf(object([]string{"value"}, obj{"id": obj{"type": "integer"}, "checked": obj{"type": "boolean"}, "value": str("")})),
			"direction": enumOf("vertical", "horizontal"), "defaultValue": str("DROPDOWN: default option")}),
		"SigningView": object([]string{"envelope", "recipient", "fields", "mayActNow", "auth"}, obj{
			"envelope": object(nil, obj{"id": str(""), "title": str(""), "status": str(""), "documentMeta": ref("DocumentMeta"),
				"envelopeItems": arrayOf(object(nil, obj{"id": str(""), "title": str(""), "order": obj{"type": "integer"}, "url": str("")})), "ownerName": str("")}),
			"recipient": ref("Recipient"), "fields": arrayOf(ref("Field")), "mayActNow": obj{"type": "boolean"},
			"assisting": obj{"type": "array", "description": "an ASSISTANT's view: the recipients after it whose fields are among fields, which it fills for them",
				"items": object(nil, obj{"id": obj{"type": "integer"}, "name": str(""), "email": str(""), "role": str(""), "signingOrder": nullable("integer")})},
			"waiting": str("why the recipient may not act now: RECIPIENT_OUT_OF_TURN, RECIPIENT_EXPIRED..."), "expired": obj{"type": "boolean"},
			"auth": object(nil, obj{"accessAuth": accessAuth, "actionAuth": actionAuth}),
			"verification": object(nil, obj{
				"accessCodeRequired": obj{"type": "boolean"}, "accessVerified": obj{"type": "boolean"},
				"claveUnicaRequired": obj{"type": "boolean"}, "claveUnicaRun": nullable("string"), "claveUnicaName": nullable("string"),
				"faoHashRequired": obj{"type": "boolean"}, "faoHashVerified": obj{"type": "boolean"}, "digest": nullable("string"),
				"unavailable":     obj{"type": "array", "items": str(""), "description": "methods asked that this server cannot take"},
				"accountRequired": obj{"type": "boolean", "description": "ACCOUNT access: signed in to the account of the recipient's email"},
				"actionMethods":   obj{"type": "array", "items": str(""), "description": "the action methods, any one of which completes"},
				"account": obj{"type": []string{"object", "null"}, "description": "the signer account this browser is signed in to",
					"properties": obj{"email": str(""), "emailVerified": obj{"type": "boolean"}, "totpEnabled": obj{"type": "boolean"}}},
				"accountMatches": obj{"type": "boolean"},
				"accountProofs":  object(nil, obj{"password": obj{"type": "boolean"}, "totp": obj{"type": "boolean"}, "passkey": obj{"type": "boolean"}}),
			}),
			"readableUntil": obj{"type": []string{"string", "null"}, "format": "date-time",
				"description": "once the link ended (the envelope COMPLETED, REJECTED or CANCELLED, or the recipient's deadline passed): when it stops showing the document, its pages and the field values, SOBRE_LINK_READ_DAYS days (30 by default) after the end; after it envelopeItems and fields are empty. Null while the link is open"}}),
		"Attachment": object([]string{"id", "type", "label", "data"}, obj{"id": str(""), "type": enumOf("link"), "label": str(""), "data": str("")}),
		"AuditLogEntry": object([]string{"id", "createdAt", "envelopeId", "type", "data"}, obj{
			"id": str(""), "createdAt": str(""), "envelopeId": str(""), "type": str("e.g. DOCUMENT_CREATED, ENVELOPE_ITEM_CREATED"),
			"data": obj{"type": "object"}, "name": nullable("string"), "email": nullable("string"), "userId": nullable("integer"),
			"userAgent": nullable("string"), "ipAddress": nullable("string")}),
		"EnvelopeCreatePayload": object([]string{"title", "type"}, obj{
			"title": obj{"type": "string", "minLength": 1, "maxLength": 255}, "type": enumOf("DOCUMENT", "TEMPLATE"),
			"delegatedDocumentOwner": obj{"type": "string", "format": "email"}, "externalId": obj{"type": "string", "maxLength": 255},
			"visibility": enumOf("EVERYONE", "MANAGER_AND_ABOVE", "ADMIN"), "globalAccessAuth": accessAuth,
			"globalActionAuth": arrayOf(enumOf("ACCOUNT", "PASSKEY", "TWO_FACTOR_AUTH", "PASSWORD")), "formValues": obj{"type": "object"},
			"folderId": str(""), "recipients": arrayOf(ref("RecipientInput")), "meta": ref("MetaInput"),
			"attachments": arrayOf(object([]string{"label", "data"}, obj{"label": obj{"type": "string", "minLength": 1}, "data": obj{"type": "string", "format": "uri"}, "type": enumOf("link")}))}),
	}
}
