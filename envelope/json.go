package envelope

import (
	"bytes"
	"encoding/json"
	"strconv"
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
// JSON document raw, in the document's order, that is accepts, and whether it accepts one.
// is gets the token as json.Decoder gives it (a key or a string as a string, a number as
// json.Number, an object or an array as the Delim that opens it), whether it is an object's
// key (its path then ends with it), and the offset in raw just past it. raw is read one token
// at a time and a path is written only for the token found, so the cost follows raw's length,
// however deep its nesting. The search ends, with nothing found, where raw stops being JSON or
// its first value ends.
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
			if top == 0 {
				return "", false // the document's one value is over
			}
			stack[top-1].next()
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
		switch d, ok := tok.(json.Delim); {
		case ok:
			stack = append(stack, jsonLevel{array: d == '[', wantKey: d == '{'})
		case top < 0:
			return "", false // the document is this one scalar
		default:
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

// jsonPath writes the path of the levels' current members as Join does, in one buffer: its cost
// follows the path's length, not the nesting's square.
func jsonPath(levels []jsonLevel) string {
	var b strings.Builder
	for _, l := range levels {
		switch {
		case l.array:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(l.index))
			b.WriteByte(']')
		case b.Len() == 0:
			b.WriteString(l.key)
		default:
			b.WriteByte('.')
			b.WriteString(l.key)
		}
	}
	return b.String()
}
