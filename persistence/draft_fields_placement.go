package persistence

import (
	"context"
	"fmt"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
)

// TextBox is where a text shows in a document: its page (from 1) and its box, in percent of the
// page.
type TextBox struct {
	Page                int
	X, Y, Width, Height float64
}

// Placement is the PDF work of placing fields by placeholder text, which the store leaves to its
// caller. FindText returns every occurrence of text in a document, page by page in reading
// order; WhiteOut paints boxes over and returns the document to keep as the item's content.
type Placement struct {
	FindText func(data []byte, text string) ([]TextBox, error)
	WhiteOut func(ctx context.Context, data []byte, boxes []TextBox) (Document, error)
}

// itemFor resolves an optional envelopeItemId at path among items; absent means the first item.
func itemFor(p *envelope.Problems, path string, id *string, items []ItemPages) *ItemPages {
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

// placeByText finds in's placeholder in item's document and returns one field per occurrence
// (the first only, unless matchAll) in its box (or in's width and height), recording the boxes
// to white out in whiteouts. Problems are recorded at path.
func (pl Placement) placeByText(ctx context.Context, tx *Tx, p *envelope.Problems, path string, in envelope.FieldInput,
	item *ItemPages, whiteouts map[string][]TextBox) []envelope.Field {
	text := strings.TrimSpace(*in.Placeholder)
	if text == "" {
		p.Add(envelope.Join(path, "placeholder"), "may not be empty")
		return nil
	}
	base, ok := envelope.CheckFieldInput(p, path, envelope.FieldInput{Type: in.Type, FieldMeta: in.FieldMeta, Width: in.Width, Height: in.Height}, 0, false)
	if !ok || item == nil {
		return nil
	}
	data, err := tx.ItemData(ctx, item.ID)
	if err != nil {
		p.Add(envelope.Join(path, "envelopeItemId"), "could not read the document: %v", err)
		return nil
	}
	matches, err := pl.FindText(data, text)
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

// whiteOut paints over boxes in item itemID's document and keeps the result as the item's
// current content (the upload stays as its initial content).
func (pl Placement) whiteOut(ctx context.Context, tx *Tx, itemID string, boxes []TextBox) error {
	data, err := tx.ItemData(ctx, itemID)
	if err != nil {
		return err
	}
	doc, err := pl.WhiteOut(ctx, data, boxes)
	if err != nil {
		return fmt.Errorf("white out placeholders of item %s: %w", itemID, err)
	}
	return tx.ReplaceItemData(ctx, itemID, doc)
}
