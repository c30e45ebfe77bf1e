package envelope

import (
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
		`{"m":{"b":"\u0000","a":"\u0000"}}`:       "m.a",
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
