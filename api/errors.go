package api

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/sobre-sign/sobre/envelope"
)

// errorBody is the body of every failed response. It is Documenso's: message, code and, for
// input problems, the list of issues with the JSON path of each bad value.
type errorBody struct {
	Message string           `json:"message"`
	Code    string           `json:"code"`
	Issues  []envelope.Issue `json:"issues,omitempty"`
}

// writeError answers err. Domain errors (*envelope.Error) are shown as they are; anything else is
// an internal error: logged with the request id, answered with a plain message.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	de, internal := envelope.Shown(err)
	status := de.Code.HTTPStatus()
	if internal {
		s.log.ErrorContext(r.Context(), "internal error", "err", err, "request_id", requestID(r.Context()))
	} else if status >= 500 {
		s.log.ErrorContext(r.Context(), "request failed", "err", err, "request_id", requestID(r.Context()))
	}
	if n := de.RetryAfterSeconds(); n > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(n))
	}
	writeJSON(w, status, errorBody{Message: de.Message, Code: string(de.Code), Issues: de.Issues})
}

// writeJSON answers v as JSON with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		slog.Default().Warn("write json response", "err", err)
	}
}
