package pdf

import (
	"fmt"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
)

// Match is where a text occurs: a page (from 1) and a box in percent of the displayed page,
// origin at the top left.
type Match struct {
	Page                int
	X, Y, Width, Height float64
}

// PDFium runs as WebAssembly: compiling it takes about a second, so one pool is made on first
// use and kept. PDFium is not re-entrant; the pool hands each call its own instance.
var (
	engineOnce sync.Once
	engine     pdfium.Pool
	engineErr  error
)

func instance() (pdfium.Pdfium, error) {
	engineOnce.Do(func() {
		engine, engineErr = webassembly.Init(webassembly.Config{MinIdle: 1, MaxIdle: 2, MaxTotal: 2})
	})
	if engineErr != nil {
		return nil, fmt.Errorf("start pdfium: %w", engineErr)
	}
	inst, err := engine.GetInstance(30 * time.Second)
	if err != nil {
		return nil, fmt.Errorf("get pdfium instance: %w", err)
	}
	return inst, nil
}

// FindText returns every occurrence of text in data, page by page in reading order. Matching
// ignores case, as a person scanning the page would.
func FindText(data []byte, text string) ([]Match, error) {
	if text == "" {
		return nil, nil
	}
	if _, err := Inspect(data); err != nil {
		return nil, err
	}
	inst, err := instance()
	if err != nil {
		return nil, err
	}
	defer inst.Close()
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotPDF, err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return nil, fmt.Errorf("count pages: %w", err)
	}
	var out []Match
	for i := 0; i < count.PageCount; i++ {
		found, err := findOnPage(inst, doc.Document, i, text)
		if err != nil {
			return nil, fmt.Errorf("search page %d: %w", i+1, err)
		}
		out = append(out, found...)
	}
	return out, nil
}

func findOnPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int, text string) ([]Match, error) {
	pg, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: index})
	if err != nil {
		return nil, err
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: pg.Page})
	geo, err := pageGeometry(inst, pg.Page)
	if err != nil {
		return nil, err
	}
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &pg.Page}})
	if err != nil {
		return nil, err
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	search, err := inst.FPDFText_FindStart(&requests.FPDFText_FindStart{TextPage: tp.TextPage, Find: text, StartIndex: 0})
	if err != nil {
		return nil, err
	}
	defer inst.FPDFText_FindClose(&requests.FPDFText_FindClose{Search: search.Search})
	var out []Match
	for {
		next, err := inst.FPDFText_FindNext(&requests.FPDFText_FindNext{Search: search.Search})
		if err != nil || !next.GotMatch {
			break
		}
		start, err := inst.FPDFText_GetSchResultIndex(&requests.FPDFText_GetSchResultIndex{Search: search.Search})
		if err != nil {
			return nil, err
		}
		n, err := inst.FPDFText_GetSchCount(&requests.FPDFText_GetSchCount{Search: search.Search})
		if err != nil {
			return nil, err
		}
		rects, err := inst.FPDFText_CountRects(&requests.FPDFText_CountRects{TextPage: tp.TextPage, StartIndex: start.Index, Count: n.Count})
		if err != nil {
			return nil, err
		}
		left, bottom, right, top := 0.0, 0.0, 0.0, 0.0
		for k := 0; k < rects.Count; k++ {
			r, err := inst.FPDFText_GetRect(&requests.FPDFText_GetRect{TextPage: tp.TextPage, Index: k})
			if err != nil {
				return nil, err
			}
			if k == 0 {
				left, bottom, right, top = r.Left, r.Bottom, r.Right, r.Top
				continue
			}
			left, bottom, right, top = min(left, r.Left), min(bottom, r.Bottom), max(right, r.Right), max(top, r.Top)
		}
		if rects.Count == 0 {
			continue
		}
		x, y, w, h := geo.boxToPercent(left, bottom, right, top)
		out = append(out, Match{Page: index + 1, X: x, Y: y, Width: w, Height: h})
	}
	return out, nil
}

// pageGeometry reads a loaded page's media box and rotation.
func pageGeometry(inst pdfium.Pdfium, p references.FPDF_PAGE) (page, error) {
	var g page
	box, err := inst.FPDFPage_GetMediaBox(&requests.FPDFPage_GetMediaBox{Page: requests.Page{ByReference: &p}})
	if err != nil {
		w, werr := inst.FPDF_GetPageWidthF(&requests.FPDF_GetPageWidthF{Page: requests.Page{ByReference: &p}})
		h, herr := inst.FPDF_GetPageHeightF(&requests.FPDF_GetPageHeightF{Page: requests.Page{ByReference: &p}})
		if werr != nil || herr != nil {
			return g, fmt.Errorf("page size: %w", err)
		}
		g.urx, g.ury = float64(w.PageWidth), float64(h.PageHeight)
	} else {
		g.llx, g.lly, g.urx, g.ury = float64(box.Left), float64(box.Bottom), float64(box.Right), float64(box.Top)
	}
	rot, err := inst.FPDFPage_GetRotation(&requests.FPDFPage_GetRotation{Page: requests.Page{ByReference: &p}})
	if err == nil {
		g.rotate = normalRotation(int(rot.PageRotation) * 90)
	}
	return g, nil
}
