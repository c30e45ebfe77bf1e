package api

import (
	"fmt"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// The operations of the OpenAPI document: one entry per route, with the refusals it documents.

// faoExtension describes the owner's downloads of a FAO_HASH proof, which Documenso has not.
const faoExtension = "Sobre extension (FAO_HASH is not part of Documenso's API). Only a recipient who completed with a FAO_HASH signature has one: 404 otherwise, and for recipients of another team's envelopes. Repr-Digest gives the body's SHA-256."

// sent answers distribute, redistribute: the envelope's recipients with their signing links.
var sent = closed([]string{"success", "id", "recipients"}, obj{"success": obj{"type": "boolean"}, "id": str(""), "recipients": arrayOf(ref("SentRecipient"))})

// operations lists every documented operation of /api/v2.
func operations() []operation {
	envelopeID := obj{"type": "string", "pattern": "^envelope_"}
	batch := func(item string) obj {
		return object([]string{"envelopeId", "data"}, obj{"envelopeId": envelopeID, "data": obj{"type": "array", "items": ref(item), "minItems": 1}})
	}
	pdfs := obj{"type": "array", "items": obj{"type": "string", "contentMediaType": "application/pdf"},
		"description": "the PDF files, as parts named files or files[] (as Documenso's SDK names them)"}
	return []operation{
		{method: "GET", path: "/envelope", id: "envelope-find", summary: "Search envelopes",
			params: append([]obj{
				queryParam("query", str(fmt.Sprintf("at least %d characters: a substring of the title, external id, a recipient's email or name; one shaped like an email (x@…) matches the beginning of a recipient's email. count stops at %d matches, and only those are paged (docs/scale.md)", envelope.MinSearchQuery, persistence.FindCountCap)), false),
				queryParam("type", enumOf("DOCUMENT", "TEMPLATE"), false),
				queryParam("templateId", obj{"type": "integer"}, false),
				queryParam("source", enumOf("DOCUMENT", "TEMPLATE", "TEMPLATE_DIRECT_LINK"), false),
				queryParam("status", enumOf("DRAFT", "PENDING", "COMPLETED", "REJECTED", "CANCELLED"), false),
				queryParam("hasExpiredRecipients", enumOf("true", "false"), false),
				queryParam("folderId", str(""), false),
			}, listParams...),
			response: pageOf(ref("EnvelopeSummary"))},
		{method: "POST", path: "/envelope/create", id: "envelope-create", summary: "Create an envelope from PDF files",
			multipart: true, body: object([]string{"payload"}, obj{
				"payload": ref("EnvelopeCreatePayload"),
				"files":   pdfs, "files[]": pdfs,
			}), response: idOnly},
		{method: "POST", path: "/envelope/get-many", id: "envelope-get-many", summary: "Get up to 20 envelopes by id",
			body: object([]string{"ids"}, obj{"ids": obj{"oneOf": []any{
				object([]string{"type", "ids"}, obj{"type": enumOf("envelopeId"), "ids": obj{"type": "array", "items": envelopeID, "minItems": 1, "maxItems": 20}}),
				object([]string{"type", "ids"}, obj{"type": enumOf("documentId", "templateId"),
					"ids": obj{"type": "array", "items": obj{"type": "integer", "minimum": 1}, "minItems": 1, "maxItems": 20}}),
			}}}),
			response: object([]string{"data"}, obj{"data": arrayOf(ref("Envelope"))})},
		{method: "POST", path: "/envelope/update", id: "envelope-update", summary: "Update an envelope's data and meta",
			body: object([]string{"envelopeId"}, obj{"envelopeId": envelopeID, "meta": ref("MetaInput"), "data": object(nil, obj{
				"title": obj{"type": "string", "minLength": 1, "maxLength": envelope.MaxTitle}, "externalId": obj{"type": []string{"string", "null"}, "maxLength": envelope.MaxExternalID},
				"visibility": enumFrom(envelope.Visibilities()), "globalAccessAuth": arrayOf(enumFrom(envelope.AccessAuths())),
				"globalActionAuth": arrayOf(enumFrom(envelope.GlobalActionAuths())), "folderId": nullable("string"),
				"templateType": enumFrom(envelope.TemplateTypes())})}),
			response: ref("EnvelopeSummary")},
		{method: "GET", path: "/envelope/{envelopeId}", id: "envelope-get", summary: "Get an envelope",
			params: []obj{pathParam("envelopeId", "string")}, response: ref("Envelope")},
		{method: "GET", path: "/envelope/{envelopeId}/audit-log", id: "envelope-audit-log-find", summary: "An envelope's audit log",
			params: append([]obj{pathParam("envelopeId", "string"), queryParam("includeExtensions", obj{"type": "boolean", "description": "Sobre extension: list every entry as written, Sobre's own entry types (DOCUMENT_ACCESS_AUTH_2FA_LOCKED, DOCUMENT_RECIPIENT_AUTH_FAILED, RECIPIENT_IDENTITY_REFUSED, EMAIL_REFUSED) and Sobre's data (EXPECTED_RUT changes, CLAVE_UNICA and FAO_HASH methods, RUT field types) included. False by default: entries in Documenso's shapes only, which Documenso's clients parse", "x-sobre-extension": "audit"}, false)},
				listParams...), response: pageOf(ref("AuditLogEntry"))},
		{method: "GET", path: "/envelope/attachment", id: "envelope-attachment-find", summary: "List an envelope's attachments",
			params:   []obj{queryParam("envelopeId", str(""), true), queryParam("token", str("a recipient's signing token"), false)},
			response: object([]string{"data"}, obj{"data": arrayOf(ref("Attachment"))})},
		{method: "POST", path: "/envelope/attachment/create", id: "envelope-attachment-create", summary: "Add a link attachment",
			body:     object([]string{"envelopeId", "data"}, obj{"envelopeId": envelopeID, "data": ref("AttachmentInput")}),
			response: idOnly},
		{method: "POST", path: "/envelope/field/create-many", id: "envelope-field-create-many", summary: "Create fields by coordinates or placeholder",
			body: batch("FieldCreate"), response: object([]string{"data"}, obj{"data": arrayOf(ref("Field"))})},
		{method: "POST", path: "/envelope/field/update-many", id: "envelope-field-update-many", summary: "Update fields (DRAFT only)",
			body: batch("FieldUpdate"), response: object([]string{"data"}, obj{"data": arrayOf(ref("Field"))})},
		{method: "POST", path: "/envelope/field/delete", id: "envelope-field-delete", summary: "Delete a field",
			body: object([]string{"fieldId"}, obj{"fieldId": obj{"type": "integer"}}), response: success},
		{method: "GET", path: "/envelope/field/{fieldId}", id: "envelope-field-get", summary: "Get a field",
			params: []obj{pathParam("fieldId", "integer")}, response: ref("Field")},
		{method: "POST", path: "/envelope/recipient/create-many", id: "envelope-recipient-create-many", summary: "Add recipients",
			body: batch("RecipientInput"), response: object([]string{"data"}, obj{"data": arrayOf(ref("Recipient"))})},
		{method: "POST", path: "/envelope/recipient/update-many", id: "envelope-recipient-update-many", summary: "Update recipients (not once finished)",
			body: batch("RecipientUpdate"), response: object([]string{"data"}, obj{"data": arrayOf(ref("Recipient"))})},
		{method: "POST", path: "/envelope/recipient/delete", id: "envelope-recipient-delete", summary: "Remove a recipient",
			body: object([]string{"recipientId"}, obj{"recipientId": obj{"type": "integer"}}), response: success},
		{method: "GET", path: "/envelope/recipient/{recipientId}", id: "envelope-recipient-get", summary: "Get a recipient with its fields",
			params: []obj{pathParam("recipientId", "integer")}, response: ref("Recipient")},
		{method: "GET", path: "/envelope/recipient/{recipientId}/fao-digest-input", id: "envelope-recipient-fao-digest-input",
			summary: "The exact bytes a recipient's FAO_HASH signature covers: their SHA-256 is the signed digest (docs/fao-hash.md)",
			params:  []obj{pathParam("recipientId", "integer")}, extension: faoExtension,
			response: obj{"type": "string", "contentMediaType": "application/octet-stream"}, responseType: "application/octet-stream"},
		{method: "GET", path: "/envelope/recipient/{recipientId}/fao-signature", id: "envelope-recipient-fao-signature",
			summary: "A recipient's FAO_HASH signature: the CMS (DER) they gave over the digest",
			params:  []obj{pathParam("recipientId", "integer")}, extension: faoExtension,
			response: obj{"type": "string", "contentMediaType": "application/pkcs7-signature"}, responseType: "application/pkcs7-signature"},
		{method: "GET", path: "/envelope/recipient/{recipientId}/fao-ocsp", id: "envelope-recipient-fao-ocsp",
			summary: "The OCSP response (DER) about a recipient's FAO_HASH certificate, when its revocation was checked",
			params:  []obj{pathParam("recipientId", "integer")}, extension: faoExtension,
			response: obj{"type": "string", "contentMediaType": "application/ocsp-response"}, responseType: "application/ocsp-response"},
		{method: "POST", path: "/envelope/distribute", id: "envelope-distribute", summary: "Send the envelope to its recipients",
			body:     object([]string{"envelopeId"}, obj{"envelopeId": envelopeID, "meta": ref("MetaInput")}),
			response: sent},
		{method: "POST", path: "/envelope/cancel", id: "envelope-cancel", summary: "Cancel a PENDING envelope",
			body: object([]string{"envelopeId"}, obj{"envelopeId": envelopeID, "reason": str("")}), response: success},
		{method: "POST", path: "/envelope/recipient/{recipientId}/reject", id: "envelope-recipient-reject", summary: "Record a rejection on a recipient's behalf",
			params: []obj{pathParam("recipientId", "integer")},
			body: object([]string{"envelopeId", "reason"}, obj{"envelopeId": envelopeID, "reason": obj{"type": "string", "minLength": 1},
				"actAsEmail": obj{"type": "string", "format": "email"}}), response: ref("Recipient")},
		{method: "POST", path: "/envelope/use", id: "envelope-use", summary: "Create a document from a template",
			multipart: true, body: object([]string{"payload"}, obj{
				"payload": object([]string{"envelopeId"}, obj{
					"envelopeId": envelopeID, "externalId": str(""), "distributeDocument": obj{"type": "boolean"}, "folderId": str(""),
					"recipients": arrayOf(object([]string{"id", "email"}, obj{"id": obj{"type": "integer"}, "email": str(""), "name": str(""), "signingOrder": obj{"type": []string{"integer", "null"}},
						"expectedRut": obj{"type": []string{"string", "null"}, "description": "Sobre extension: replaces the template recipient's expected RUN; null clears it"}})),
					"customDocumentData": arrayOf(object([]string{"identifier", "envelopeItemId"}, obj{"identifier": obj{"type": []string{"string", "integer"}}, "envelopeItemId": str("")})),
					"prefillFields":      arrayOf(prefillSchema()),
					"override":           ref("UseOverride"), "attachments": arrayOf(ref("AttachmentInput")), "formValues": formValues()}),
				"files": pdfs, "files[]": pdfs,
			}),
			response: closed([]string{"id", "recipients"}, obj{"id": str(""), "recipients": arrayOf(ref("SentRecipient"))})},
		{method: "POST", path: "/envelope/duplicate", id: "envelope-duplicate", summary: "Copy an envelope into a new DRAFT",
			body: object([]string{"envelopeId"}, obj{"envelopeId": envelopeID, "includeRecipients": obj{"type": "boolean"}, "includeFields": obj{"type": "boolean"}}), response: idOnly},
		{method: "POST", path: "/envelope/delete", id: "envelope-delete", summary: "Delete an envelope (DRAFT or PENDING: removed; finished: hidden)",
			body: object([]string{"envelopeId"}, obj{"envelopeId": envelopeID}), response: success},
		{method: "POST", path: "/envelope/redistribute", id: "envelope-redistribute", summary: "Send again to recipients who have not acted",
			body:     object([]string{"envelopeId", "recipients"}, obj{"envelopeId": envelopeID, "recipients": arrayOf(obj{"type": "integer"})}),
			response: sent},
		{method: "POST", path: "/envelope/item/create-many", id: "envelope-item-create-many", summary: "Add documents to a DRAFT",
			multipart: true, body: object([]string{"payload"}, obj{"payload": object([]string{"envelopeId"}, obj{"envelopeId": envelopeID}),
				"files": pdfs, "files[]": pdfs}),
			response: object([]string{"data"}, obj{"data": arrayOf(ref("EnvelopeItem"))})},
		{method: "POST", path: "/envelope/item/update-many", id: "envelope-item-update-many", summary: "Rename or reorder documents of a DRAFT",
			body: object([]string{"envelopeId", "data"}, obj{"envelopeId": envelopeID, "data": arrayOf(object([]string{"envelopeItemId"}, obj{
				"envelopeItemId": str(""), "order": obj{"type": "integer"}, "title": str("")}))}),
			response: object([]string{"data"}, obj{"data": arrayOf(closed([]string{"id", "envelopeId", "title", "order"}, obj{
				"id": str(""), "envelopeId": str(""), "title": str(""), "order": obj{"type": "integer"}}))})},
		{method: "POST", path: "/envelope/item/delete", id: "envelope-item-delete", summary: "Remove a document from a DRAFT",
			body: object([]string{"envelopeId", "envelopeItemId"}, obj{"envelopeId": envelopeID, "envelopeItemId": str("")}), response: success},
		{method: "GET", path: "/envelope/item/{envelopeItemId}/download", id: "envelope-item-download", summary: "Download a document (version=original: as uploaded; signed, the default: sealed once COMPLETED, the current document before)",
			params:   []obj{pathParam("envelopeItemId", "string"), queryParam("version", obj{"type": "string", "enum": []string{"signed", "original", ""}, "default": "signed", "description": "empty: signed"}, false)},
			response: obj{"type": "string", "contentMediaType": "application/pdf"}, responseType: "application/pdf"},
		{method: "GET", path: "/envelope/{envelopeId}/certificate/download", id: "envelope-certificate-download", summary: "The certificate of completion, signed with the seal (once COMPLETED)",
			params:   []obj{pathParam("envelopeId", "string")},
			response: obj{"type": "string", "contentMediaType": "application/pdf"}, responseType: "application/pdf"},
		{method: "GET", path: "/envelope/{envelopeId}/audit-log/download", id: "envelope-audit-log-download", summary: "The audit trail as a PDF, with its hash chain's final hash",
			params:   []obj{pathParam("envelopeId", "string")},
			response: obj{"type": "string", "contentMediaType": "application/pdf"}, responseType: "application/pdf"},
		{method: "POST", path: "/envelope/attachment/update", id: "envelope-attachment-update", summary: "Change a link attachment",
			body: object([]string{"id", "data"}, obj{"id": str(""), "data": ref("AttachmentInput")}), response: success},
		{method: "POST", path: "/envelope/attachment/delete", id: "envelope-attachment-delete", summary: "Remove a link attachment",
			body: object([]string{"id"}, obj{"id": str("")}), response: success},
		{method: "GET", path: "/signing/{token}", id: "signing-view", summary: "A recipient's view of the envelope (token-authenticated; marks it opened)",
			params: []obj{pathParam("token", "string")}, response: ref("SigningView"), public: true},
		{method: "GET", path: "/signing/{token}/items/{itemId}", id: "signing-item", summary: "An envelope item's PDF, for its recipient",
			params:   []obj{pathParam("token", "string"), pathParam("itemId", "string")},
			response: obj{"type": "string", "contentMediaType": "application/pdf"}, responseType: "application/pdf", public: true,
			errors: obj{"410": "SIGNING_LINK_ENDED: the link ended (the envelope finished, or the recipient's deadline passed) more than SOBRE_LINK_READ_DAYS days ago (30 by default), and no longer shows the document; SIGNING_LINK_REPLACED: a newer link replaced this one (its recipient's email, authentication or expected RUN changed)"}},
		{method: "POST", path: "/signing/{token}/fields", id: "signing-field", summary: "Fill (or, with null, clear) one of the recipient's fields",
			params: []obj{pathParam("token", "string")},
			body: object([]string{"fieldId", "value"}, obj{"fieldId": obj{"type": "integer"},
				"value": obj{"type": []string{"string", "array", "null"}, "items": str(""),
					"description": "a string; for CHECKBOX an array of option values; for SIGNATURE and INITIALS typed text or data:image/png;base64,…; null clears"}}),
			response: ref("Field"), public: true},
		{method: "POST", path: "/signing/{token}/complete", id: "signing-complete", summary: "Sign, approve or mark viewed, in turn",
			params: []obj{pathParam("token", "string")},
			body:   object(nil, obj{"nextSigner": object([]string{"email", "name"}, obj{"email": str(""), "name": str("")})}),
			response: closed([]string{"success", "status"}, obj{"success": obj{"type": "boolean"}, "status": enumFrom(envelope.Statuses()),
				"redirectUrl": nullable("string")}), public: true, optionalBody: true},
		{method: "POST", path: "/signing/{token}/reject", id: "signing-reject", summary: "Reject the envelope",
			params:   []obj{pathParam("token", "string")},
			body:     object([]string{"reason"}, obj{"reason": obj{"type": "string", "minLength": 1}}),
			response: closed([]string{"success", "status"}, obj{"success": obj{"type": "boolean"}, "status": enumOf(string(envelope.StatusRejected))}), public: true},
		{method: "GET", path: "/signing/{token}/fea", id: "signing-fea-digest", summary: "The FAO_HASH digest the recipient signs with an advanced electronic signature (docs/fao-hash.md)",
			params: []obj{pathParam("token", "string")},
			response: object([]string{"envelopeId", "recipientId", "algorithm", "digest", "verified"}, obj{"envelopeId": str(""), "recipientId": obj{"type": "integer"},
				"algorithm": str("SHA-256"), "digest": str("64 lowercase hex digits"), "verified": obj{"type": "boolean"}}), public: true},
		{method: "POST", path: "/signing/{token}/fea", id: "signing-fea", summary: "Give a detached CMS signature over the FAO_HASH digest; verified against the trust roots",
			params: []obj{pathParam("token", "string")},
			body:   object([]string{"signature"}, obj{"signature": str("base64 of the DER CMS, or PEM")}),
			response: object([]string{"verified", "rut"}, obj{"verified": obj{"type": "boolean"}, "rut": str(""), "subject": str(""), "issuer": str(""),
				"revocation": str(`the certificate's revocation status: "good (OCSP, <responder>, <thisUpdate>)" or "not checked: <reason>"`)}), public: true},
		{method: "POST", path: "/signing/{token}/auth/password", id: "signing-auth-password", summary: "PASSWORD action auth: the signed-in account's password, typed again (valid 5 minutes; docs/signer-accounts.md)",
			params: []obj{pathParam("token", "string")}, body: object([]string{"password"}, obj{"password": str("")}),
			response: accountProof, public: true, errors: accountProofErrors},
		{method: "POST", path: "/signing/{token}/auth/totp", id: "signing-auth-totp", summary: "TWO_FACTOR_AUTH action auth: a code of the signed-in account's authenticator app, or a recovery code (valid 5 minutes)",
			params: []obj{pathParam("token", "string")}, body: object([]string{"code"}, obj{"code": str("six digits, or a recovery code")}),
			response: accountProof, public: true, errors: accountProofErrors},
		{method: "POST", path: "/signing/{token}/auth/passkey/options", id: "signing-auth-passkey-options", summary: "PASSKEY action auth: the options for navigator.credentials.get (user verification required)",
			params: []obj{pathParam("token", "string")}, response: object([]string{"publicKey"}, obj{"publicKey": obj{"type": "object"}}), public: true, errors: accountProofErrors},
		{method: "POST", path: "/signing/{token}/auth/passkey", id: "signing-auth-passkey", summary: "PASSKEY action auth: the assertion navigator.credentials.get gave (valid 5 minutes)",
			params: []obj{pathParam("token", "string")}, body: object([]string{"credential"}, obj{"credential": obj{"type": "object", "description": "the PublicKeyCredential as JSON, binary members base64url"}}),
			response: accountProof, public: true, errors: accountProofErrors},
	}
}

// accountProof answers an account proof on a signing link.
var accountProof = object([]string{"verified", "method"}, obj{"verified": obj{"type": "boolean"}, "method": str(""), "credentialId": str("the passkey's, base64url")})

// accountProofErrors are the refusals of an account proof.
var accountProofErrors = obj{
	"401": "ACCOUNT_REQUIRED: not signed in to the account of the recipient's email; ACCOUNT_MISMATCH: signed in to another address's; EMAIL_NOT_VERIFIED; AUTHENTICATION_FAILED: a wrong password, code or assertion (counted: 10 wrong passwords in a row lock passwords, 10 wrong codes or assertions lock codes and passkeys); AUTH_NOT_ENROLLED: no authenticator app or passkey on the account",
	"429": "ACCOUNT_LOCKED: 10 failures of one kind in a row (passwords; codes and passkey assertions) lock that kind of proof for 15 minutes (Retry-After)",
}

// prefillSchema is a value given to a template's field as a document is made from it
// (envelope.Prefill).
func prefillSchema() obj {
	return object([]string{"id", "type"}, obj{"id": obj{"type": "integer"}, "type": enumOf("text", "number", "radio", "checkbox", "dropdown", "date"),
		"label": str(""), "placeholder": str(""), "value": obj{"type": []string{"string", "array"}, "items": str(""), "description": "a string; an array of strings for checkbox"}})
}
