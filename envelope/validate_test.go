package envelope

import (
	"fmt"
	"testing"
)

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

func TestCheckOnce(t *testing.T) {
	id := func(v int64) *int64 { return &v }
	for _, tt := range []struct {
		ids  []*int64
		want []string
	}{
		{nil, nil},
		{[]*int64{id(1), id(2), nil, nil}, nil},
		{[]*int64{id(1), id(2), id(1)}, []string{"data[2].id"}},
		{[]*int64{id(7), id(7), id(7), nil, id(8)}, []string{"data[1].id", "data[2].id"}},
	} {
		var p Problems
		CheckOnce(&p, "field", tt.ids, func(i int) string { return Join(Join("data", i), "id") })
		var got []string
		for _, is := range p.issues {
			got = append(got, is.Path)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%v: problems at %v, want %v", tt.ids, got, tt.want)
		}
	}
}
