package envelope

import "slices"

// Documenso's clients read an audit entry's data against Documenso's own shapes, and the
// official SDK refuses a whole page when one entry does not fit. Sobre's entries carry more
// (a change of the expected RUN, a field's type or item, Chile's field types) and keep it: the
// hash chain and the audit trail PDF hold every byte as written. DocumensoAuditData is what the
// API lists to Documenso's clients (GET /envelope/{id}/audit-log without includeExtensions):
//   - accessAuth, actionAuth and changes that are null are empty lists;
//   - changes only of the types Documenso names for that entry (documensoChanges);
//   - accessAuth and actionAuth lists (and ACCESS_AUTH and ACTION_AUTH changes) with Documenso's
//     methods only: Sobre's own (CLAVE_UNICA, FAO_HASH) are Sobre's clients' to read;
//   - a RUT or RUT_FIRMADO field's value as a TEXT field's, which it is.

// documensoChanges are the change types Documenso's entries of each type may carry.
var documensoChanges = map[AuditType][]string{
	AuditRecipientUpdated: {"EMAIL", "ROLE", "NAME", "ACCESS_AUTH", "ACTION_AUTH"},
	AuditFieldUpdated:     {"DIMENSION", "POSITION"},
}

// documensoAuth are the authentication methods Documenso's entries name, by the key or change
// type that lists them.
var documensoAuth = map[string][]string{
	"accessAuth":  {string(AccessAuthAccount), string(AccessAuthTwoFactorAuth)},
	"actionAuth":  {string(ActionAuthAccount), string(ActionAuthPasskey), string(ActionAuthTwoFactorAuth), string(ActionAuthPassword), string(ActionAuthExplicitNone)},
	"ACCESS_AUTH": {string(AccessAuthAccount), string(AccessAuthTwoFactorAuth)},
	"ACTION_AUTH": {string(ActionAuthAccount), string(ActionAuthPasskey), string(ActionAuthTwoFactorAuth), string(ActionAuthPassword), string(ActionAuthExplicitNone)},
}

// documensoMethods is list without the methods Documenso does not name (documensoAuth[key]); a
// value that is not a list is left as it is.
func documensoMethods(key string, list any) any {
	items, ok := list.([]any)
	if !ok {
		return list
	}
	kept := []any{}
	for _, m := range items {
		if slices.Contains(documensoAuth[key], stringOf(m)) {
			kept = append(kept, m)
		}
	}
	return kept
}

// DocumensoAuditData returns the data of an entry of type t as Documenso's clients read it (see
// above); data is left as it is.
func DocumensoAuditData(t AuditType, data map[string]any) map[string]any {
	out := make(map[string]any, len(data))
	for k, v := range data {
		out[k] = v
	}
	for _, k := range []string{"accessAuth", "actionAuth", "changes"} {
		if v, ok := out[k]; ok && v == nil {
			out[k] = []any{}
		}
	}
	for _, k := range []string{"accessAuth", "actionAuth"} {
		out[k] = documensoMethods(k, out[k])
		if out[k] == nil {
			delete(out, k)
		}
	}
	if allowed, ok := documensoChanges[t]; ok {
		if changes, ok := out["changes"].([]any); ok {
			kept := []any{}
			for _, c := range changes {
				m, ok := c.(map[string]any)
				if !ok || !slices.Contains(allowed, stringOf(m["type"])) {
					continue
				}
				if typ := stringOf(m["type"]); typ == "ACCESS_AUTH" || typ == "ACTION_AUTH" {
					m = map[string]any{"type": typ, "from": documensoMethods(typ, m["from"]), "to": documensoMethods(typ, m["to"])}
				}
				kept = append(kept, m)
			}
			out["changes"] = kept
		}
	}
	if field, ok := out["field"].(map[string]any); ok {
		if ft := FieldType(stringOf(field["type"])); ft == FieldRUT || ft == FieldRUTFirmado {
			out["field"] = map[string]any{"type": string(FieldText), "data": field["data"]}
		}
	}
	return out
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}
