package envelope

import "testing"

func TestSealFailureRetriesByItself(t *testing.T) {
	tests := []struct {
		f    SealFailure
		want bool
	}{
		{SealTSAUnavailable, true},
		{SealFailed, true},
		{SealNotConfigured, false},
		{SealChainBroken, false},
		{SealNotShown, false},
		{SealUnreadable, false},
		{SealSignatureLayout, false},
		{SealPanic, false},
		{"SOMETHING_ELSE", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.f), func(t *testing.T) {
			if got := tt.f.RetriesByItself(); got != tt.want {
				t.Errorf("%q.RetriesByItself() = %v, want %v", tt.f, got, tt.want)
			}
		})
	}
}
