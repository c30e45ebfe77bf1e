package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/pdf"
	"github.com/sobre-sign/sobre/persistence"
)

// itemFor resolves an optional envelopeItemId; absent means the first item.
func itemFor(p *envelope.Problems, path string, id *string, items []persistence.ItemPages) *persistence.ItemPages {
	if len(items) == 0 {
		p.Add(path, "the envelope has no document to place fields on")
		return nil
	}
	if id == nil || *id == "" {
		return &items[0]
	}
	for i := range items {
		if items[i].ID == *id {
			return &items[i]
		}
	}
	p.Add(path, "names no item of this envelope: %q", *id)
	return nil
}

// placeFields finds a placeholder's text in the item's PDF and returns one field per match (the
// first only, unless matchAll), recording the boxes to white out.
func (s *Server) placeFields(r *http.Request, tx *persistence.Tx, p *envelope.Problems, path string, in fieldInput,
	item *persistence.ItemPages, whiteouts map[string][]pdf.Match) []envelope.Field {
	text := strings.TrimSpace(*in.Placeholder)
	if text == "" {
		p.Add(envelope.Join(path, "placeholder"), "may not be empty")
		return nil
	}
	base, ok := checkFieldInput(p, path, fieldInput{Type: in.Type, FieldMeta: in.FieldMeta, Width: in.Width, Height: in.Height}, nil, false)
	if !ok || item == nil {
		return nil
	}
	data, err := tx.ItemData(r.Context(), item.ID)
	if err != nil {
		p.Add(envelope.Join(path, "envelopeItemId"), "could not read the document: %v", err)
		return nil
	}
	matches, err := pdf.FindText(data, text)
	if err != nil {
		p.Add(envelope.Join(path, "placeholder"), "could not search the document: %v", err)
		return nil
	}
	if len(matches) == 0 {
		p.Add(envelope.Join(path, "placeholder"), "Placeholder %q not found in PDF %q", text, item.Title)
		return nil
	}
	if in.MatchAll == nil || !*in.MatchAll {
		matches = matches[:1]
	}
	var out []envelope.Field
	for _, m := range matches {
		f := base
		f.EnvelopeItemID = item.ID
		f.Page, f.PositionX, f.PositionY, f.Width, f.Height = m.Page, round2(m.X), round2(m.Y), round2(m.Width), round2(m.Height)
		if in.Width != nil {
			f.Width = *in.Width
		}
		if in.Height != nil {
			f.Height = *in.Height
		}
		out = append(out, f)
		whiteouts[item.ID] = append(whiteouts[item.ID], m)
	}
	return out
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

// whiteOut paints over placeholder boxes in an item's PDF and stores the result as the item's
// current content (the upload stays as its initial content).
func (s *Server) whiteOut(r *http.Request, tx *persistence.Tx, envelopeID, itemID string, boxes []pdf.Match) error {
	data, err := tx.ItemData(r.Context(), itemID)
	if err != nil {
		return err
	}
	out, err := pdf.WhiteOut(data, boxes)
	if err != nil {
		return fmt.Errorf("white out placeholders of item %s: %w", itemID, err)
	}
	// WhiteOut appends an update; normalising again keeps the stored document one revision.
	norm, err := pdf.Normalize(r.Context(), out, s.pdfLimits())
	if err != nil {
		return fmt.Errorf("normalise whited-out item %s: %w", itemID, err)
	}
	doc := persistence.Document{Data: norm.Data}
	for _, pg := range norm.Pages {
		doc.Pages = append(doc.Pages, persistence.PageSize{Width: pg.Width, Height: pg.Height})
	}
	return tx.ReplaceItemData(r.Context(), itemID, doc)
}
