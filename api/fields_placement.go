package api

import (
	"context"
	"fmt"

	"github.com/sobre-sign/sobre/pdf"
	"github.com/sobre-sign/sobre/persistence"
)

// placement is this server's PDF work of placing fields by placeholder text: the text is found
// with pdf.FindText, and whited out with pdf.WhiteOut, the result normalised again.
func (s *Server) placement() persistence.Placement {
	return persistence.Placement{FindText: findText, WhiteOut: s.whiteOut}
}

func findText(data []byte, text string) ([]persistence.TextBox, error) {
	matches, err := pdf.FindText(data, text)
	boxes := make([]persistence.TextBox, len(matches))
	for i, m := range matches {
		boxes[i] = persistence.TextBox(m)
	}
	return boxes, err
}

// whiteOut paints over boxes in a PDF and returns it normalised again (WhiteOut appends an
// update; normalising keeps the stored document one revision).
func (s *Server) whiteOut(ctx context.Context, data []byte, boxes []persistence.TextBox) (persistence.Document, error) {
	matches := make([]pdf.Match, len(boxes))
	for i, b := range boxes {
		matches[i] = pdf.Match(b)
	}
	out, err := pdf.WhiteOut(data, matches)
	if err != nil {
		return persistence.Document{}, err
	}
	norm, err := pdf.Normalize(ctx, out, s.pdfLimits())
	if err != nil {
		return persistence.Document{}, fmt.Errorf("normalise: %w", err)
	}
	doc := persistence.Document{Data: norm.Data}
	for _, pg := range norm.Pages {
		doc.Pages = append(doc.Pages, persistence.PageSize{Width: pg.Width, Height: pg.Height})
	}
	return doc, nil
}
