package envelope

import (
	"slices"
	"testing"
)

func TestInvalid(t *testing.T) {
	tests := []struct {
		name    string
		err     *Error
		wantMsg string
		want    Issue
	}{
		{"plain message", Invalid("fieldId", "is required"), "Input validation failed: fieldId: is required", Issue{Path: "fieldId", Message: "is required"}},
		{"formatted message", Invalid("recipientId", "must be a positive integer, got %q", "x%d"), `Input validation failed: recipientId: must be a positive integer, got "x%d"`,
			Issue{Path: "recipientId", Message: `must be a positive integer, got "x%d"`}},
		{"no path", Invalid("", "is empty"), "Input validation failed: is empty", Issue{Message: "is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err.Code != CodeInvalidBody || tt.err.Message != tt.wantMsg || !slices.Equal(tt.err.Issues, []Issue{tt.want}) {
				t.Errorf("got %+v, want INVALID_BODY %q with the one issue %+v", tt.err, tt.wantMsg, tt.want)
			}
			if got := tt.err.Code.HTTPStatus(); got != 400 {
				t.Errorf("status %d, want 400", got)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	for _, c := range []struct {
		err  *Error
		want string
	}{
		{Errorf(CodeNotFound, "Envelope not found"), "NOT_FOUND: Envelope not found"},
		{Invalid("title", "is required"), "INVALID_BODY: Input validation failed: title: is required"},
		{&Error{Code: CodeUnauthorized, Message: "Filled elsewhere", Issues: []Issue{{Path: "fieldId", Message: "field 3"}}}, "UNAUTHORIZED: Filled elsewhere (fieldId: field 3)"},
		{&Error{Code: CodeInvalidBody, Message: "Input validation failed", Issues: []Issue{{Path: "a", Message: "x"}, {Message: "y"}}},
			"INVALID_BODY: Input validation failed (2 issues, the first a: x)"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}
