package view

import (
	"encoding/json"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// In an envelope read each recipient carries its own fields (an empty list when it has none),
// and the envelope all of them; lists (the summary) carry none.
func TestEnvelopeRecipientsCarryTheirFields(t *testing.T) {
	e := &envelope.Envelope{ID: "envelope_a",
		Recipients: []envelope.Recipient{{ID: 1, Token: "secret-token"}, {ID: 2}, {ID: 3}},
		Fields:     []envelope.Field{{ID: 10, RecipientID: 1}, {ID: 11, RecipientID: 2}, {ID: 12, RecipientID: 1}}}
	v := NewEnvelope(e, true)
	want := map[int64][]int64{1: {10, 12}, 2: {11}, 3: {}}
	for _, r := range v.Recipients {
		var got []int64
		for _, f := range r.Fields {
			got = append(got, f.ID)
		}
		if r.Fields == nil || len(got) != len(want[r.ID]) || (len(got) > 0 && (got[0] != want[r.ID][0] || got[len(got)-1] != want[r.ID][len(got)-1])) {
			t.Errorf("recipient %d: fields %v, want %v", r.ID, got, want[r.ID])
		}
		if r.Token != "" {
			t.Errorf("recipient %d: token not masked", r.ID)
		}
	}
	if len(v.Fields) != 3 {
		t.Errorf("%d fields on the envelope, want 3", len(v.Fields))
	}
	raw, err := json.Marshal(NewEnvelopeSummary(e, true))
	if err != nil {
		t.Fatal(err)
	}
	var summary struct {
		Recipients []map[string]any `json:"recipients"`
	}
	if err := json.Unmarshal(raw, &summary); err != nil {
		t.Fatal(err)
	}
	if _, ok := summary.Recipients[0]["fields"]; ok {
		t.Error("a list's recipient carries fields")
	}
}
