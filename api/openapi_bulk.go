package api

import "github.com/sobre-sign/sobre/envelope"

// The bulk send in the OpenAPI document (README "Bulk send").

// bulkSendExtension describes the bulk send routes, which Documenso's API has not.
const bulkSendExtension = "Sobre extension (Documenso offers a CSV bulk send of up to 100 rows in its web app only). " +
	"The body is JSON as shown, or multipart/form-data with templateId, distributeDocument and a CSV file (part \"file\", at most 4 MB): " +
	"columns recipient_{n}_email (required for each template recipient n, 1-based in the template's order) and recipient_{n}_name, " +
	"and optional prefill columns field_{id} or a template field's label. A malformed request is 400 naming the row and the column; " +
	"a row that is only bad (an invalid email, a value a field refuses, the mail quota) is taken and recorded FAILED."

// bulkSendOperations lists the documented operations of the bulk send routes (bulkSendRoutes).
func bulkSendOperations() []operation {
	recipient := object([]string{"id"}, obj{"id": obj{"type": "integer"}, "email": str("empty: the template's"), "name": str("empty: the template's")})
	row := object([]string{"recipients"}, obj{"recipients": arrayOf(recipient), "prefillFields": arrayOf(object([]string{"id", "type"}, obj{"id": obj{"type": "integer"}, "type": str("as POST /envelope/use takes it"),
		"label": str(""), "placeholder": str(""), "value": obj{"type": []string{"string", "array"}, "items": str("")}})),
		"externalId": obj{"type": "string", "maxLength": envelope.MaxExternalID}})
	rowView := object([]string{"row", "status", "envelopeId", "error"}, obj{"row": obj{"type": "integer", "minimum": 1},
		"status":     enumOf(string(envelope.BulkRowPending), string(envelope.BulkRowCreated), string(envelope.BulkRowSent), string(envelope.BulkRowFailed)),
		"envelopeId": nullable("string"), "error": nullable("string")})
	status := enumOf(string(envelope.BulkJobProcessing), string(envelope.BulkJobCompleted))
	count := obj{"type": "integer", "minimum": 0}
	ops := []operation{
		{method: "POST", path: "/template/bulk-send", id: "template-bulk-send",
			summary: "Make a document from a template for each row (at most 1,000), and send each when distributeDocument; answers at once with the job's id",
			body: object([]string{"templateId", "rows"}, obj{"templateId": obj{"type": []string{"string", "integer"}, "description": "the template's envelope id or number"},
				"rows": obj{"type": "array", "items": row, "minItems": 1, "maxItems": envelope.MaxBulkRows}, "distributeDocument": obj{"type": "boolean", "default": false}}),
			form: object([]string{"templateId", "file"}, obj{"templateId": str("the template's envelope id or number"),
				"distributeDocument": enumOf("true", "false"), "file": obj{"type": "string", "format": "binary", "description": "the CSV file"}}),
			response: object([]string{"jobId", "id", "templateId", "status", "total"}, obj{"jobId": str(""), "id": str(""), "templateId": str(""),
				"status": status, "total": count})},
		{method: "GET", path: "/template/bulk-send/{jobId}", id: "template-bulk-send-get", summary: "A bulk send's progress and a page of its rows",
			params: []obj{pathParam("jobId", "string"), queryParam("page", obj{"type": "integer", "minimum": 1, "default": 1}, false),
				queryParam("perPage", obj{"type": "integer", "minimum": 1, "maximum": envelope.MaxBulkRows, "default": 100}, false)},
			response: object([]string{"id", "templateId", "status", "distributeDocument", "total", "pending", "created", "sent", "failed", "createdAt", "completedAt", "rows", "page", "perPage"}, obj{
				"id": str(""), "templateId": str(""), "status": status, "distributeDocument": obj{"type": "boolean"}, "total": count, "pending": count,
				"created": count, "sent": count, "failed": count, "createdAt": str(""), "completedAt": nullable("string"), "rows": arrayOf(rowView),
				"page": count, "perPage": count})},
	}
	for i := range ops {
		ops[i].extension = bulkSendExtension
	}
	return ops
}
