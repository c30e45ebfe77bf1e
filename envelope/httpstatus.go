package envelope

import "net/http"

// httpStatus is the HTTP status of each code that is not answered 400. It is part of the error
// contract: Documenso's clients read the status as much as the code, so the API and the signing
// pages answer a code with the same status.
var httpStatus = map[Code]int{
	CodeUnauthorized:      http.StatusUnauthorized,
	CodeForbidden:         http.StatusForbidden,
	CodeNotFound:          http.StatusNotFound,
	CodeMethodNotAllowed:  http.StatusMethodNotAllowed,
	CodePayloadTooLarge:   http.StatusRequestEntityTooLarge,
	CodeTooManyRequests:   http.StatusTooManyRequests,
	CodeAccessCodeLocked:  http.StatusForbidden,
	CodeLinkEnded:         http.StatusGone,
	CodeLinkReplaced:      http.StatusGone,
	CodeAccountRequired:   http.StatusUnauthorized,
	CodeAccountMismatch:   http.StatusUnauthorized,
	CodeAuthFailed:        http.StatusUnauthorized,
	CodeAccountLocked:     http.StatusTooManyRequests,
	CodeEmailUnverified:   http.StatusUnauthorized,
	CodeAuthNotEnrolled:   http.StatusUnauthorized,
	CodeFactorProofNeeded: http.StatusUnauthorized,
	CodeInternal:          http.StatusInternalServerError,
	CodeUnavailable:       http.StatusServiceUnavailable,
}

// HTTPStatus is the HTTP status that answers an error with code c, on the API and on the
// signing pages alike. A code not named in the table is 400, as in Documenso: every validation
// and status refusal (INVALID_BODY, ENVELOPE_COMPLETED, RECIPIENT_OUT_OF_TURN, ...) is the
// caller's to fix.
func (c Code) HTTPStatus() int {
	if s, ok := httpStatus[c]; ok {
		return s
	}
	return http.StatusBadRequest
}
