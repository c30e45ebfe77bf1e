package envelope

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
)

func TestCheckNoNUL(t *testing.T) {
	for raw, want := range map[string]string{
		`{"title":"fine"}`:                        "",
		`{"data":{"title":"bad\u0000title"}}`:     "data.title",
		`{"b":"ok","a":["x","y\u0000"]}`:          "a[1]",
		`{"a":[{"k":1},{"z\u0000":"v"}]}`:         "a[1].z\x00",
		`["a",["b","\u0000"]]`:                    "[1][1]",
		`{"note":"\\u0000 is written, not held"}`: "",
		`{"x":"\U0000"}`:                          "",
		`{"m":{"b":"\u0000","a":"\u0000"}}`:       "m.b",
	} {
		err := CheckNoNUL([]byte(raw))
		var e *Error
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v, want nil", raw, err)
		case want != "" && (!errors.As(err, &e) || len(e.Issues) != 1 || e.Issues[0].Path != want):
			t.Errorf("%s: %v, want one issue at %q", raw, err, want)
		}
	}
}

// Finding the NUL costs memory in proportion to the body, however deep its nesting: the path is
// written once, for the member found.
func TestCheckNoNULOfADeepBody(t *testing.T) {
	deep := strings.Repeat("[", 9000) + strings.TrimSuffix(strings.Repeat("1,", 480_000), ",") + strings.Repeat("]", 9000)
	raw := []byte(`{"a":` + deep + `,"b":"\u0000"}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := CheckNoNUL(raw)
	runtime.ReadMemStats(&after)
	var e *Error
	if !errors.As(err, &e) || len(e.Issues) != 1 || e.Issues[0].Path != "b" {
		t.Fatalf("%v, want one issue at b", err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 512<<20 {
		t.Errorf("a %d-byte body allocated %d MB to find its NUL", len(raw), allocated>>20)
	}
}

func TestFindInJSON(t *testing.T) {
	isKey := func(name string) func(json.Token, bool, int64) bool {
		return func(tok json.Token, key bool, _ int64) bool { return key && tok == name }
	}
	isValue := func(v json.Token) func(json.Token, bool, int64) bool {
		return func(tok json.Token, key bool, _ int64) bool { return !key && tok == v }
	}
	endsAt := func(offset int64) func(json.Token, bool, int64) bool {
		return func(_ json.Token, key bool, end int64) bool { return !key && end == offset }
	}
	for _, c := range []struct {
		raw   string
		is    func(json.Token, bool, int64) bool
		want  string
		found bool
	}{
		{`{"a":{"b":"b"},"c":[1,{"b":"x"}]}`, isKey("b"), "a.b", true},
		{`{"a":{"b":"b"},"c":[1,{"b":"x"}]}`, isValue("x"), "c[1].b", true},
		{`{"a":{"b":"b"},"c":[1,{"b":"x"}]}`, isValue(json.Number("1")), "c[0]", true},
		{`{"a":{"b":"b"},"c":[1,{"b":"x"}]}`, isValue(json.Delim('[')), "c", true},
		{`{"a":{"b":"b"},"c":[1,{"b":"x"}]}`, isValue("b"), "a.b", true},
		{`[[],[[]],"s"]`, isValue("s"), "[2]", true},
		{`{"a":1,"b":22}`, endsAt(13), "b", true},
		{`{"a":1,"b":22}`, endsAt(12), "", false},
		{`{"a":"x"}`, isValue("x"), "a", true},
		{`{"a":1,`, isValue("x"), "", false},
		{`{"a" 1,"b":"x"}`, isValue("x"), "", false},
		{`{"a":1}{"b":"x"}`, isValue("x"), "", false},
		{`1 "x"`, isValue("x"), "", false},
		{`"x"`, isValue("x"), "", true},
		{`{"":{"a":"x"}}`, isValue("x"), "a", true},
	} {
		got, found := FindInJSON([]byte(c.raw), c.is)
		if got != c.want || found != c.found {
			t.Errorf("%s: %q %v, want %q %v", c.raw, got, found, c.want, c.found)
		}
	}
}

// The path of a member deep in arrays is written once, in one buffer: its memory follows the
// path's length, not the square of the nesting's depth.
func TestFindInJSONOfADeepPath(t *testing.T) {
	const depth = 10_000
	raw := []byte(strings.Repeat("[", depth) + `"\u0000"` + strings.Repeat("]", depth))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	path, found := FindInJSON(raw, func(tok json.Token, _ bool, _ int64) bool { return tok == "\x00" })
	runtime.ReadMemStats(&after)
	if !found || path != strings.Repeat("[0]", depth) {
		t.Fatalf("found %v at a path of %d bytes", found, len(path))
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 16<<20 {
		t.Errorf("a path %d deep allocated %d MB", depth, allocated>>20)
	}
}
