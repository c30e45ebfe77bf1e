package api

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// A value of the wrong type is a 400 naming it by its whole path, arrays' indices included, and
// saying what JSON it should be, never a Go type's name.
func TestJSONTypeErrorsNameThePath(t *testing.T) {
	type field struct {
		Page   *int             `json:"page"`
		Values []string         `json:"values"`
		Meta   *struct{ X int } `json:"meta"`
	}
	type body struct {
		EnvelopeID *string  `json:"envelopeId"`
		Data       []field  `json:"data"`
		IDs        []string `json:"ids"`
		Count      uint16   `json:"count"`
		Ratio      float64  `json:"ratio"`
		On         bool     `json:"on"`
	}
	for _, tt := range []struct{ body, path, message string }{
		{`[]`, "(body)", "expected an object, got JSON array"},
		{`{"envelopeId": 7}`, "envelopeId", "expected a string, got JSON number"},
		{`{"data": [{"page": 1.5}]}`, "data[0].page", "expected an integer from -9223372036854775808 to 9223372036854775807, got JSON number 1.5"},
		{`{"data": [{"page": 1}, {"page": 2}, {"page": 1e30}]}`, "data[2].page", "got JSON number 1e30"},
		{`{"data": [{"page": 1}, {"page": "2"}]}`, "data[1].page", "got JSON string"},
		{`{"data": [{"values": ["a", 2]}]}`, "data[0].values[1]", "expected a string, got JSON number"},
		{`{"data": [{}, {"meta": []}]}`, "data[1].meta", "expected an object, got JSON array"},
		{`{"data": [{}, {"meta": {"X": "no"}}]}`, "data[1].meta.X", "got JSON string"},
		{`{"data": {"page": 1}}`, "data", "expected an array, got JSON object"},
		{` { "ids" : [ "a" , { } ] } `, "ids[1]", "expected a string, got JSON object"},
		{`{"count": -1}`, "count", "expected an integer from 0 to 65535, got JSON number -1"},
		{`{"count": 70000}`, "count", "expected an integer from 0 to 65535, got JSON number 70000"},
		{`{"ratio": "x"}`, "ratio", "expected a number, got JSON string"},
		{`{"on": "yes", "data": [{"page": "x"}]}`, "on", "expected a boolean, got JSON string"},
		{`{"a": {"b": [1, {"c": 2}]}, "data": [{"page": []}]}`, "data[0].page", "got JSON array"},
	} {
		var dst body
		err := decodeJSONFrom(strings.NewReader(tt.body), &dst)
		var e *envelope.Error
		if !errors.As(err, &e) || e.Code != envelope.CodeInvalidBody || len(e.Issues) != 1 {
			t.Errorf("%s: %v, want one issue", tt.body, err)
			continue
		}
		if e.Issues[0].Path != tt.path || !strings.Contains(e.Issues[0].Message, tt.message) {
			t.Errorf("%s: issue %q: %q, want %q: …%s…", tt.body, e.Issues[0].Path, e.Issues[0].Message, tt.path, tt.message)
		}
	}
}

// An error of a value's own UnmarshalJSON counts its offset from that value: the path named is
// then the error's field, never another member that happens to end at that offset.
func TestJSONTypeErrorInsideAnUnmarshaler(t *testing.T) {
	var dst struct {
		EnvelopeID *string             `json:"envelopeId"`
		Meta       *envelope.MetaInput `json:"meta"`
	}
	for _, body := range []string{
		`{"envelopeId":"abcdefghij","meta":{"envelopeExpirationPeriod":{"unit":"day","amount":"3"}}}`,
		`{"envelopeId":"x","meta":{"envelopeExpirationPeriod":{"unit":"day","amount":"3"}}}`,
	} {
		err := decodeJSONFrom(strings.NewReader(body), &dst)
		var e *envelope.Error
		if !errors.As(err, &e) || len(e.Issues) != 1 {
			t.Fatalf("%s: %v, want one issue", body, err)
		}
		if p := e.Issues[0].Path; p == "envelopeId" || p == "meta" || !strings.HasSuffix(p, "amount") {
			t.Errorf("%s: issue at %q, want the amount's path", body, p)
		}
	}
}

// Naming a wrong type's path costs memory in proportion to the body, however deep its nesting:
// a megabyte of arrays 9,000 deep before the wrong value allocates tens of megabytes (decoding
// it; the bound leaves room for what other tests of the process allocate meanwhile), where
// writing every value's path copied paths tens of kilobytes long for each value: 12.7 GB.
func TestJSONTypeErrorPathOfADeepBody(t *testing.T) {
	deep := strings.Repeat("[", 9000) + strings.TrimSuffix(strings.Repeat("1,", 480_000), ",") + strings.Repeat("]", 9000)
	body := `{"zzz":` + deep + `,"envelopeId":5}`
	var dst struct {
		EnvelopeID *string `json:"envelopeId"`
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := decodeJSONFrom(strings.NewReader(body), &dst)
	runtime.ReadMemStats(&after)
	var e *envelope.Error
	if !errors.As(err, &e) || len(e.Issues) != 1 || e.Issues[0].Path != "envelopeId" {
		t.Fatalf("%v, want one issue at envelopeId", err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 512<<20 {
		t.Errorf("a %d-byte body allocated %d MB to name the path", len(body), allocated>>20)
	}
}

// A JSON route reads a body sent as JSON, or with no Content-Type; a body sent as anything else
// (curl's -d sends a form) is a 400 naming the header, before its bytes are read.
func TestJSONBodiesMustBeSentAsJSON(t *testing.T) {
	for _, tt := range []struct {
		contentType string
		ok          bool
	}{
		{"", true},
		{"application/json", true},
		{"Application/JSON; charset=utf-8", true},
		{"application/vnd.documenso+json", true},
		{"application/x-www-form-urlencoded", false},
		{"text/plain;charset=UTF-8", false},
		{"multipart/form-data; boundary=x", false},
		{"json", false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/api/v2/envelope/distribute", strings.NewReader(`{"envelopeId":"envelope_x"}`))
		if tt.contentType != "" {
			r.Header.Set("Content-Type", tt.contentType)
		}
		var dst struct {
			EnvelopeID string `json:"envelopeId"`
		}
		err := decodeJSON(r, &dst)
		var e *envelope.Error
		switch {
		case tt.ok && (err != nil || dst.EnvelopeID != "envelope_x"):
			t.Errorf("%q: %v, %+v; want it read", tt.contentType, err, dst)
		case !tt.ok && (!errors.As(err, &e) || e.Code != envelope.CodeInvalidBody || len(e.Issues) != 1 || e.Issues[0].Path != "Content-Type" || dst.EnvelopeID != ""):
			t.Errorf("%q: %v; want a 400 naming Content-Type, nothing read", tt.contentType, err)
		}
	}
}

// The JSON of a multipart part that is not JSON is an issue at the part; a wrong type inside it
// is named by its path.
func TestJSONPartErrorsNameThePart(t *testing.T) {
	for body, want := range map[string]envelope.Issue{
		`hello`:             {Path: "payload", Message: "is not valid JSON (at byte 1): invalid character 'h' looking for beginning of value"},
		``:                  {Path: "payload", Message: "is empty; a JSON object is required"},
		`{"title":"x"`:      {Path: "payload", Message: "is truncated JSON"},
		`{"title":"x"} {}`:  {Path: "payload", Message: "holds more than one JSON value"},
		`{"title":7}`:       {Path: "title", Message: "expected a string, got JSON number"},
		`["not an object"]`: {Path: "payload", Message: "expected an object, got JSON array"},
	} {
		var dst struct {
			Title string `json:"title"`
		}
		err := decodeJSONPart(strings.NewReader(body), &dst, "payload")
		var e *envelope.Error
		if !errors.As(err, &e) || !slices.Equal(e.Issues, []envelope.Issue{want}) || !strings.HasPrefix(e.Message, "Input validation failed: ") {
			t.Errorf("%q: %+v, want the one issue %+v", body, err, want)
		}
	}
}
