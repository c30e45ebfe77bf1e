package pdf

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// Match is one occurrence of a text: its page (counted from 1) and the box around it in percent
// (0 to 100) of the displayed page, origin at the page's top left, y going down. These are the
// coordinates of Documenso's positionX, positionY, width and height.
type Match struct {
	Page                int
	X, Y, Width, Height float64
}

// FindText returns every occurrence of text in a PDF, page by page and, on each page, in reading
// order (top to bottom, then left to right on a line). Matching is literal and case-sensitive;
// an occurrence must sit on one line of text (PDFium puts the spaces between words back) and
// show at least partly on the page. An empty text, or one not in the document, gives no match
// and no error.
//
// The document is first read as Inspect reads it, so the boxes are relative to the page sizes
// Inspect reports, and unreadable input returns the same errors. FindText is safe for
// concurrent use; the first call in a process takes a second or two longer to start PDFium.
func FindText(data []byte, text string) (matches []Match, err error) {
	_, pages, err := read(data)
	if err != nil {
		return nil, err
	}
	if text == "" {
		return nil, nil
	}
	defer func() {
		if v := recover(); v != nil {
			matches, err = nil, fmt.Errorf("%w: PDFium failed: %v", ErrNotPDF, v)
		}
	}()
	inst, doc, count, done, err := openDocument(data)
	if err != nil {
		return nil, err
	}
	defer done()
	if count != len(pages) {
		return nil, fmt.Errorf("%w: PDFium reads %d pages where pdfcpu reads %d", ErrNotPDF, count, len(pages))
	}
	for i, p := range pages {
		boxes, err := findOnPage(inst, doc, i, text)
		if err != nil {
			return nil, fmt.Errorf("%w: PDFium, page %d: %w", ErrNotPDF, i+1, err)
		}
		var onPage []Match
		for _, b := range boxes {
			if !visible(p, b) {
				continue
			}
			x, y, w, h := p.percentBox(b)
			onPage = append(onPage, clipped(i+1, x, y, w, h))
		}
		matches = append(matches, readingOrder(onPage)...)
	}
	return matches, nil
}

// findOnPage returns the user-space box of each occurrence of text on a page (index from 0), in
// the order PDFium finds them.
func findOnPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int, text string) ([]rect, error) {
	pg, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: index})
	if err != nil {
		return nil, fmt.Errorf("load page: %w", err)
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: pg.Page})
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &pg.Page}})
	if err != nil {
		return nil, fmt.Errorf("load text: %w", err)
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	search, err := inst.FPDFText_FindStart(&requests.FPDFText_FindStart{
		TextPage: tp.TextPage,
		Find:     text,
		Flags:    requests.FPDFText_FindStartFlag_MATCHCASE,
	})
	if err != nil {
		return nil, fmt.Errorf("start search: %w", err)
	}
	defer inst.FPDFText_FindClose(&requests.FPDFText_FindClose{Search: search.Search})

	var out []rect
	for {
		next, err := inst.FPDFText_FindNext(&requests.FPDFText_FindNext{Search: search.Search})
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if !next.GotMatch {
			return out, nil
		}
		start, err := inst.FPDFText_GetSchResultIndex(&requests.FPDFText_GetSchResultIndex{Search: search.Search})
		if err != nil {
			return nil, fmt.Errorf("match start: %w", err)
		}
		n, err := inst.FPDFText_GetSchCount(&requests.FPDFText_GetSchCount{Search: search.Search})
		if err != nil {
			return nil, fmt.Errorf("match length: %w", err)
		}
		// PDFium describes a run of characters as one rectangle per line and font run; the
		// match's box is their union.
		rects, err := inst.FPDFText_CountRects(&requests.FPDFText_CountRects{TextPage: tp.TextPage, StartIndex: start.Index, Count: n.Count})
		if err != nil {
			return nil, fmt.Errorf("match boxes: %w", err)
		}
		var box rect
		for k := range rects.Count {
			r, err := inst.FPDFText_GetRect(&requests.FPDFText_GetRect{TextPage: tp.TextPage, Index: k})
			if err != nil {
				return nil, fmt.Errorf("match box: %w", err)
			}
			rk := rect{r.Left, r.Bottom, r.Right, r.Top}.normal()
			if k == 0 {
				box = rk
			} else {
				box = rect{min(box.x1, rk.x1), min(box.y1, rk.y1), max(box.x2, rk.x2), max(box.y2, rk.y2)}
			}
		}
		if rects.Count > 0 && finite(box.x1, box.y1, box.x2, box.y2) {
			out = append(out, box)
		}
	}
}

// visible reports whether a user-space box overlaps the part of the page that is shown.
func visible(p page, r rect) bool {
	return r.x2 > p.llx && r.x1 < p.urx && r.y2 > p.lly && r.y1 < p.ury
}

// clipped is the match of the box x, y, w, h (percent) on a page, cut to the page for text that
// shows only in part.
func clipped(page int, x, y, w, h float64) Match {
	m := Match{Page: page, X: max(x, 0), Y: max(y, 0)}
	m.Width, m.Height = min(x+w, 100)-m.X, min(y+h, 100)-m.Y
	return m
}

// readingOrder sorts one page's matches top to bottom and, within a line, left to right. Two
// boxes share a line when their vertical extents overlap by at least half the shorter one, so
// text of different sizes on one baseline still reads left to right.
func readingOrder(ms []Match) []Match {
	slices.SortStableFunc(ms, func(a, b Match) int { return cmp.Compare(a.Y, b.Y) })
	for start := 0; start < len(ms); {
		end := start + 1
		for end < len(ms) && sameLine(ms[start], ms[end]) {
			end++
		}
		slices.SortStableFunc(ms[start:end], func(a, b Match) int { return cmp.Compare(a.X, b.X) })
		start = end
	}
	return ms
}

func sameLine(a, b Match) bool {
	overlap := min(a.Y+a.Height, b.Y+b.Height) - max(a.Y, b.Y)
	return overlap >= min(a.Height, b.Height)/2
}
