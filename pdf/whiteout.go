package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"maps"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// whiteOutMargin is how far, in points, a white rectangle reaches past its box on every side,
// so that anti-aliased glyph edges are covered too.
const whiteOutMargin = 1.0

// WhiteOut paints an opaque white rectangle over each box (as FindText returns them: page from
// 1, percent of the displayed page, origin top left) and returns the new PDF; data is not
// modified. The rectangles are drawn after, and so above, all of the page's content, each grown
// by one point on every side.
//
// The change is appended to the file as an incremental update: the original bytes stay as they
// were, so a signature already in the document still covers its own revision (viewers report
// that the document was changed after signing). A file that cannot take an update cleanly (junk
// before its header, a damaged cross-reference table) is rewritten whole by pdfcpu instead.
//
// This hides text, it does not redact it: the text stays in the file under the white and can
// still be selected or extracted. Annotations and form fields, which viewers draw above the
// page's content, are not covered.
//
// Unreadable input returns the errors of Inspect. A box on a page the document does not have,
// or with a negative or non-finite size, is an error. Without boxes, data is returned as is
// (after checking that it is readable).
func WhiteOut(data []byte, boxes []Match) (out []byte, err error) {
	ctx, pages, err := read(data)
	if err != nil {
		return nil, err
	}
	perPage := make([][]rect, len(pages))
	for i, b := range boxes {
		if b.Page < 1 || b.Page > len(pages) {
			return nil, fmt.Errorf("pdf: white out box %d: page %d of a %d-page document", i, b.Page, len(pages))
		}
		if !finite(b.X, b.Y, b.Width, b.Height) || b.Width < 0 || b.Height < 0 {
			return nil, fmt.Errorf("pdf: white out box %d: invalid box %+v", i, b)
		}
		r := pages[b.Page-1].userRect(b.X, b.Y, b.Width, b.Height)
		perPage[b.Page-1] = append(perPage[b.Page-1], r)
	}
	if len(boxes) == 0 {
		return bytes.Clone(data), nil
	}
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, fmt.Errorf("%w: pdfcpu failed: %v", ErrNotPDF, v)
		}
	}()

	out, err = appendUpdate(data, ctx, perPage)
	if err == nil {
		err = check(out, len(pages))
	}
	if err == nil {
		return out, nil
	}
	updateErr := err
	out, err = rewrite(ctx, perPage)
	if err == nil {
		err = check(out, len(pages))
	}
	if err != nil {
		return nil, fmt.Errorf("pdf: white out: %w (appending an update: %w)", err, updateErr)
	}
	return out, nil
}

// check reads a PDF that WhiteOut made back, as a last guard against writing a broken file.
func check(out []byte, pageCount int) error {
	_, pages, err := read(out)
	if err != nil {
		return fmt.Errorf("the new PDF does not read back: %w", err)
	}
	if len(pages) != pageCount {
		return fmt.Errorf("the new PDF has %d pages instead of %d", len(pages), pageCount)
	}
	return nil
}

// whiteOps is a content stream that restores the graphics state the page started with (the
// page's own content is wrapped in q … Q) and fills the rectangles, in user space, in white.
func whiteOps(rects []rect) []byte {
	var b bytes.Buffer
	b.WriteString("\nQ\nq\n1 g\n")
	for _, r := range rects {
		fmt.Fprintf(&b, "%.3f %.3f %.3f %.3f re\n",
			r.x1-whiteOutMargin, r.y1-whiteOutMargin,
			r.x2-r.x1+2*whiteOutMargin, r.y2-r.y1+2*whiteOutMargin)
	}
	b.WriteString("f\nQ\n")
	return b.Bytes()
}

// contentStreams lists the references to a page's content streams: /Contents is absent, one
// stream, or an array of them, either directly or through an indirect reference.
func contentStreams(xref *model.XRefTable, pageDict types.Dict) (types.Array, error) {
	obj, found := pageDict.Find("Contents")
	if !found || obj == nil {
		return nil, nil
	}
	switch o := obj.(type) {
	case types.Array:
		return o, nil
	case types.IndirectRef:
		target, err := xref.Dereference(o)
		if err != nil {
			return nil, fmt.Errorf("page contents: %w", err)
		}
		if arr, ok := target.(types.Array); ok {
			return arr, nil
		}
		return types.Array{o}, nil
	default:
		return nil, fmt.Errorf("page contents of unexpected type %T", obj)
	}
}

// wrappedContents is a page's new /Contents: the stream open (q), the page's streams, and paint.
func wrappedContents(existing types.Array, open, paint types.IndirectRef) types.Array {
	contents := make(types.Array, 0, len(existing)+2)
	contents = append(contents, open)
	contents = append(contents, existing...)
	return append(contents, paint)
}

var errNoUpdate = errors.New("the file cannot take an incremental update")

// appendUpdate returns data followed by an incremental update that gives each page with
// rectangles a /Contents of [q, its streams, the white rectangles]. Only the page dictionaries
// and two small streams per page are added; the cross-reference section is written in the form
// (table or stream) of the file's last one.
func appendUpdate(data []byte, ctx *model.Context, perPage [][]rect) ([]byte, error) {
	if !bytes.HasPrefix(data, []byte("%PDF-")) || ctx.Read.RepairOffset != 0 {
		return nil, fmt.Errorf("%w: its header is not at the start", errNoUpdate)
	}
	prevXRef, xrefStream, err := lastXRef(data)
	if err != nil {
		return nil, err
	}
	if ctx.Root == nil {
		return nil, fmt.Errorf("%w: no /Root in the trailer", errNoUpdate)
	}

	u := newUpdate(data, ctx)

	var open types.IndirectRef // the q stream, shared by all pages
	for i, rects := range perPage {
		if len(rects) == 0 {
			continue
		}
		pageDict, ref, _, err := ctx.PageDict(i+1, false)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		if pageDict == nil || ref == nil {
			return nil, fmt.Errorf("%w: page %d is not an indirect object", errNoUpdate, i+1)
		}
		existing, err := contentStreams(ctx.XRefTable, pageDict)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		if open.ObjectNumber == 0 {
			open = u.stream([]byte("q\n"))
		}
		paint := u.stream(whiteOps(rects))
		updated := maps.Clone(pageDict)
		updated["Contents"] = wrappedContents(existing, open, paint)
		u.object(ref.ObjectNumber.Value(), ref.GenerationNumber.Value(), updated.PDFString())
	}

	u.end(ctx, prevXRef, xrefStream)
	return u.buf.Bytes(), nil
}

// rewrite paints the rectangles by changing the pages in pdfcpu's model of the document and
// writing the whole file anew. Any signature in the document no longer verifies afterwards.
func rewrite(ctx *model.Context, perPage [][]rect) ([]byte, error) {
	var open *types.IndirectRef
	for i, rects := range perPage {
		if len(rects) == 0 {
			continue
		}
		pageDict, _, _, err := ctx.PageDict(i+1, false)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		if pageDict == nil {
			return nil, fmt.Errorf("page %d: no page dictionary", i+1)
		}
		existing, err := contentStreams(ctx.XRefTable, pageDict)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		if open == nil {
			if open, err = newStream(ctx.XRefTable, []byte("q\n")); err != nil {
				return nil, err
			}
		}
		paint, err := newStream(ctx.XRefTable, whiteOps(rects))
		if err != nil {
			return nil, err
		}
		pageDict.Update("Contents", wrappedContents(existing, *open, *paint))
	}
	var buf bytes.Buffer
	if err := api.WriteContext(ctx, &buf); err != nil {
		return nil, fmt.Errorf("write the PDF: %w", err)
	}
	return buf.Bytes(), nil
}

// newStream adds a Flate-compressed stream holding content to pdfcpu's model of the document.
func newStream(xref *model.XRefTable, content []byte) (*types.IndirectRef, error) {
	sd, err := xref.NewStreamDictForBuf(content)
	if err != nil {
		return nil, fmt.Errorf("new stream: %w", err)
	}
	if err := sd.Encode(); err != nil {
		return nil, fmt.Errorf("encode stream: %w", err)
	}
	ref, err := xref.IndRefForNewObject(*sd)
	if err != nil {
		return nil, fmt.Errorf("add stream: %w", err)
	}
	return ref, nil
}
