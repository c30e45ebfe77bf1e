package loadtest

import (
	"slices"
	"testing"
)

func TestRepeats(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mails []Mail
		want  []string
	}{
		{"none", nil, nil},
		{"distinct mails", []Mail{
			{MessageID: "1", Subject: "Please sign A", To: []string{"a@x"}},
			{MessageID: "2", Subject: "Completed: A", To: []string{"a@x"}},
			{MessageID: "3", Subject: "Please sign A", To: []string{"b@x"}},
		}, nil},
		{"one Message-ID delivered twice", []Mail{
			{MessageID: "1", Subject: "Please sign A", To: []string{"a@x"}},
			{MessageID: "1", Subject: "Please sign A", To: []string{"a@x"}},
		}, []string{"Message-ID 1 2 times", "a@x «Please sign A» 2 times"}},
		{"the same mail sent twice under two Message-IDs", []Mail{
			{MessageID: "1", Subject: "Completed: A", To: []string{"a@x"}},
			{MessageID: "2", Subject: "Completed: A", To: []string{"a@x"}},
		}, []string{"a@x «Completed: A» 2 times"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Repeats(tc.mails); !slices.Equal(got, tc.want) {
				t.Errorf("Repeats = %q, want %q", got, tc.want)
			}
		})
	}
}
