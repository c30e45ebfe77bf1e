package api

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// freeForm are the objects of the document whose members are not listed, each with why.
var freeForm = map[string]string{
	"#AuditLogEntry.data": "the members of each audit entry type (Documenso's shapes), described in the audit log's docs",
	"post /signing/{token}/auth/passkey/options 200.publicKey": "WebAuthn's PublicKeyCredentialRequestOptions, defined by the W3C spec",
	"post /signing/{token}/auth/passkey body.credential":       "WebAuthn's PublicKeyCredential as JSON, defined by the W3C spec",
}

// Every schema of the document is typed (a type, a $ref, a const, or alternatives of those),
// every object lists its members (but those in freeForm), and every object an answer holds is
// closed: additionalProperties false, so the answer checks find an undocumented member.
func TestOpenAPISchemasAreTypedAndAnswersClosed(t *testing.T) {
	doc := OpenAPI()
	schemas := doc["components"].(obj)["schemas"].(obj)
	var problems []string
	seen := map[string]bool{}
	var walk func(path string, s obj, answer bool)
	walk = func(path string, s obj, answer bool) {
		if r, ok := s["$ref"].(string); ok {
			name := strings.TrimPrefix(r, "#/components/schemas/")
			key := fmt.Sprint(name, answer)
			if !seen[key] {
				seen[key] = true
				walk("#"+name, schemas[name].(obj), answer)
			}
			return
		}
		_, typed := s["type"]
		_, one := s["oneOf"]
		_, anyOf := s["anyOf"]
		_, constant := s["const"]
		if !typed && !one && !anyOf && !constant {
			problems = append(problems, path+": no type")
		}
		props, listed := s["properties"].(obj)
		isObject := s["type"] == "object" || fmt.Sprint(s["type"]) == "[object null]"
		if _, free := freeForm[path]; isObject && !listed && s["additionalProperties"] == nil && !free {
			problems = append(problems, path+": an object without its members")
		}
		if listed && answer && s["additionalProperties"] != false {
			problems = append(problems, path+": an answer's object that is not closed")
		}
		for name, p := range props {
			walk(path+"."+name, p.(obj), answer)
		}
		if items, ok := s["items"].(obj); ok {
			walk(path+"[]", items, answer)
		}
		for _, k := range []string{"oneOf", "anyOf"} {
			alts, _ := s[k].([]any)
			for i, a := range alts {
				if ao := a.(obj); len(ao) != 1 || ao["required"] == nil { // a "required" alternative is no schema of its own
					walk(fmt.Sprint(path, "|", i), ao, answer)
				}
			}
		}
	}
	for path, item := range doc["paths"].(obj) {
		for method, op := range item.(obj) {
			o := op.(obj)
			at := method + " " + path
			if body, ok := o["requestBody"].(obj); ok {
				for _, media := range body["content"].(obj) {
					walk(at+" body", media.(obj)["schema"].(obj), false)
				}
			}
			for status, res := range o["responses"].(obj) {
				for _, media := range res.(obj)["content"].(obj) {
					walk(at+" "+status, media.(obj)["schema"].(obj), true)
				}
			}
			params, _ := o["parameters"].([]obj)
			for _, p := range params {
				walk(fmt.Sprint(at, " ", p["in"], " ", p["name"]), p["schema"].(obj), false)
			}
		}
	}
	for name, s := range schemas {
		walk("#"+name, s.(obj), false)
	}
	sort.Strings(problems)
	for _, p := range slicesCompact(problems) {
		t.Error(p)
	}
}

// slicesCompact is sorted list without repeats.
func slicesCompact(list []string) []string {
	var out []string
	for i, s := range list {
		if i == 0 || s != list[i-1] {
			out = append(out, s)
		}
	}
	return out
}
