package api

import (
	"sort"

	"github.com/sobre-sign/sobre/envelope"
)

// schemas are the named schemas of the OpenAPI document (components.schemas). What the API
// answers is closed (no member beyond those listed); what it accepts is open, as the decoder
// ignores unknown members.
func schemas() obj {
	duration := func(units ...string) obj {
		return closed([]string{"unit", "amount"}, obj{"unit": enumOf(units...), "amount": obj{"type": "integer", "minimum": 1}})
	}
	mails := []string{"recipientSigningRequest", "recipientRemoved", "recipientSigned", "documentPending", "documentCompleted",
		"documentDeleted", "ownerDocumentCompleted", "ownerRecipientExpired", "ownerDocumentCreated"}
	mailProps := obj{}
	for _, k := range mails {
		mailProps[k] = obj{"type": "boolean", "default": true}
	}
	accessAuth := arrayOf(enumFrom(envelope.AccessAuths()))
	globalActionAuth := arrayOf(enumFrom(envelope.GlobalActionAuths()))
	metaProps := obj{
		"subject": obj{"type": []string{"string", "null"}, "maxLength": envelope.MaxSubject}, "message": obj{"type": []string{"string", "null"}, "maxLength": envelope.MaxMessage},
		"timezone":           obj{"type": []string{"string", "null"}, "description": "an IANA time zone, such as America/Santiago"},
		"dateFormat":         obj{"type": []string{"string", "null"}, "enum": append(anyOf(envelope.DateFormats()), nil)},
		"distributionMethod": enumFrom(envelope.DistributionMethods()),
		"signingOrder":       enumFrom(envelope.SigningOrders()), "allowDictateNextSigner": obj{"type": "boolean"},
		"redirectUrl": obj{"type": []string{"string", "null"}, "description": "an http(s) URL, or empty"}, "language": enumFrom(envelope.Languages()),
		"typedSignatureEnabled": obj{"type": "boolean"}, "uploadSignatureEnabled": obj{"type": "boolean"}, "drawSignatureEnabled": obj{"type": "boolean"},
		"emailId": nullable("string"), "emailReplyTo": obj{"type": []string{"string", "null"}, "format": "email"},
		"emailSettings": object(nil, mailProps),
		"envelopeExpirationPeriod": obj{"oneOf": []any{duration("day", "week", "month", "year"),
			closed([]string{"disabled"}, obj{"disabled": obj{"const": true}}), obj{"type": "null"}}},
		"reminderSettings": nullableOf(closed([]string{"sendAfter", "repeatEvery"},
			obj{"sendAfter": duration("day", "week", "month"), "repeatEvery": duration("day", "week", "month")})),
	}
	documentMeta := obj{"id": str("")}
	for k, v := range metaProps {
		documentMeta[k] = v
	}
	documentMeta["emailSettings"] = closed(mails, mailProps)
	all := withSchemas(withSchemas(withSchemas(obj{
		"Error": closed([]string{"message", "code"}, obj{"message": str(""), "code": str("e.g. INVALID_BODY, NOT_FOUND, UNAUTHORIZED"),
			"issues": arrayOf(closed([]string{"message"}, obj{"message": str(""), "path": str("JSON path of the bad value")}))}),
		"DocumentMeta": closed(keys(documentMeta), documentMeta),
		"MetaInput":    object(nil, metaProps),
		"UseOverride":  object(nil, withSchemas(obj{"title": obj{"type": "string", "minLength": 1, "maxLength": envelope.MaxTitle}}, metaProps)),
		"EnvelopeItem": closed([]string{"id", "envelopeId", "documentDataId", "title", "order"}, obj{
			"id": str(""), "envelopeId": str(""), "documentDataId": str(""), "title": str(""), "order": obj{"type": "integer"}}),
		"Attachment": closed([]string{"id", "type", "label", "data"}, obj{"id": str(""), "type": enumOf("link"), "label": str(""), "data": str("the URI")}),
		"AttachmentInput": object([]string{"label", "data"}, obj{"label": obj{"type": "string", "minLength": 1, "maxLength": envelope.MaxLabel},
			"data": obj{"type": "string", "format": "uri", "maxLength": envelope.MaxAttachmentData}, "type": enumOf("link")}),
		"AuditLogEntry": closed([]string{"id", "createdAt", "envelopeId", "type", "data", "name", "email", "userId", "userAgent", "ipAddress"}, obj{
			"id": str(""), "createdAt": str(""), "envelopeId": str(""), "type": str("e.g. DOCUMENT_CREATED, ENVELOPE_ITEM_CREATED"),
			"data": obj{"type": "object", "description": "the entry type's members"}, "name": nullable("string"), "email": nullable("string"),
			"userId": nullable("integer"), "userAgent": nullable("string"), "ipAddress": nullable("string")}),
		"EnvelopeCreatePayload": object([]string{"title", "type"}, obj{
			"title": obj{"type": "string", "minLength": 1, "maxLength": envelope.MaxTitle}, "type": enumFrom(envelope.Types()),
			"delegatedDocumentOwner": obj{"type": "string", "format": "email"}, "externalId": obj{"type": "string", "maxLength": envelope.MaxExternalID},
			"visibility": enumFrom(envelope.Visibilities()), "globalAccessAuth": accessAuth, "globalActionAuth": globalActionAuth,
			"formValues": formValues(), "folderId": str(""), "recipients": arrayOf(ref("RecipientInput")), "meta": ref("MetaInput"),
			"attachments": arrayOf(ref("AttachmentInput"))}),
	}, envelopeSchemas()), recipientSchemas()), fieldSchemas())
	all["SigningView"] = answered(signingViewSchema())
	return all
}

// formValues is an envelope's form values: a flat object of texts, numbers and booleans.
func formValues() obj {
	return obj{"type": "object", "additionalProperties": obj{"type": []string{"string", "number", "boolean"}}}
}

// anyOf is values as a list of any, for an enum that also takes null.
func anyOf(values []string) []any {
	out := make([]any, 0, len(values)+1)
	for _, v := range values {
		out = append(out, v)
	}
	return out
}

// keys are the member names of props, sorted.
func keys(props obj) []string {
	out := make([]string, 0, len(props))
	for k := range props {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
