package envelope

import "testing"

func TestIsTextAndNonText(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "contrato de arriendo": true, "Ñuñoa — 50% off": true, "a\x00b": false, "\xff": false,
		"\xc3": false, "ok\u2028ok": true, "\U0001F600": true, "\xed\xa0\x80": false, // a lone surrogate
	} {
		if got := IsText(s); got != want {
			t.Errorf("IsText(%q) = %v, want %v", s, got, want)
		}
	}
	for _, tt := range []struct {
		values  map[string][]string
		name    string
		nonText bool
	}{
		{map[string][]string{"query": {"abc"}, "page": {"1", "2"}}, "", false},
		{map[string][]string{"query": {"ab\x00c"}}, "query", true},
		{map[string][]string{"page": {"1", "\xff"}}, "page", true},
		{map[string][]string{"q\x00\xff": {"abc"}}, "q\uFFFD", true},
	} {
		name, found := NonText(tt.values)
		if name != tt.name || found != tt.nonText {
			t.Errorf("NonText(%q) = %q, %v, want %q, %v", tt.values, name, found, tt.name, tt.nonText)
		}
	}
}
