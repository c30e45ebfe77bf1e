package envelope

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Prefill is one prefillFields item of POST /envelope/use: a value for a template field, given
// with the field's type in lower case (text, number, radio, checkbox, dropdown, date).
type Prefill struct {
	ID          *int64          `json:"id"`
	Type        *string         `json:"type"`
	Label       *string         `json:"label"`
	Placeholder *string         `json:"placeholder"`
	Value       json.RawMessage `json:"value"`
}

// prefillTypes are the field types a prefill may target, by their lower-case name.
var prefillTypes = map[string]FieldType{
	"text": FieldText, "number": FieldNumber, "radio": FieldRadio, "checkbox": FieldCheckbox,
	"dropdown": FieldDropdown, "date": FieldDate,
}

// ApplyPrefill puts a prefill into a copy of the template field f, recording problems under
// path. Text and number values become the field's default (inserted at distribution), radio and
// checkbox values tick their options, a dropdown value becomes its default, and a date is
// written in the envelope's date format and time zone, the field inserted at once.
func ApplyPrefill(p *Problems, path string, f Field, in Prefill, m Meta) Field {
	typ := ""
	if in.Type != nil {
		typ = *in.Type
	}
	want, known := prefillTypes[typ]
	switch {
	case in.Type == nil:
		p.Add(Join(path, "type"), "is required: one of text, number, radio, checkbox, dropdown, date")
		return f
	case !known:
		p.Add(Join(path, "type"), "must be one of text, number, radio, checkbox, dropdown, date, got %q", typ)
		return f
	case want != f.Type:
		// The template's field, as the caller named it: f is a copy not stored yet.
		if in.ID != nil {
			p.Add(Join(path, "type"), "field %d is a %s field, not %s", *in.ID, f.Type, typ)
		} else {
			p.Add(Join(path, "type"), "the field is a %s field, not %s", f.Type, typ)
		}
		return f
	}
	meta := FieldMeta{Type: f.Type.MetaType()}
	if f.FieldMeta != nil {
		meta = *f.FieldMeta
		meta.Values = slices.Clone(f.FieldMeta.Values)
	}
	if in.Label != nil {
		checkMetaString(p, Join(path, "label"), *in.Label, MaxMetaText)
		meta.Label = in.Label
	}
	if in.Placeholder != nil && (f.Type == FieldText || f.Type == FieldNumber) {
		checkMetaString(p, Join(path, "placeholder"), *in.Placeholder, MaxMetaText)
		meta.Placeholder = in.Placeholder
	}
	vp := Join(path, "value")
	hasValue := len(in.Value) > 0 && string(in.Value) != "null"
	str := func() (string, bool) {
		var s string
		if err := json.Unmarshal(in.Value, &s); err != nil {
			p.Add(vp, "must be a string")
			return "", false
		}
		return s, true
	}
	if hasValue {
		switch f.Type {
		case FieldText:
			if s, ok := str(); ok {
				if meta.CharacterLimit != nil && len([]rune(s)) > *meta.CharacterLimit {
					p.Add(vp, "is longer than the field's characterLimit (%d)", *meta.CharacterLimit)
				}
				checkMetaString(p, vp, s, MaxFieldText)
				meta.Text = &s
			}
		case FieldNumber:
			if s, ok := str(); ok {
				format := ""
				if meta.NumberFormat != nil {
					format = *meta.NumberFormat
				}
				v, num := ParseNumberFormat(s, format)
				switch {
				case !num:
					p.Add(vp, "must be a number, got %q", s)
				case meta.MinValue != nil && v < *meta.MinValue:
					p.Add(vp, "must be at least %g", *meta.MinValue)
				case meta.MaxValue != nil && v > *meta.MaxValue:
					p.Add(vp, "must be at most %g", *meta.MaxValue)
				}
				meta.Value = &s
			}
		case FieldRadio, FieldDropdown:
			if s, ok := str(); ok {
				found := false
				for i := range meta.Values {
					on := meta.Values[i].Value == s
					found = found || on
					if f.Type == FieldRadio {
						meta.Values[i].Checked = &on
					}
				}
				if !found {
					p.Add(vp, "%q is not an option of field %d", s, f.ID)
				}
				if f.Type == FieldDropdown {
					meta.DefaultValue = &s
				}
			}
		case FieldCheckbox:
			var picked []string
			if err := json.Unmarshal(in.Value, &picked); err != nil {
				p.Add(vp, "must be an array of option values")
				break
			}
			for _, s := range picked {
				if !slices.ContainsFunc(meta.Values, func(v FieldValue) bool { return v.Value == s }) {
					p.Add(vp, "%q is not an option of field %d", s, f.ID)
				}
			}
			for i := range meta.Values {
				on := slices.Contains(picked, meta.Values[i].Value)
				meta.Values[i].Checked = &on
			}
			if problem := checkCheckboxCount(valueTextFor(LanguageEnglish), &meta, len(picked)); problem != "" {
				p.Add(vp, "%s", problem)
			}
		case FieldDate:
			if s, ok := str(); ok {
				t, err := parseDate(s)
				if err != nil {
					p.Add(vp, "must be a date such as 2026-03-05 or 2026-03-05T14:00:00Z, got %q", s)
					break
				}
				format, tz := DefaultDateFormat, DefaultTimezone
				if m.DateFormat != nil && *m.DateFormat != "" {
					format = *m.DateFormat
				}
				if m.Timezone != nil && *m.Timezone != "" {
					tz = *m.Timezone
				}
				f.CustomText, f.Inserted = FormatDate(t, format, tz, m.Language), true
			}
		}
	}
	f.FieldMeta = &meta
	return f
}

func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date: %q", s)
}

// CustomDocument is one customDocumentData item: which uploaded file (by name, or by index
// among the uploaded files) replaces which template item.
type CustomDocument struct {
	Identifier     any    `json:"identifier"`
	EnvelopeItemID string `json:"envelopeItemId"`
}

// MatchFiles resolves customDocumentData against the uploaded file names and the template's item
// ids, returning for each replaced item id the index of its file. A file or item that cannot be
// found is a NOT_FOUND error, as Documenso's; malformed items and more files than template items
// are INVALID_BODY problems.
func MatchFiles(p *Problems, custom []CustomDocument, files []string, itemIDs []string) (map[string]int, error) {
	out := map[string]int{}
	if len(files) > len(itemIDs) {
		p.Add("files", "%d files uploaded for a template of %d documents", len(files), len(itemIDs))
		return nil, nil
	}
	for i, c := range custom {
		path := Join("customDocumentData", i)
		if !slices.Contains(itemIDs, c.EnvelopeItemID) {
			return nil, Errorf(CodeNotFound, "Envelope item %q not found in the template", c.EnvelopeItemID)
		}
		if _, dup := out[c.EnvelopeItemID]; dup {
			p.Add(Join(path, "envelopeItemId"), "replaces item %s a second time", c.EnvelopeItemID)
			continue
		}
		idx := -1
		switch id := c.Identifier.(type) {
		case string:
			idx = slices.Index(files, id)
		case float64:
			if id == float64(int(id)) && int(id) >= 0 && int(id) < len(files) {
				idx = int(id)
			}
		case int:
			if id >= 0 && id < len(files) {
				idx = id
			}
		default:
			p.Add(Join(path, "identifier"), "must be a file name or a 0-based file index")
			continue
		}
		if idx < 0 {
			return nil, Errorf(CodeNotFound, "File with identifier %v not found", c.Identifier)
		}
		out[c.EnvelopeItemID] = idx
	}
	return out, nil
}

// SameLayout reports whether a replacement PDF keeps the template item's page layout: as many
// pages, each of the same size within a point, since template fields keep their coordinates.
func SameLayout(template, replacement [][2]float64) bool {
	if len(template) != len(replacement) {
		return false
	}
	for i := range template {
		if abs(template[i][0]-replacement[i][0]) > 1 || abs(template[i][1]-replacement[i][1]) > 1 {
			return false
		}
	}
	return true
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
