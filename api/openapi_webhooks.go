package api

import (
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/webhook"
)

// The webhook subscriptions in the OpenAPI document (docs/webhooks.md, "Subscriptions").

// webhookExtension describes the webhook routes, which Documenso's API has not.
const webhookExtension = "Sobre extension (Documenso manages webhooks only in its web app; docs/webhooks.md). A MANAGER or an ADMIN of the team only (403 FORBIDDEN for a MEMBER); another team's webhook or call is 404."

// webhookEventSchema is the enum of the webhook events.
func webhookEventSchema() obj {
	names := make([]string, 0, len(envelope.WebhookEvents()))
	for _, e := range envelope.WebhookEvents() {
		names = append(names, string(e))
	}
	return enumOf(names...)
}

// webhookOperations lists the documented operations of the webhook routes (webhookRoutes).
func webhookOperations() []operation {
	id := obj{"type": "string", "minLength": 1}
	url := obj{"type": "string", "format": "uri", "maxLength": webhook.MaxURLLength,
		"description": "https, to a host that resolves only to public addresses (http and private addresses only with SOBRE_WEBHOOK_ALLOW_PRIVATE=true)"}
	triggers := obj{"type": "array", "items": webhookEventSchema(), "minItems": 1, "uniqueItems": true}
	compatible := obj{"type": "boolean", "default": false,
		"description": "also send the secret in clear as X-Documenso-Secret, for a consumer written for Documenso (weaker than the signature)"}
	page := []obj{queryParam("page", obj{"type": "integer", "minimum": 1, "default": 1}, false),
		queryParam("perPage", obj{"type": "integer", "minimum": 1, "maximum": 100, "default": 10}, false)}
	ops := []operation{
		{method: "POST", path: "/webhook/create", id: "webhook-create", summary: "Subscribe an endpoint to envelope events; the answer shows its secret, this once",
			body: object([]string{"webhookUrl", "eventTriggers"}, obj{"webhookUrl": url, "eventTriggers": triggers,
				"enabled": obj{"type": "boolean", "default": true}, "documensoCompatible": compatible,
				"secret": str("whsec_ and the base64 of 24 to 64 bytes (made of 32 random bytes when absent); with documensoCompatible, any other text of 16 to 256 printable ASCII characters without spaces")}),
			response: ref("Webhook")},
		{method: "GET", path: "/webhook", id: "webhook-find", summary: "The team's webhooks, oldest first",
			params: page, response: pageOf(ref("Webhook"))},
		{method: "GET", path: "/webhook/{id}", id: "webhook-get", summary: "A webhook",
			params: []obj{pathParam("id", "string")}, response: ref("Webhook")},
		{method: "POST", path: "/webhook/update", id: "webhook-update", summary: "Change a webhook; members left out stay as they are, and enabling it clears disabledReason",
			body: object([]string{"id"}, obj{"id": id, "webhookUrl": url, "eventTriggers": triggers, "enabled": obj{"type": "boolean"},
				"documensoCompatible": compatible}), response: ref("Webhook")},
		{method: "POST", path: "/webhook/delete", id: "webhook-delete", summary: "Delete a webhook with its calls",
			body: object([]string{"id"}, obj{"id": id}), response: success},
		{method: "POST", path: "/webhook/rotate-secret", id: "webhook-rotate-secret", summary: "A new secret, shown this once; the old one signs alongside it for 24 hours",
			body: object([]string{"id"}, obj{"id": id}), response: ref("Webhook")},
		{method: "POST", path: "/webhook/test", id: "webhook-test", summary: "Send a sample of an event now, once (a disabled webhook too); the call made, whatever the endpoint answered",
			body: object([]string{"id", "event"}, obj{"id": id, "event": webhookEventSchema()}), response: ref("WebhookCall")},
		{method: "GET", path: "/webhook/{id}/calls", id: "webhook-calls", summary: "A webhook's calls (deliveries), newest first, each with its attempts; kept 30 days",
			params:   append([]obj{pathParam("id", "string"), queryParam("status", enumOf(callStatuses()...), false)}, page...),
			response: pageOf(ref("WebhookCall"))},
		{method: "POST", path: "/webhook/call/resend", id: "webhook-call-resend", summary: "Deliver a call's event again, as a new call with the same webhook-id",
			body: object([]string{"callId"}, obj{"callId": id}), response: ref("WebhookCall")},
	}
	for i := range ops {
		ops[i].extension = webhookExtension
	}
	return ops
}

// webhookSchemas are the named schemas of the webhook routes.
func webhookSchemas() obj {
	attempt := object([]string{"attempt", "startedAt", "finishedAt", "outcome", "responseCode", "responseBody", "error", "durationMs"}, obj{
		"attempt": obj{"type": "integer", "minimum": 1}, "startedAt": str(""), "finishedAt": nullable("string"),
		"outcome":      obj{"type": []string{"string", "null"}, "enum": []any{"success", "gone", "failed", nil}},
		"responseCode": nullable("integer"), "responseBody": obj{"type": []string{"string", "null"}, "description": "the answer's first KiB"},
		"error": nullable("string"), "durationMs": obj{"type": "integer"}})
	return obj{
		"Webhook": object([]string{"id", "webhookUrl", "eventTriggers", "enabled", "documensoCompatible", "teamId", "userId", "createdAt",
			"updatedAt", "secretRotatedAt", "disabledReason"}, obj{
			"id": str(""), "webhookUrl": str(""), "eventTriggers": arrayOf(webhookEventSchema()), "enabled": obj{"type": "boolean"},
			"documensoCompatible": obj{"type": "boolean"}, "teamId": obj{"type": "integer"}, "userId": obj{"type": "integer"},
			"createdAt": str(""), "updatedAt": str(""), "secretRotatedAt": nullable("string"),
			"disabledReason": obj{"type": []string{"string", "null"}, "description": "why Sobre disabled it: GONE (the endpoint answered 410); null when it did not"},
			"secret":         str("the signing secret: only in the answers of create and rotate-secret")}),
		"WebhookCall": object([]string{"id", "webhookId", "eventId", "event", "envelopeId", "status", "attempts", "responseCode", "responseBody",
			"error", "createdAt", "updatedAt", "attemptHistory"}, obj{
			"id": str(""), "webhookId": str(""), "eventId": str("the webhook-id header: the same on every attempt and on a resend"),
			"event": webhookEventSchema(), "envelopeId": str("empty for a test"), "status": enumOf(callStatuses()...),
			"attempts": obj{"type": "integer"}, "responseCode": nullable("integer"), "responseBody": nullable("string"), "error": nullable("string"),
			"createdAt": str(""), "updatedAt": str(""), "attemptHistory": arrayOf(attempt)}),
	}
}
