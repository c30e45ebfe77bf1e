package api

import "github.com/sobre-sign/sobre/config"

// The team's embed origins in the OpenAPI document (README "Embedded signing").

// embedOriginOperations lists the documented operations of embedOriginRoutes.
func embedOriginOperations() []operation {
	origin := obj{"type": "string", "examples": []string{"https://app.example.com"},
		"description": "scheme://host[:port], no path; https (http only for a loopback host when SOBRE_ENV=development)"}
	list := obj{"type": "array", "items": origin, "maxItems": config.MaxEmbedOrigins}
	view := object([]string{"origins", "serverOrigins"}, obj{"origins": list,
		"serverOrigins": obj{"type": "array", "items": obj{"type": "string"}, "description": "SOBRE_EMBED_ORIGINS: allowed for every team, not changed here"}})
	ops := []operation{
		{method: "GET", path: "/team/embed-origins", id: "team-embed-origins-get",
			summary: "The origins that may frame the team's embedded signing page (/embed/sign/{token})", response: view},
		{method: "POST", path: "/team/embed-origins/update", id: "team-embed-origins-update",
			summary: "Replace the team's embed origins (an empty list: only SOBRE_EMBED_ORIGINS)",
			body:    object([]string{"origins"}, obj{"origins": list}), response: view},
	}
	for i := range ops {
		ops[i].extension = "Sobre extension (Documenso keeps embedding settings in its web app; README \"Embedded signing\"). A MANAGER or an ADMIN of the team only (403 FORBIDDEN for a MEMBER)."
	}
	return ops
}
