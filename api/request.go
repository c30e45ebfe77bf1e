package api

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/sobre-sign/sobre/auth"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// member returns the authenticated caller; the auth middleware guarantees one on API routes.
func member(r *http.Request) envelope.Member {
	m, _ := auth.MemberFrom(r.Context())
	return m
}

func scope(r *http.Request) persistence.Scope { return persistence.ScopeOf(member(r)) }

// decodeJSON reads the request body as one JSON value into dst. A body sent as another type
// (curl's -d sends a form), malformed JSON, a wrong type or trailing data is a 400 INVALID_BODY
// naming where it went wrong; unknown members are ignored, as Documenso does. A body sent with no
// Content-Type is read as JSON.
func decodeJSON(r *http.Request, dst any) error {
	if err := checkJSONMedia(r, "application/json"); err != nil {
		return err
	}
	return decodeJSONFrom(r.Body, dst)
}

// checkJSONMedia refuses a request whose body is sent as a type that is not JSON (application/json,
// or a type with the +json suffix, whatever its parameters): a 400 naming Content-Type, which
// says what the route takes (accepted). A request with no Content-Type passes.
func checkJSONMedia(r *http.Request, accepted string) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	media, _, err := mime.ParseMediaType(ct)
	if err == nil && (media == "application/json" || (strings.HasPrefix(media, "application/") && strings.HasSuffix(media, "+json"))) {
		return nil
	}
	return envelope.Invalid("Content-Type", "must be %s, got %q", accepted, ct)
}

// decodeJSONFrom is decodeJSON for any reader.
func decodeJSONFrom(body io.Reader, dst any) error {
	return decodeJSONPart(body, dst, "")
}

// decodeJSONPart is decodeJSONFrom for the JSON of a multipart part named part: a document that
// is not JSON is an issue at part ("payload"). A wrong type is named by its path in the
// document either way. part "" is the request's body.
func decodeJSONPart(body io.Reader, dst any, part string) error {
	bad := func(reason string, args ...any) error {
		if part != "" {
			return envelope.Invalid(part, reason, args...)
		}
		return envelope.Errorf(envelope.CodeInvalidBody, "Request body "+reason, args...)
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		return jsonError(raw, err, part, bad)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(dst); err != nil {
		return jsonError(raw, err, part, bad)
	}
	if dec.More() {
		return bad("holds more than one JSON value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return bad("holds data after its JSON value")
	}
	return envelope.CheckNoNUL(raw)
}

// jsonError turns an error decoding raw, the JSON of part ("" for the request's body), into the
// 400 a caller can act on; bad words what is wrong with the document as a whole.
func jsonError(raw []byte, err error, part string, bad func(reason string, args ...any) error) error {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return err
	case errors.Is(err, io.EOF):
		return bad("is empty; a JSON object is required")
	case errors.As(err, &syntax):
		return bad("is not valid JSON (at byte %d): %v", syntax.Offset, err)
	case errors.As(err, &typeErr):
		// The offset is the body's, but for an error of a value's own UnmarshalJSON, which counts
		// from that value: the path found is kept only when it is the error's own field with the
		// arrays' indices, and otherwise the field (without them) is named.
		path, _ := envelope.FindInJSON(raw, func(_ json.Token, key bool, end int64) bool {
			return !key && end == typeErr.Offset
		})
		if arrayIndex.ReplaceAllString(path, "") != typeErr.Field {
			path = typeErr.Field
		}
		if path == "" {
			path = cmp.Or(part, "(body)")
		}
		return envelope.Invalid(path, "expected %s, got JSON %s", jsonKind(typeErr.Type), typeErr.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return bad("is truncated JSON")
	default:
		return bad("could not be read as JSON: %v", err)
	}
}

// arrayIndex matches the indices of a path ("[2]" in "data[2].page").
var arrayIndex = regexp.MustCompile(`\[[0-9]+\]`)

// jsonKind says what JSON a value of Go type t is read from, for a client: never a Go type's name.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprintf("an integer from %d to %d", int64(-1)<<(t.Bits()-1), int64(uint64(1)<<(t.Bits()-1)-1))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("an integer from 0 to %d", uint64(1)<<(t.Bits()-1)*2-1)
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	}
	return "a value of the documented type"
}

// query reads query parameters, collecting every problem.
type query struct {
	values   url.Values
	problems *envelope.Problems
}

func (q query) str(name string) string { return strings.TrimSpace(q.values.Get(name)) }

// int reads an integer within [lo, hi], or def when absent.
func (q query) int(name string, def, lo, hi int) int {
	s := q.str(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		q.problems.Add(name, "expected an integer, got %q", s)
		return def
	}
	if n < lo || n > hi {
		q.problems.Add(name, "must be between %d and %d, got %d", lo, hi, n)
		return def
	}
	return n
}

// enum reads one of the allowed values, or "" when absent.
func enum[T ~string](q query, name string, allowed []T) T {
	s := q.str(name)
	if s == "" {
		return ""
	}
	if !envelope.OneOf(T(s), allowed) {
		q.problems.Add(name, "must be one of %v, got %q", allowed, s)
		return ""
	}
	return T(s)
}

// boolean reads "true" or "false", or nil when absent.
func (q query) boolean(name string) *bool {
	switch s := q.str(name); s {
	case "":
		return nil
	case "true", "false":
		b := s == "true"
		return &b
	default:
		q.problems.Add(name, `must be "true" or "false", got %q`, s)
		return nil
	}
}

// pageView is the paginated list shape.
type pageView[T any] struct {
	Data        []T `json:"data"`
	Count       int `json:"count"`
	CurrentPage int `json:"currentPage"`
	PerPage     int `json:"perPage"`
	TotalPages  int `json:"totalPages"`
}

func newPageView[T any](data []T, count, page, perPage int) pageView[T] {
	if data == nil {
		data = []T{}
	}
	return pageView[T]{Data: data, Count: count, CurrentPage: page, PerPage: perPage, TotalPages: (count + perPage - 1) / perPage}
}

// mayManage applies the one rule on who may change, send, end or delete an envelope
// (envelope.MayManage) to the caller of r.
func mayManage(r *http.Request, e envelope.Owned) error {
	return envelope.MayManage(member(r), e)
}

func decodeEnvelopeID(w http.ResponseWriter, r *http.Request, s *Server, in any, id func() *string) bool {
	if err := decodeJSON(r, in); err != nil {
		s.writeError(w, r, err)
		return false
	}
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", deref(id()))
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return false
	}
	return true
}
