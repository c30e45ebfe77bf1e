package api

import (
	"net/http"
	"strings"
	"sync"
)

// The OpenAPI 3.1 document of the API, built from Go values so that a test can check it against
// the router: every route is documented and every documented operation is routed.

type obj = map[string]any

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func str(desc string) obj {
	o := obj{"type": "string"}
	if desc != "" {
		o["description"] = desc
	}
	return o
}

func nullable(t string) obj       { return obj{"type": []string{t, "null"}} }
func enumOf(values ...string) obj { return obj{"type": "string", "enum": values} }
func arrayOf(items obj) obj       { return obj{"type": "array", "items": items} }
func object(required []string, props obj) obj {
	o := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// operation describes one route: its summary, parameters, body schema and success schema.
type operation struct {
	method, path, id, summary string
	params                    []obj
	body                      obj
	multipart                 bool
	response                  obj
	responseType              string // content type of the success body; default JSON
	public                    bool   // authenticated by the recipient's token, not an API key
	errors                    obj    // error answers beyond the common ones: status → description
	extension                 string // beyond Documenso's API: what Sobre adds, for x-sobre-extension
}

func pathParam(name, typ string) obj {
	return obj{"name": name, "in": "path", "required": true, "schema": obj{"type": typ}}
}

func queryParam(name string, schema obj, required bool) obj {
	return obj{"name": name, "in": "query", "required": required, "schema": schema}
}

var listParams = []obj{
	queryParam("page", obj{"type": "integer", "minimum": 1, "default": 1}, false),
	queryParam("perPage", obj{"type": "integer", "minimum": 1, "maximum": 100}, false),
	queryParam("orderByColumn", enumOf("createdAt"), false),
	queryParam("orderByDirection", enumOf("asc", "desc"), false),
}

func pageOf(item obj) obj {
	return object([]string{"data", "count", "currentPage", "perPage", "totalPages"}, obj{
		"data": arrayOf(item), "count": obj{"type": "integer"}, "currentPage": obj{"type": "integer"},
		"perPage": obj{"type": "integer"}, "totalPages": obj{"type": "integer"},
	})
}

var success = object([]string{"success"}, obj{"success": obj{"type": "boolean"}})
var idOnly = object([]string{"id"}, obj{"id": str("")})

// faoExtension describes the owner's downloads of a FAO_HASH proof, which Documenso has not.
const faoExtension = "Sobre extension (FAO_HASH is not part of Documenso's API). Only a recipient who completed with a FAO_HASH signature has one: 404 otherwise, and for recipients of another team's envelopes. Repr-Digest gives the body's SHA-256."

// operations lists every documented operation of /api/v2.
func operations() []operation {
	envelopeID := obj{"type": "string", "pattern": "^envelope_"}
	fieldsBody := object([]string{"envelopeId", "data"}, obj{"envelopeId": envelopeID, "data": arrayOf(ref("FieldInput"))})
	recipientsBody := object([]string{"envelopeId", "data"}, obj{"envelopeId": envelopeID, "data": arrayOf(ref("RecipientInput"))})
	return []operation{
		{method: "GET", path: "/envelope", id: "envelope-find", summary: "Search envelopes",
			params: append([]obj{
				queryParam("query", str("matches title, external id, recipient email or name"), false),
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
				"files":   arrayOf(obj{"type": "string", "contentMediaType": "application/pdf"}),
			}), response: idOnly},
		{method: "POST", path: "/envelope/get-many", id: "envelope-get-many", summary: "Get up to 20 envelopes by id",
			body: object([]string{"ids"}, obj{"ids": object([]string{"type", "ids"}, obj{
				"type": enumOf("envelopeId", "documentId", "templateId"),
				"ids":  arrayOf(obj{"type": []string{"string", "integer"}}),
			})}),
			response: object([]string{"data"}, obj{"data": arrayOf(ref("Envelope"))})},
		{method: "POST", path: "/envelope/update", id: "envelope-update", summary: "Update an envelope's data and meta",
			body:     object([]string{"envelopeId"}, obj{"envelopeId": envelopeID, "data": obj{"type": "object"}, "meta": ref("MetaInput")}),
			response: ref("EnvelopeSummary")},
		{method: "GET", path: "/envelope/{envelopeId}", id: "envelope-get", summary: "Get an envelope",
			params: []obj{pathParam("envelopeId", "string")}, response: ref("Envelope")},
		{method: "GET", path: "/envelope/{envelopeId}/audit-log", id: "envelope-audit-log-find", summary: "An envelope's audit log",
			params: append([]obj{pathParam("envelopeId", "string")}, listParams...), response: pageOf(ref("AuditLogEntry"))},
		{method: "GET", path: "/envelope/attachment", id: "envelope-attachment-find", summary: "List an envelope's attachments",
			params:   []obj{queryParam("envelopeId", str(""), true), queryParam("token", str("a recipient's signing token"), false)},
			response: object([]string{"data"}, obj{"data": arrayOf(ref("Attachment"))})},
		{method: "POST", path: "/envelope/attachment/create", id: "envelope-attachment-create", summary: "Add a link attachment",
			body: object([]string{"envelopeId", "data"}, obj{"envelopeId": envelopeID, "data": object([]string{"label", "data"}, obj{
				"label": obj{"type": "string", "minLength": 1}, "data": obj{"type": "string", "format": "uri"}})}),
			response: idOnly},
		{method: "POST", path: "/envelope/field/create-many", id: "envelope-field-create-many", summary: "Create fields by coordinates or placeholder",
			body: fieldsBody, response: object([]string{"data"}, obj{"data": arrayOf(ref("Field"))})},
		{method: "POST", path: "/envelope/field/update-many", id: "envelope-field-update-many", summary: "Update fields (DRAFT only)",
			body: fieldsBody, response: object([]string{"data"}, obj{"data": arrayOf(ref("Field"))})},
		{method: "POST", path: "/envelope/field/delete", id: "envelope-field-delete", summary: "Delete a field",
			body: object([]string{"fieldId"}, obj{"fieldId": obj{"type": "integer"}}), response: success},
		{method: "GET", path: "/envelope/field/{fieldId}", id: "envelope-field-get", summary: "Get a field",
			params: []obj{pathParam("fieldId", "integer")}, response: ref("Field")},
		{method: "POST", path: "/envelope/recipient/create-many", id: "envelope-recipient-create-many", summary: "Add recipients",
			body: recipientsBody, response: object([]string{"data"}, obj{"data": arrayOf(ref("Recipient"))})},
		{method: "POST", path: "/envelope/recipient/update-many", id: "envelope-recipient-update-many", summary: "Update recipients (not once finished)",
			body: recipientsBody, response: object([]string{"data"}, obj{"data": arrayOf(ref("Recipient"))})},
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
			body: object([]string{"envelopeId"}, obj{"envelopeId": envelopeID, "meta": ref("MetaInput")}),
			response: object([]string{"success", "id", "recipients"}, obj{"success": obj{"type": "boolean"}, "id": str(""),
				"recipients": arrayOf(object([]string{"id", "name", "email", "token", "role", "signingOrder", "signingUrl"}, obj{
					"id": obj{"type": "integer"}, "name": str(""), "email": str(""), "token": str(""), "role": str(""),
					"signingOrder": nullable("integer"), "signingUrl": str("{SOBRE_PUBLIC_URL}/sign/{token}")}))})},
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
					"recipients": arrayOf(object([]string{"id", "email"}, obj{"id": obj{"type": "integer"}, "email": str(""), "name": str(""), "signingOrder": obj{"type": "integer"},
						"expectedRut": obj{"type": []string{"string", "null"}, "description": "Sobre extension: replaces the template recipient's expected RUN; null clears it"}})),
					"customDocumentData": arrayOf(object([]string{"identifier", "envelopeItemId"}, obj{"identifier": obj{"type": []string{"string", "integer"}}, "envelopeItemId": str("")})),
					"prefillFields": arrayOf(object([]string{"id", "type"}, obj{"id": obj{"type": "integer"}, "type": enumOf("text", "number", "radio", "checkbox", "dropdown", "date"),
						"label": str(""), "placeholder": str(""), "value": obj{"description": "a string; an array of strings for checkbox"}})),
					"override": ref("MetaInput"), "attachments": arrayOf(ref("Attachment")), "formValues": obj{"type": "object"}}),
				"files": arrayOf(obj{"type": "string", "contentMediaType": "application/pdf"}),
			}),
			response: object([]string{"id", "recipients"}, obj{"id": str(""), "recipients": arrayOf(obj{"type": "object"})})},
		{method: "POST", path: "/envelope/duplicate", id: "envelope-duplicate", summary: "Copy an envelope into a new DRAFT",
			body: object([]string{"envelopeId"}, obj{"envelopeId": envelopeID, "includeRecipients": obj{"type": "boolean"}, "includeFields": obj{"type": "boolean"}}), response: idOnly},
		{method: "POST", path: "/envelope/delete", id: "envelope-delete", summary: "Delete an envelope (DRAFT or PENDING: removed; finished: hidden)",
			body: object([]string{"envelopeId"}, obj{"envelopeId": envelopeID}), response: success},
		{method: "POST", path: "/envelope/redistribute", id: "envelope-redistribute", summary: "Send again to recipients who have not acted",
			body:     object([]string{"envelopeId", "recipients"}, obj{"envelopeId": envelopeID, "recipients": arrayOf(obj{"type": "integer"})}),
			response: object([]string{"success", "id", "recipients"}, obj{"success": obj{"type": "boolean"}, "id": str(""), "recipients": arrayOf(obj{"type": "object"})})},
		{method: "POST", path: "/envelope/item/create-many", id: "envelope-item-create-many", summary: "Add documents to a DRAFT",
			multipart: true, body: object([]string{"payload"}, obj{"payload": object([]string{"envelopeId"}, obj{"envelopeId": envelopeID}),
				"files": arrayOf(obj{"type": "string", "contentMediaType": "application/pdf"})}),
			response: object([]string{"data"}, obj{"data": arrayOf(ref("EnvelopeItem"))})},
		{method: "POST", path: "/envelope/item/update-many", id: "envelope-item-update-many", summary: "Rename or reorder documents of a DRAFT",
			body: object([]string{"envelopeId", "data"}, obj{"envelopeId": envelopeID, "data": arrayOf(object([]string{"envelopeItemId"}, obj{
				"envelopeItemId": str(""), "order": obj{"type": "integer"}, "title": str("")}))}),
			response: object([]string{"data"}, obj{"data": arrayOf(ref("EnvelopeItem"))})},
		{method: "POST", path: "/envelope/item/delete", id: "envelope-item-delete", summary: "Remove a document from a DRAFT",
			body: object([]string{"envelopeId", "envelopeItemId"}, obj{"envelopeId": envelopeID, "envelopeItemId": str("")}), response: success},
		{method: "GET", path: "/envelope/item/{envelopeItemId}/download", id: "envelope-item-download", summary: "Download a document (version=original: as uploaded; signed, the default: sealed, once COMPLETED)",
			params:   []obj{pathParam("envelopeItemId", "string"), queryParam("version", enumOf("original", "signed"), false)},
			response: obj{"type": "string", "contentMediaType": "application/pdf"}, responseType: "application/pdf"},
		{method: "GET", path: "/envelope/{envelopeId}/certificate/download", id: "envelope-certificate-download", summary: "The certificate of completion, signed with the seal (once COMPLETED)",
			params:   []obj{pathParam("envelopeId", "string")},
			response: obj{"type": "string", "contentMediaType": "application/pdf"}, responseType: "application/pdf"},
		{method: "GET", path: "/envelope/{envelopeId}/audit-log/download", id: "envelope-audit-log-download", summary: "The audit trail as a PDF, with its hash chain's final hash",
			params:   []obj{pathParam("envelopeId", "string")},
			response: obj{"type": "string", "contentMediaType": "application/pdf"}, responseType: "application/pdf"},
		{method: "POST", path: "/envelope/attachment/update", id: "envelope-attachment-update", summary: "Change a link attachment",
			body: object([]string{"id", "data"}, obj{"id": str(""), "data": object([]string{"label", "data"}, obj{"label": str(""), "data": str("")})}), response: success},
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
				"value": obj{"description": "a string; for CHECKBOX an array of option values; for SIGNATURE and INITIALS typed text or data:image/png;base64,…; null clears"}}),
			response: ref("Field"), public: true},
		{method: "POST", path: "/signing/{token}/complete", id: "signing-complete", summary: "Sign, approve or mark viewed, in turn",
			params:   []obj{pathParam("token", "string")},
			body:     object(nil, obj{"nextSigner": object([]string{"email", "name"}, obj{"email": str(""), "name": str("")})}),
			response: object([]string{"success", "status"}, obj{"success": obj{"type": "boolean"}, "status": str(""), "redirectUrl": nullable("string")}), public: true},
		{method: "POST", path: "/signing/{token}/reject", id: "signing-reject", summary: "Reject the envelope",
			params:   []obj{pathParam("token", "string")},
			body:     object([]string{"reason"}, obj{"reason": obj{"type": "string", "minLength": 1}}),
			response: object([]string{"success", "status"}, obj{"success": obj{"type": "boolean"}, "status": str("")}), public: true},
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
		"expectedRut": expectedRut,
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
	full["directLink"] = nullable("object")
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

var (
	openAPIOnce sync.Once
	openAPIDoc  obj
)

// OpenAPI returns the OpenAPI 3.1 document of /api/v2.
func OpenAPI() map[string]any {
	openAPIOnce.Do(func() {
		errResp := func(desc string) obj {
			return obj{"description": desc, "content": obj{"application/json": obj{"schema": ref("Error")}}}
		}
		paths := obj{}
		for _, op := range operations() {
			item, _ := paths[op.path].(obj)
			if item == nil {
				item = obj{}
				paths[op.path] = item
			}
			ct := op.responseType
			if ct == "" {
				ct = "application/json"
			}
			security := []any{obj{"apiKey": []string{}}}
			if op.public {
				security = []any{}
			}
			o := obj{
				"operationId": op.id,
				"summary":     op.summary,
				"security":    security,
				"responses": obj{
					"200": obj{"description": "Successful response", "content": obj{ct: obj{"schema": op.response}}},
					"400": errResp("Invalid input data"), "401": errResp("Authorization not provided"),
					"403": errResp("Insufficient access"), "404": errResp("Not found"), "500": errResp("Internal server error"),
					"429": errResp("Too many requests: a rate limit, or the team's mail quota; see Retry-After"),
				},
			}
			for status, desc := range op.errors {
				o["responses"].(obj)[status] = errResp(desc.(string))
			}
			if len(op.params) > 0 {
				o["parameters"] = op.params
			}
			if op.extension != "" {
				o["x-sobre-extension"] = true
				o["description"] = op.extension
			}
			if op.body != nil {
				mt := "application/json"
				if op.multipart {
					mt = "multipart/form-data"
				}
				o["requestBody"] = obj{"required": true, "content": obj{mt: obj{"schema": op.body}}}
			}
			item[strings.ToLower(op.method)] = o
		}
		openAPIDoc = obj{
			"openapi": "3.1.0",
			"info": obj{"title": "Sobre envelope API", "version": "1.0.0",
				"description": "Documenso-compatible envelope API v2, extended for Chile (RUT and RUT_FIRMADO fields, CLAVE_UNICA and FAO_HASH signer authentication)."},
			"servers": []any{obj{"url": "/api/v2"}},
			"components": obj{
				"securitySchemes": obj{"apiKey": obj{"type": "apiKey", "in": "header", "name": "Authorization",
					"description": "An API key, as `<key>` or `Bearer <key>`."}},
				"schemas": schemas(),
			},
			"security": []any{obj{"apiKey": []string{}}},
			"paths":    paths,
		}
	})
	return openAPIDoc
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, OpenAPI())
}
