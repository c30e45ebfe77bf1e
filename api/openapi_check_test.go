package api

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Every answer of /api/v2 that a test of this package gets is checked against the OpenAPI
// document as it is served: its status must be one the operation declares and its body must
// match that status's schema; the request of a 2xx answer must match the operation's parameters
// and request body. Every test server is built on checkedHandler (TestEveryTestServerIsChecked
// reads the sources to hold that), and TestMain fails the run that ran the whole package when an
// operation of the document was never answered 2xx, or when a 400 answer to an operation with a
// body was never seen: a new route is covered by a test, or listed in notReachedInTests with why.

// notReachedInTests are the operations no test of this package can answer with success, each with
// the reason. They stay checked whenever a test does reach them.
var notReachedInTests = map[string]string{}

// openAPIChecks holds what the checked test servers saw, for the whole test binary.
var openAPIChecks = struct {
	sync.Mutex
	once     sync.Once
	doc      *openapi3.T
	loadErr  error
	answered map[string]map[int]int // operationId → status → answers
	failures []string
	checked  int
}{answered: map[string]map[int]int{}}

// checkedDoc is the OpenAPI document as served, loaded and validated by kin-openapi.
func checkedDoc() (*openapi3.T, error) {
	c := &openAPIChecks
	c.once.Do(func() {
		for _, ct := range []string{"application/pdf", "application/pkcs7-signature", "application/ocsp-response"} {
			openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
		}
		openapi3filter.RegisterBodyDecoder("multipart/form-data", multipartWithEncoding)
		raw, err := json.Marshal(OpenAPI())
		if err != nil {
			c.loadErr = err
			return
		}
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(raw)
		if err != nil {
			c.loadErr = fmt.Errorf("load openapi.json: %w", err)
			return
		}
		if err := doc.Validate(loader.Context); err != nil {
			c.loadErr = fmt.Errorf("openapi.json is not valid OpenAPI: %w", err)
			return
		}
		c.doc = doc
	})
	return c.doc, c.loadErr
}

// multipartWithEncoding decodes a multipart body as kin-openapi does, but gives a part sent
// without a Content-Type (as Documenso's clients send the JSON payload) the content type that
// the operation's encoding names, as OpenAPI says a part's type is found.
func multipartWithEncoding(body io.Reader, header http.Header, schema *openapi3.SchemaRef, encFn openapi3filter.EncodingFn) (any, error) {
	_, params, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	mw := multipart.NewWriter(&out)
	if err := mw.SetBoundary(params["boundary"]); err != nil {
		return nil, err
	}
	mr := multipart.NewReader(body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		h := part.Header
		if enc := encFn(part.FormName()); h.Get("Content-Type") == "" && enc != nil && enc.ContentType != "" {
			h.Set("Content-Type", enc.ContentType)
		}
		pw, err := mw.CreatePart(h)
		if err != nil {
			return nil, err
		}
		if _, err := io.Copy(pw, part); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	return openapi3filter.MultipartBodyDecoder(&out, header, schema, encFn)
}

// checkedHandler is h with every /api/v2 answer checked against the OpenAPI document; a
// mismatch fails tb and is listed again at the end of the run. A benchmark gets h itself.
func checkedHandler(tb testing.TB, h http.Handler) http.Handler {
	if _, bench := tb.(*testing.B); bench {
		return h // a benchmark measures the server; the tests check every answer it gives
	}
	doc, err := checkedDoc()
	if err != nil {
		tb.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route, params, ok := findOperation(doc, r)
		if !ok {
			h.ServeHTTP(w, r)
			return
		}
		var reqBody []byte
		if r.Body != nil {
			reqBody, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(reqBody))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if problem := checkExchange(r, reqBody, route, params, rec); problem != "" {
			tb.Errorf("openapi: %s", problem)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// checkExchange validates one answer (and, for a 2xx, its request) against route's operation,
// records it, and returns what does not match, or "".
func checkExchange(r *http.Request, reqBody []byte, route *routers.Route, params map[string]string, rec *httptest.ResponseRecorder) string {
	problems := exchangeProblems(r, reqBody, route, params, rec)
	id := route.Operation.OperationID
	c := &openAPIChecks
	c.Lock()
	defer c.Unlock()
	c.checked++
	if c.answered[id] == nil {
		c.answered[id] = map[int]int{}
	}
	c.answered[id][rec.Code]++
	if len(problems) == 0 {
		return ""
	}
	problem := fmt.Sprintf("%s (%s %s) answered %d: %s\n  body: %.600s", id, r.Method, r.URL.Path, rec.Code, strings.Join(problems, "\n  "), rec.Body.String())
	c.failures = append(c.failures, problem)
	return problem
}

// exchangeProblems is what does not match route's operation in one answer: its status, its body,
// and for a 2xx the request's parameters and body.
func exchangeProblems(r *http.Request, reqBody []byte, route *routers.Route, params map[string]string, rec *httptest.ResponseRecorder) []string {
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true}
	req := r.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	var problems []string
	if rec.Code/100 == 2 {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			problems = append(problems, "request: "+err.Error())
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: rec.Code, Header: rec.Header(), Options: opts}
	out.SetBodyBytes(rec.Body.Bytes())
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		problems = append(problems, "response: "+err.Error())
	}
	return problems
}

// findOperation is the operation of doc that r asks for under /api/v2 or /api/v2-beta, with its
// path parameters; of several templates that match, the one with the fewest parameters, as the
// router prefers literal segments.
func findOperation(doc *openapi3.T, r *http.Request) (*routers.Route, map[string]string, bool) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/api/v2-beta/")
	if !ok {
		if rest, ok = strings.CutPrefix(r.URL.Path, "/api/v2/"); !ok {
			return nil, nil, false
		}
	}
	segs := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	var best *routers.Route
	var bestParams map[string]string
	for path, item := range doc.Paths.Map() {
		op := item.GetOperation(r.Method)
		if op == nil {
			continue
		}
		tmpl := strings.Split(strings.TrimPrefix(path, "/"), "/")
		if len(tmpl) != len(segs) {
			continue
		}
		params := map[string]string{}
		for i, t := range tmpl {
			if strings.HasPrefix(t, "{") {
				params[strings.Trim(t, "{}")] = segs[i]
			} else if t != segs[i] {
				params = nil
				break
			}
		}
		if params != nil && (best == nil || len(params) < len(bestParams)) {
			best = &routers.Route{Spec: doc, Server: doc.Servers[0], Path: path, PathItem: item, Method: r.Method, Operation: op}
			bestParams = params
		}
	}
	return best, bestParams, best != nil
}

// TestMain runs the tests, then reports the OpenAPI checks: every failure, and, when the whole
// package ran with its services, every operation never answered 2xx and every operation with a
// body never answered 400.
func TestMain(m *testing.M) {
	code := m.Run()
	c := &openAPIChecks
	c.Lock()
	defer c.Unlock()
	if c.checked > 0 {
		fmt.Printf("openapi: %d answers checked against openapi.json, %d operations answered\n", c.checked, len(c.answered))
	}
	if len(c.failures) > 0 {
		fmt.Printf("openapi: %d answers do not match openapi.json:\n%s\n", len(c.failures), strings.Join(c.failures, "\n"))
		code = 1
	}
	if wholePackageRan() {
		if missing := uncovered(); len(missing) > 0 {
			fmt.Printf("openapi: operations no test reached (add a test, or a reason to notReachedInTests):\n  %s\n", strings.Join(missing, "\n  "))
			code = 1
		}
	}
	os.Exit(code)
}

// wholePackageRan reports whether every test of the package ran against real services: no -run,
// -skip or -short, and SOBRE_TEST_REQUIRE_SERVICES set (as make test sets it).
func wholePackageRan() bool {
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	return !testing.Short() && os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != ""
}

// uncovered lists the operations of the document never answered 2xx (unless excused in
// notReachedInTests) and those with a request body never answered 400. Call with
// openAPIChecks locked.
func uncovered() []string {
	doc, err := checkedDoc()
	if err != nil {
		return []string{err.Error()}
	}
	var missing []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			seen := openAPIChecks.answered[op.OperationID]
			ok := false
			for status := range seen {
				ok = ok || status/100 == 2
			}
			_, excused := notReachedInTests[op.OperationID]
			if !ok && !excused {
				missing = append(missing, fmt.Sprintf("%s (%s %s): no 2xx answer", op.OperationID, method, path))
			}
			if op.RequestBody != nil && seen[http.StatusBadRequest] == 0 {
				missing = append(missing, fmt.Sprintf("%s (%s %s): no 400 answer", op.OperationID, method, path))
			}
		}
	}
	sort.Strings(missing)
	return missing
}

// The OpenAPI document is valid OpenAPI 3.1 by kin-openapi's loader and validator.
func TestOpenAPIIsValid(t *testing.T) {
	if _, err := checkedDoc(); err != nil {
		t.Fatal(err)
	}
}

// Every test server of the package serves the API through checkedHandler, so that no answer
// escapes the OpenAPI checks: each call of a Server's Handler() in the tests' sources is wrapped.
func TestEveryTestServerIsChecked(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	handler := regexp.MustCompile(`(\w+(?:\.\w+)*)\.Handler\(\)`)
	for _, f := range files {
		if f == "openapi_check_test.go" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			for _, m := range handler.FindAllStringSubmatchIndex(line, -1) {
				receiver := line[m[2]:m[3]]
				if receiver == "p" { // the Clave Única provider of testCeremony, not the API
					continue
				}
				if !strings.HasSuffix(line[:m[0]], "checkedHandler(tb, ") && !strings.HasSuffix(line[:m[0]], "checkedHandler(t, ") &&
					!strings.HasSuffix(line[:m[0]], "checkedHandler(a.t, ") {
					t.Errorf("%s:%d: %s.Handler() is served without checkedHandler", f, i+1, receiver)
				}
			}
		}
	}
}

// The checks find what does not match: an undeclared status, a member missing from an answer, a
// member the document does not list, a wrong enum value, and a 2xx whose request broke the
// request schema. A matching exchange has no problem.
func TestExchangeProblemsFindMismatches(t *testing.T) {
	doc, err := checkedDoc()
	if err != nil {
		t.Fatal(err)
	}
	field := `{"id":1,"secondaryId":"f","envelopeId":"envelope_a","envelopeItemId":"envelope_item_a","type":"SIGNATURE","recipientId":2,` +
		`"page":1,"positionX":1,"positionY":1,"width":1,"height":1,"customText":"","inserted":false,"fieldMeta":null,"documentId":1,"templateId":null`
	tests := []struct {
		name, method, path, reqBody string
		status                      int
		body                        string
		want                        string // in the problems; "" for none
	}{
		{"matches", "GET", "/api/v2/envelope/field/1", "", 200, field + "}", ""},
		{"undeclared status", "GET", "/api/v2/envelope/field/1", "", http.StatusTeapot, `{"message":"x","code":"X"}`, "status is not supported"},
		{"missing member", "GET", "/api/v2/envelope/field/1", "", 200, `{"id":1}`, "secondaryId"},
		{"undocumented member", "GET", "/api/v2/envelope/field/1", "", 200, field + `,"extra":true}`, "extra"},
		{"wrong enum value", "GET", "/api/v2/envelope/field/1", "", 200, strings.Replace(field, "SIGNATURE", "SCRIBBLE", 1) + "}", "SCRIBBLE"},
		{"2xx to a bad request", "POST", "/api/v2/envelope/field/delete", `{"fieldId":"one"}`, 200, `{"success":true}`, "request"},
		{"error body", "POST", "/api/v2/envelope/field/delete", `{}`, 400, `{"message":"x"}`, "code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.reqBody))
			if tt.reqBody != "" {
				r.Header.Set("Content-Type", "application/json")
			}
			route, params, ok := findOperation(doc, r)
			if !ok {
				t.Fatalf("no operation for %s %s", tt.method, tt.path)
			}
			rec := httptest.NewRecorder()
			rec.Header().Set("Content-Type", "application/json")
			rec.WriteHeader(tt.status)
			rec.WriteString(tt.body)
			problems := strings.Join(exchangeProblems(r, []byte(tt.reqBody), route, params, rec), "\n")
			if tt.want == "" && problems != "" || tt.want != "" && !strings.Contains(problems, tt.want) {
				t.Errorf("problems %q, want %q", problems, tt.want)
			}
		})
	}
}
