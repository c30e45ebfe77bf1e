package envelope

import (
	"bytes"
	"encoding/json"
	"strings"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// CheckNoNUL answers a 400 naming the first member of the JSON document raw (in the document's
// order) whose string or key holds the NUL character (\u0000), which no text column can store;
// nil when none does, or when raw is not JSON (its decoding answers that). Its cost follows raw's
// length, however deep its nesting (FindInJSON).
func CheckNoNUL(raw []byte) error {
	// JSON writes the escape only as \u (lower case) and zeros have no case: a plain search
	// finds every NUL without copying the body.
	if !bytes.Contains(raw, []byte(`\u0000`)) || !json.Valid(raw) {
		return nil
	}
	path, found := FindInJSON(raw, func(tok json.Token, _ bool, _ int64) bool {
		s, ok := tok.(string)
		return ok && strings.ContainsRune(s, 0)
	})
	if !found {
		return nil // "\\u0000" written as text, not a NUL
	}
	return Invalid(path, "must not contain the NUL character (\\u0000)")
}

// FindInJSON is the path, as Join writes it ("data[0].page"), of the first key or value of the
// JSON document raw, in the document's order, that is answers true for, and whether one did.
// is gets the token as json.Decoder gives it (a key or a string as a string, a number as
// json.Number, an object or an array as the Delim that opens it), whether it is an object's
// key (its path then ends with it), and the offset in raw just past it. raw is read one token
// at a time and a path is written only for the token found, so the cost follows raw's length,
// however deep its nesting. Where raw stops being JSON the search ends, with nothing found.
func FindInJSON(raw []byte, is func(tok json.Token, key bool, end int64) bool) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var stack []jsonLevel
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		top := len(stack) - 1
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:top]
			if top > 0 {
				stack[top-1].next()
			}
			continue
		}
		if top >= 0 && stack[top].wantKey {
			stack[top].key, stack[top].wantKey = tok.(string), false
			if is(tok, true, dec.InputOffset()) {
				return jsonPath(stack), true
			}
			continue
		}
		if is(tok, false, dec.InputOffset()) {
			return jsonPath(stack), true
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, jsonLevel{array: d == '[', wantKey: d == '{'})
		} else if top >= 0 {
			stack[top].next()
		}
	}
}

// jsonLevel is an object or an array FindInJSON is inside, and where in it the next token is:
// an array's index; an object's key, or that a key comes next.
type jsonLevel struct {
	array   bool
	index   int
	key     string
	wantKey bool
}

// next moves past a member's value.
func (l *jsonLevel) next() {
	if l.array {
		l.index++
	} else {
		l.wantKey = true
	}
}

// jsonPath writes the path of the levels' current members.
func jsonPath(levels []jsonLevel) string {
	path := ""
	for _, l := range levels {
		if l.array {
			path = Join(path, l.index)
		} else {
			path = Join(path, l.key)
		}
	}
	return path
}
