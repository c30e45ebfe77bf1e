package api

// The direct links of templates in the OpenAPI document (README, "Direct links").

// directLinkOperations lists the documented operations of directLinkRoutes and
// directSubmitRoutes.
func directLinkOperations() []operation {
	templateID := obj{"type": "integer", "minimum": 1, "description": "the template's number (the n of its secondaryId template_n)"}
	answer := object([]string{"id", "token", "createdAt", "enabled", "directTemplateRecipientId", "envelopeId", "templateId"}, obj{
		"id": str(""), "token": str(""), "createdAt": obj{"type": "string", "format": "date-time"}, "enabled": obj{"type": "boolean"},
		"directTemplateRecipientId": obj{"type": "integer"}, "envelopeId": str(""), "templateId": obj{"type": "integer"}})
	field := object([]string{"fieldId"}, obj{"fieldId": obj{"type": "integer"},
		"value": obj{"type": []string{"string", "array", "null"}, "items": str(""), "description": "as POST /signing/{token}/fields takes it; null or absent leaves the field empty"}})
	return []operation{
		{method: "POST", path: "/template/direct/create", id: "template-createTemplateDirectLink",
			summary:  "Give a template a public direct link; without directRecipientId a placeholder SIGNER is made for it",
			body:     object([]string{"templateId"}, obj{"templateId": templateID, "directRecipientId": obj{"type": "integer", "minimum": 1}}),
			response: answer},
		{method: "POST", path: "/template/direct/toggle", id: "template-toggleTemplateDirectLink", summary: "Turn a template's direct link on or off",
			body: object([]string{"templateId", "enabled"}, obj{"templateId": templateID, "enabled": obj{"type": "boolean"}}), response: answer},
		{method: "POST", path: "/template/direct/delete", id: "template-deleteTemplateDirectLink",
			summary: "Remove a template's direct link, and the placeholder recipient made for it",
			body:    object([]string{"templateId"}, obj{"templateId": templateID}), response: success},
		{method: "POST", path: "/direct/{token}", id: "direct-submit", public: true,
			summary: "A visitor signs through a direct link: a document is made from the template with them in the direct recipient's place, signed by them and sent to the others",
			params:  []obj{pathParam("token", "string")},
			body: object([]string{"name", "email", "templateUpdatedAt"}, obj{"name": str(""), "email": obj{"type": "string", "format": "email"},
				"templateUpdatedAt": obj{"type": "string", "format": "date-time", "description": "the template's updatedAt the page showed; another is refused"},
				"externalId":        str(""), "fields": arrayOf(field)}),
			response: object([]string{"success", "envelopeId", "documentId", "redirectUrl"}, obj{"success": obj{"type": "boolean"},
				"envelopeId": str(""), "documentId": obj{"type": "integer"}, "redirectUrl": str("the document's redirectUrl, else the visitor's signing page")}),
			errors:    obj{"410": "SIGNING_LINK_ENDED: the link is disabled"},
			extension: "Sobre's form of Documenso's direct-template signing, which its web app does; the page /d/{token} calls it. Rate limited per link and per client address (README, Direct links)."},
	}
}
