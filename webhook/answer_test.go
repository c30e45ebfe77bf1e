package webhook

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestKeptAnswer(t *testing.T) {
	k := strings.Repeat("k", MaxAnswerKept)
	tests := []struct {
		name string
		head string
		want string
	}{
		{"empty", "", ""},
		{"short", `{"ok":true}`, `{"ok":true}`},
		{"exactly the bound", k, k},
		{"longer: cut", k + "abc", k},
		{"a rune crossing the bound left out", k[:MaxAnswerKept-1] + "ñ" + "xy", k[:MaxAnswerKept-1]},
		{"a 4-byte rune crossing the bound left out", k[:MaxAnswerKept-2] + "😀", k[:MaxAnswerKept-2]},
		{"a rune ending at the bound kept", k[:MaxAnswerKept-2] + "ñ" + "xyz", k[:MaxAnswerKept-2] + "ñ"},
		{"an invalid byte replaced", "ok\xffok", "ok\uFFFDok"},
		{"a truncated rune at the end replaced", "ok\xc3", "ok\uFFFD"},
		{"Latin-1 replaced", "contrase\xf1a", "contrase\uFFFDa"},
		{"a run of invalid bytes replaced by one", "a\xff\xfe\xfdb", "a\uFFFDb"},
		{"replacements never pass the bound", strings.Repeat("\xffa", MaxAnswerKept)[:MaxAnswerKept+3], strings.Repeat("\uFFFDa", MaxAnswerKept/4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := keptAnswer([]byte(tt.head))
			if got != tt.want {
				t.Errorf("keptAnswer = %q (%d bytes), want %q (%d bytes)", got, len(got), tt.want, len(tt.want))
			}
			if !utf8.ValidString(got) || len(got) > MaxAnswerKept {
				t.Errorf("keptAnswer is not valid UTF-8 of at most %d bytes: %d bytes", MaxAnswerKept, len(got))
			}
		})
	}
}
