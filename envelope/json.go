package envelope

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// CheckNoNUL answers a 400 naming the first member of the JSON document raw (in the order of
// its keys, sorted) whose string or key holds the NUL character (\u0000), which no text column
// can store; nil when none does, or when raw is not JSON (its decoding answers that). Its cost
// follows raw's length, however deep its nesting: a member's path is written only once found.
func CheckNoNUL(raw []byte) error {
	// JSON writes the escape only as \u (lower case) and zeros have no case: a plain search
	// finds every NUL without copying the body.
	if !bytes.Contains(raw, []byte(`\u0000`)) {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil // not JSON: its decoding says so
	}
	at, found := findNUL(v, nil) // the keys (string) and indices (int) down to the member
	if !found {
		return nil // "\\u0000" written as text, not a NUL
	}
	path := ""
	for _, step := range at {
		path = Join(path, step)
	}
	return Invalid(path, "must not contain the NUL character (\\u0000)")
}

// findNUL is the path below at to the first string or key of v holding NUL, and whether there
// is one.
func findNUL(v any, at []any) ([]any, bool) {
	switch t := v.(type) {
	case string:
		return at, strings.ContainsRune(t, 0)
	case []any:
		for i, e := range t {
			if p, ok := findNUL(e, append(at, i)); ok {
				return p, true
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if strings.ContainsRune(k, 0) {
				return append(at, k), true
			}
			if p, ok := findNUL(t[k], append(at, k)); ok {
				return p, true
			}
		}
	}
	return nil, false
}
