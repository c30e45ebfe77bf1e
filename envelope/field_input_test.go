package envelope

import (
	"errors"
	"slices"
	"testing"
)

func TestCheckFieldInput(t *testing.T) {
	ptr := func(v float64) *float64 { return &v }
	page := func(n int) *int { return &n }
	sig, bogus := string(FieldSignature), "BOGUS"
	box := FieldInput{Type: &sig, Page: page(2), PositionX: ptr(10), PositionY: ptr(20), Width: ptr(30), Height: ptr(5)}
	with := func(change func(*FieldInput)) FieldInput { in := box; change(&in); return in }
	tests := []struct {
		name     string
		in       FieldInput
		pages    int
		required bool
		wantOK   bool
		want     []string // the paths of the problems, in order
	}{
		{"a whole field", box, 3, true, true, nil},
		{"page past the document", box, 1, true, true, []string{"f.page"}},
		{"page count not known", box, 0, true, true, nil},
		{"page below 1", with(func(in *FieldInput) { in.Page = page(0) }), 3, true, true, []string{"f.page"}},
		{"box past the page", with(func(in *FieldInput) { in.Width = ptr(100.5); in.PositionX = ptr(-1) }), 3, true, true, []string{"f.positionX", "f.width"}},
		{"no type", with(func(in *FieldInput) { in.Type = nil }), 3, true, false, []string{"f.type"}},
		{"unknown type", with(func(in *FieldInput) { in.Type = &bogus }), 3, true, false, []string{"f.type"}},
		{"position required", FieldInput{Type: &sig}, 3, true, true, []string{"f.page", "f.positionX", "f.positionY", "f.width", "f.height"}},
		{"position optional", FieldInput{Type: &sig}, 3, false, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Problems
			f, ok := CheckFieldInput(&p, "f", tt.in, tt.pages, tt.required)
			var got []string
			var e *Error
			if errors.As(p.Err(), &e) {
				for _, is := range e.Issues {
					got = append(got, is.Path)
				}
			}
			if ok != tt.wantOK || !slices.Equal(got, tt.want) {
				t.Errorf("CheckFieldInput = ok %v, problems %v; want ok %v, problems %v", ok, got, tt.wantOK, tt.want)
			}
			if ok && tt.in.Page != nil && (f.Page != *tt.in.Page || f.Type != FieldSignature) {
				t.Errorf("field = page %d type %s, want page %d type %s", f.Page, f.Type, *tt.in.Page, FieldSignature)
			}
		})
	}
}
