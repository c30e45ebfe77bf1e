package envelope

// FieldInput is a field as a request gives it: placed by coordinates (Page and the box, in
// percent of the page) or, on a DRAFT, by Placeholder text found in the document. Pointers tell
// an absent member from a zero one, so that "required" can be checked and every problem
// reported with its path.
type FieldInput struct {
	ID             *int64     `json:"id"`
	RecipientID    *int64     `json:"recipientId"`
	EnvelopeItemID *string    `json:"envelopeItemId"`
	Type           *string    `json:"type"`
	FieldMeta      *FieldMeta `json:"fieldMeta"`
	Page           *int       `json:"page"`
	PositionX      *float64   `json:"positionX"`
	PositionY      *float64   `json:"positionY"`
	Width          *float64   `json:"width"`
	Height         *float64   `json:"height"`
	Placeholder    *string    `json:"placeholder"`
	MatchAll       *bool      `json:"matchAll"`
}

// CheckFieldInput records at path every problem of in's type, meta and position (on a document
// of pages pages; 0: not known) and returns the field it describes, with ok false when its type
// is missing or unknown. With positionRequired, a missing page or box member is a problem.
func CheckFieldInput(p *Problems, path string, in FieldInput, pages int, positionRequired bool) (f Field, ok bool) {
	ok = true
	switch {
	case in.Type == nil:
		p.Add(Join(path, "type"), "is required: one of %v", FieldTypes())
		ok = false
	case !OneOf(FieldType(*in.Type), FieldTypes()):
		p.Add(Join(path, "type"), "must be one of %v, got %q", FieldTypes(), *in.Type)
		ok = false
	default:
		f.Type = FieldType(*in.Type)
		f.FieldMeta = ValidateFieldMeta(p, Join(path, "fieldMeta"), f.Type, in.FieldMeta)
	}
	checkPosition(p, path, in, pages, positionRequired)
	f.Page = orZero(in.Page)
	f.PositionX, f.PositionY, f.Width, f.Height = orZero(in.PositionX), orZero(in.PositionY), orZero(in.Width), orZero(in.Height)
	return f, ok
}

// checkPosition records the problems of in's page (at least 1, at most pages when known) and box
// (each member 0 to MaxPosition percent of the page). Members that are nil are reported as
// required when required is set.
func checkPosition(p *Problems, path string, in FieldInput, pages int, required bool) {
	if in.Page == nil {
		if required {
			p.Add(Join(path, "page"), "is required: a page number starting at 1")
		}
	} else if *in.Page < 1 {
		p.Add(Join(path, "page"), "must be at least 1, got %d", *in.Page)
	} else if pages > 0 && *in.Page > pages {
		p.Add(Join(path, "page"), "must be at most %d (the document's page count), got %d", pages, *in.Page)
	}
	for _, m := range []struct {
		name string
		v    *float64
	}{{"positionX", in.PositionX}, {"positionY", in.PositionY}, {"width", in.Width}, {"height", in.Height}} {
		name, v := m.name, m.v
		switch {
		case v == nil:
			if required {
				p.Add(Join(path, name), "is required: a percentage of the page, 0 to 100")
			}
		case *v < 0 || *v > MaxPosition:
			p.Add(Join(path, name), "must be between 0 and 100 (percent of the page), got %g", *v)
		}
	}
}

// orZero is *v, or the zero value when v is nil.
func orZero[T any](v *T) T {
	if v == nil {
		var zero T
		return zero
	}
	return *v
}
