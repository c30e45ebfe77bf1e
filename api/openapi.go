package api

import (
	"net/http"
	"slices"
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
	multipart                 bool // the body is multipart/form-data, its payload part JSON
	form                      obj  // the schema of a multipart/form-data body taken beside the JSON one
	optionalBody              bool // the body may be left out
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
		for _, op := range slices.Concat(operations(), webhookOperations(), embedOriginOperations(), directLinkOperations(), bulkSendOperations()) {
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
					"200": obj{"description": "Successful response", "content": obj{ct: obj{"schema": answered(op.response)}}},
					"400": errResp("Invalid input data"), "401": errResp("Authorization not provided"),
					"403": errResp("Insufficient access"), "404": errResp("Not found"), "500": errResp("Internal server error"),
					"429": errResp("Too many requests: a rate limit, or the team's mail quota; see Retry-After"),
					"503": errResp("SERVICE_UNAVAILABLE: what the request needs (the workflow service) is away or busy; try again after Retry-After"),
					"405": errResp("METHOD_NOT_ALLOWED: the path takes another method"),
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
				media := obj{"application/json": obj{"schema": op.body}}
				if op.multipart {
					media = obj{"multipart/form-data": obj{"schema": op.body, "encoding": obj{"payload": obj{"contentType": "application/json"}}}}
				}
				if op.form != nil {
					media["multipart/form-data"] = obj{"schema": op.form}
				}
				o["requestBody"] = obj{"required": !op.optionalBody, "content": media}
				o["responses"].(obj)["413"] = errResp("PAYLOAD_TOO_LARGE: the body is over the size limit")
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
				"schemas": withSchemas(schemas(), answeredAll(webhookSchemas())),
			},
			"security": []any{obj{"apiKey": []string{}}},
			"paths":    paths,
		}
	})
	return openAPIDoc
}

// answered is a copy of the schema s of an answer, closed: every object in it that lists its
// members, and does not say otherwise, has additionalProperties false, as the API writes no
// member it does not document. Named schemas ($ref) are closed where they are defined.
func answered(s obj) obj {
	out := obj{}
	for k, v := range s {
		out[k] = v
	}
	if props, ok := s["properties"].(obj); ok {
		if _, set := s["additionalProperties"]; !set {
			out["additionalProperties"] = false
		}
		closedProps := obj{}
		for name, p := range props {
			closedProps[name] = answered(p.(obj))
		}
		out["properties"] = closedProps
	}
	if items, ok := s["items"].(obj); ok {
		out["items"] = answered(items)
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[k].([]any); ok {
			closedAlts := make([]any, 0, len(alts))
			for _, a := range alts {
				closedAlts = append(closedAlts, answered(a.(obj)))
			}
			out[k] = closedAlts
		}
	}
	return out
}

// answeredAll is the named schemas of answers, each closed by answered.
func answeredAll(named obj) obj {
	out := obj{}
	for name, s := range named {
		out[name] = answered(s.(obj))
	}
	return out
}

// withSchemas is all with more's schemas added.
func withSchemas(all, more obj) obj {
	for name, schema := range more {
		all[name] = schema
	}
	return all
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, OpenAPI())
}
