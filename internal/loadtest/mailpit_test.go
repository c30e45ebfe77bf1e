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

func TestCompleted(t *testing.T) {
	mails := []Mail{
		{Subject: `Completed: "Contrato r1-0"`, To: []string{"aprobador-r1-0@x", "firma1-r1-0@x"}},
		{Subject: `Completed: "Contrato r1-0"`, To: []string{"firma1-r1-0@x"}}, // a repeat counts once here
		{Subject: `Please sign "Contrato r1-0"`, To: []string{"firma2-r1-0@x"}},
		{Subject: `Completed: "Contrato r2-0"`, To: []string{"firma2-r2-0@x"}},
		{Subject: `Aprobador has completed "Contrato r1-0"`, To: []string{"owner-r1-@x"}},
	}
	for _, tc := range []struct {
		mark string
		want int
	}{{"-r1-", 2}, {"-r2-", 1}, {"-r3-", 0}} {
		if got := Completed(mails, tc.mark); got != tc.want {
			t.Errorf("Completed(%q) = %d, want %d", tc.mark, got, tc.want)
		}
	}
}
