package api

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// FuzzCreatePayload feeds arbitrary payload JSON through the multipart reader and the create
// validation: it must never panic, and every failure must be an input error the caller can read
// (never an internal error).
func FuzzCreatePayload(f *testing.F) {
	for _, seed := range []string{
		`{"title":"t","type":"DOCUMENT"}`,
		`{"title":"t","type":"DOCUMENT","recipients":[{"email":"a@b.cl","name":"A","role":"SIGNER","fields":[{"type":"RUT","page":1,"positionX":1,"positionY":1,"width":1,"height":1,"fieldMeta":{"type":"rut","text":"12.345.678-5"}}]}]}`,
		`{"title":"t","type":"TEMPLATE","meta":{"envelopeExpirationPeriod":{"disabled":true},"reminderSettings":{"sendAfter":{"unit":"day","amount":1},"repeatEvery":{"unit":"week","amount":2}}}}`,
		`{"title":1}`, `[]`, `null`, `{"recipients":[{"fields":[{"identifier":3}]}]}`, `{"formValues":{"a":[1]}}`,
		`{"meta":{"emailSettings":{"documentCompleted":false},"timezone":null,"dateFormat":null}}`,
	} {
		f.Add(seed)
	}
	pdfBytes := minimalPDF("x")
	s := &Server{} // default limits
	// The one file every input carries is read once: reading is not what is fuzzed here.
	var read envelope.Problems
	docs, err := s.inspectFiles(f.Context(), &read, []uploadedFile{{Name: "a.pdf", Data: pdfBytes}})
	if err != nil || read.Err() != nil {
		f.Fatalf("read the PDF: %v %v", err, read.Err())
	}
	f.Fuzz(func(t *testing.T, payload string) {
		body, ct := multipartBody(t, rawJSON(payload), map[string][]byte{"a.pdf": pdfBytes})
		req := httptest.NewRequest("POST", "/api/v2/envelope/create", body)
		req.Header.Set("Content-Type", ct)
		var in createPayload
		files, err := readMultipart(req, &in)
		if err != nil {
			var de *envelope.Error
			if !errors.As(err, &de) || de.Code != envelope.CodeInvalidBody {
				t.Fatalf("readMultipart(%q) = %v; want an INVALID_BODY error", payload, err)
			}
			return
		}
		var p envelope.Problems
		ne := s.validateCreate(&p, in, files, docs[:len(files)])
		if err := p.Err(); err != nil {
			if envelope.ErrorCode(err) != envelope.CodeInvalidBody {
				t.Fatalf("validation error with code %s", envelope.ErrorCode(err))
			}
			return
		}
		if ne.Envelope.Title == "" || !envelope.OneOf(ne.Envelope.Type, envelope.Types()) || len(ne.Items) != 1 {
			t.Fatalf("accepted an invalid payload %q: %+v", payload, ne.Envelope)
		}
	})
}

// rawJSON is a payload written as given, not re-encoded.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// FuzzDecodeJSON checks that no body makes decodeJSON panic or report anything but INVALID_BODY.
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{`{}`, `{"envelopeId":"envelope_x","data":[{"id":1}]}`, `{"a":`, ``, `{} {}`, `"\ud800"`, `{"data":[{"fieldMeta":{"values":[{"id":"x"}]}}]}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var in fieldsRequest
		err := decodeJSONFrom(strings.NewReader(body), &in)
		if err != nil && envelope.ErrorCode(err) != envelope.CodeInvalidBody {
			t.Fatalf("decodeJSON(%q) = %v", body, err)
		}
		var rin recipientsRequest
		err = decodeJSONFrom(strings.NewReader(body), &rin)
		if err != nil && envelope.ErrorCode(err) != envelope.CodeInvalidBody {
			t.Fatalf("decodeJSON(%q) = %v", body, err)
		}
	})
}

// FuzzUsePayload feeds arbitrary payload JSON through the multipart reader and the checks of
// POST /envelope/use: it must never panic, and every failure must be an input error.
func FuzzUsePayload(f *testing.F) {
	for _, seed := range []string{
		`{"envelopeId":"envelope_abcdefghijklmnop"}`,
		`{"envelopeId":"envelope_abcdefghijklmnop","recipients":[{"id":1,"email":"a@b.cl","name":"A","signingOrder":2}],"distributeDocument":true}`,
		`{"envelopeId":"envelope_x","prefillFields":[{"id":1,"type":"checkbox","value":["a"]},{"id":2,"type":"date","value":"2026-01-01"}]}`,
		`{"envelopeId":"envelope_x","customDocumentData":[{"identifier":0,"envelopeItemId":"envelope_item_y"},{"identifier":"a.pdf","envelopeItemId":"z"}]}`,
		`{"envelopeId":"envelope_x","override":{"title":"t","language":"es","envelopeExpirationPeriod":{"disabled":true}}}`,
		`{"recipients":[{}]}`, `{"prefillFields":[{"id":"x"}]}`, `null`, `[]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		body, ct := multipartBody(t, rawJSON(payload), map[string][]byte{"a.pdf": []byte("%PDF-1.7")})
		req := httptest.NewRequest("POST", "/api/v2/envelope/use", body)
		req.Header.Set("Content-Type", ct)
		var in usePayload
		if _, err := readMultipart(req, &in); err != nil {
			if envelope.ErrorCode(err) != envelope.CodeInvalidBody {
				t.Fatalf("readMultipart(%q) = %v", payload, err)
			}
			return
		}
		var p envelope.Problems
		validateUsePayload(&p, &in)
		if err := p.Err(); err != nil && envelope.ErrorCode(err) != envelope.CodeInvalidBody {
			t.Fatalf("validation error with code %s", envelope.ErrorCode(err))
		}
		// The prefill rules never panic on what the decoder accepted.
		for _, pf := range in.PrefillFields {
			for _, typ := range envelope.FieldTypes() {
				envelope.ApplyPrefill(&p, "p", envelope.Field{ID: 1, Type: typ}, pf, envelope.DefaultMeta("m"))
			}
		}
	})
}
