package pdf

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// WhiteOut paints an opaque white rectangle over each box, on top of the page's content, and
// returns the new PDF. The page's own content is wrapped in q … Q first, so whatever graphics
// state it leaves behind does not move the rectangles.
func WhiteOut(data []byte, boxes []Match) (out []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", ErrNotPDF, v)
		}
	}()
	ctx, err := api.ReadContext(bytes.NewReader(data), config())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotPDF, err)
	}
	if err := api.ValidateContext(ctx); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotPDF, err)
	}
	byPage := map[int][]Match{}
	for _, b := range boxes {
		if b.Page < 1 || b.Page > ctx.PageCount {
			return nil, fmt.Errorf("white out: page %d of a %d-page document", b.Page, ctx.PageCount)
		}
		byPage[b.Page] = append(byPage[b.Page], b)
	}
	for pageNr := 1; pageNr <= ctx.PageCount; pageNr++ {
		list := byPage[pageNr]
		if len(list) == 0 {
			continue
		}
		pageDict, _, inherited, err := ctx.PageDict(pageNr, false)
		if err != nil {
			return nil, fmt.Errorf("read page %d: %w", pageNr, err)
		}
		geo := page{rotate: normalRotation(inherited.Rotate)}
		if mb := inherited.MediaBox; mb != nil {
			geo.llx, geo.lly, geo.urx, geo.ury = mb.LL.X, mb.LL.Y, mb.UR.X, mb.UR.Y
		}
		var ops strings.Builder
		ops.WriteString("\nQ\nq 1 1 1 rg 1 1 1 RG\n")
		for _, m := range list {
			l, b, r, t := geo.percentToBox(m)
			// A point of margin covers anti-aliased glyph edges.
			fmt.Fprintf(&ops, "%.3f %.3f %.3f %.3f re f\n", l-1, b-1, r-l+2, t-b+2)
		}
		ops.WriteString("Q\n")
		if err := wrapContent(ctx.XRefTable, pageDict, []byte("q\n"), []byte(ops.String())); err != nil {
			return nil, fmt.Errorf("white out page %d: %w", pageNr, err)
		}
	}
	var buf bytes.Buffer
	if err := api.WriteContext(ctx, &buf); err != nil {
		return nil, fmt.Errorf("write whited-out PDF: %w", err)
	}
	return buf.Bytes(), nil
}

// contentTable is what wrapContent needs of pdfcpu's cross-reference table.
type contentTable interface {
	NewStreamDictForBuf(buf []byte) (*types.StreamDict, error)
	IndRefForNewObject(obj types.Object) (*types.IndirectRef, error)
	Dereference(o types.Object) (types.Object, error)
}

// wrapContent makes the page's Contents [before, …existing streams…, after].
func wrapContent(xref contentTable, pageDict types.Dict, before, after []byte) error {
	var streams types.Array
	if obj, found := pageDict.Find("Contents"); found {
		switch o := obj.(type) {
		case types.IndirectRef:
			streams = types.Array{o}
			if target, err := xref.Dereference(o); err == nil {
				if arr, ok := target.(types.Array); ok {
					streams = arr
				}
			}
		case types.Array:
			streams = o
		default:
			return fmt.Errorf("page contents of unexpected kind %T", obj)
		}
	}
	ref := func(b []byte) (*types.IndirectRef, error) {
		sd, err := xref.NewStreamDictForBuf(b)
		if err != nil {
			return nil, err
		}
		if err := sd.Encode(); err != nil {
			return nil, err
		}
		return xref.IndRefForNewObject(*sd)
	}
	pre, err := ref(before)
	if err != nil {
		return err
	}
	post, err := ref(after)
	if err != nil {
		return err
	}
	contents := append(types.Array{*pre}, streams...)
	contents = append(contents, *post)
	pageDict.Update("Contents", contents)
	return nil
}
