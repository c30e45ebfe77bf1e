package api

import (
	"errors"
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
