package envelope

import "testing"

func TestCodeHTTPStatus(t *testing.T) {
	tests := []struct {
		code Code
		want int
	}{
		{CodeInvalidBody, 400},
		{CodeInvalidRequest, 400},
		{CodeAlreadyExists, 400},
		{CodeEnvelopeCompleted, 400},
		{CodeEnvelopeNotDraft, 400},
		{CodeRecipientOutOfTurn, 400},
		{CodeMissingSignatureField, 400},
		{CodeRUTFirmadoTyped, 400},
		{CodeVerificationFailed, 400},
		{Code("SOME_FUTURE_CODE"), 400},
		{CodeUnauthorized, 401},
		{CodeAccountRequired, 401},
		{CodeAccountMismatch, 401},
		{CodeAuthFailed, 401},
		{CodeEmailUnverified, 401},
		{CodeAuthNotEnrolled, 401},
		{CodeFactorProofNeeded, 401},
		{CodeForbidden, 403},
		{CodeAccessCodeLocked, 403},
		{CodeNotFound, 404},
		{CodeMethodNotAllowed, 405},
		{CodeLinkEnded, 410},
		{CodeLinkReplaced, 410},
		{CodePayloadTooLarge, 413},
		{CodeTooManyRequests, 429},
		{CodeAccountLocked, 429},
		{CodeInternal, 500},
		{CodeUnavailable, 503},
	}
	for _, tt := range tests {
		t.Run(string(tt.code), func(t *testing.T) {
			if got := tt.code.HTTPStatus(); got != tt.want {
				t.Errorf("%s.HTTPStatus() = %d, want %d", tt.code, got, tt.want)
			}
		})
	}
}
