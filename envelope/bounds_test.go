package envelope

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestResendIDs(t *testing.T) {
	many := make([]int64, MaxResendRecipients+1)
	for i := range many {
		many[i] = int64(i + 1)
	}
	for _, c := range []struct {
		name    string
		ids     []int64
		want    []int64
		problem string
	}{
		{"none", nil, nil, "must list at least one recipient id"},
		{"repeats", []int64{3, 1, 3, 3, 1, 2}, []int64{3, 1, 2}, ""},
		{"at the cap", many[:MaxResendRecipients], many[:MaxResendRecipients], ""},
		{"beyond the cap", many, nil, "must list at most 100 recipient ids, got 101"},
		{"repeats beyond the cap", slices.Repeat([]int64{7}, 50_000), nil, "must list at most 100 recipient ids, got 50000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var p Problems
			got := ResendIDs(&p, "recipients", c.ids)
			if !slices.Equal(got, c.want) {
				t.Errorf("ids %v, want %v", got, c.want)
			}
			err := p.Err()
			if c.problem == "" {
				if err != nil {
					t.Fatalf("unexpected problem %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || len(e.Issues) != 1 || e.Issues[0].Path != "recipients" || e.Issues[0].Message != c.problem {
				t.Fatalf("problem %#v, want recipients: %s", err, c.problem)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		name string
		got  string
		want string
	}{
		{"short bytes", TruncateBytes("abc", 5), "abc"},
		{"bytes", TruncateBytes("abcdef", 4), "abcd"},
		{"bytes on a character boundary", TruncateBytes("añb", 2), "a"}, // ñ is 2 bytes: cut before it
		{"bytes after a character", TruncateBytes("añb", 3), "añ"},
		{"short runes", TruncateRunes("ñandú", 9), "ñandú"},
		{"runes", TruncateRunes("ñandú", 3), "ñan"},
		{"empty", TruncateRunes("", 0), ""},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
	long := strings.Repeat("é", 1<<20)
	if s := TruncateBytes(long, MaxActorUserAgent); len(s) > MaxActorUserAgent || !utf8.ValidString(s) {
		t.Errorf("1 MiB User-Agent cut to %d bytes, valid %v", len(s), utf8.ValidString(s))
	}
}
