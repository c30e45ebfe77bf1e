package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"maps"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// ErrNotShown is wrapped by the errors of Prove: the sealed document would show something the
// signers were not shown.
var ErrNotShown = errors.New("pdf: the sealed document differs from the shown one")

// Proof tolerance: Prove draws each stamped page at proofScale pixels per point and compares
// the two images pixel by pixel outside the stamped boxes, each box grown by proofMarginPt
// points (the seal's white box reaches up to 2 pt past a field) plus proofMarginPx pixels of
// anti-aliasing. Outside them both images come from the same content drawn by the same
// renderer, so they must be the same: a pixel differs when a channel differs by more than
// proofChannel, and no pixel may differ.
const (
	proofScale    = 1.5
	proofMarginPt = 2.5
	proofMarginPx = 2
	proofChannel  = 16
	// proofInsideShare is the share of a stamped box's pixels (the box shrunk by
	// proofMarginPx) that may differ from the overlay drawn alone.
	proofInsideShare = 0.005
)

// Prove checks that sealed shows exactly what shown shows, but for the stamped boxes (page from
// 1, percent of the displayed page, as Match), before the sealed document is signed:
//
//   - shown is a prefix of sealed, byte for byte: the seal only appended;
//   - every page of shown is a page of sealed, of the same size;
//   - every page without a stamp uses the very same objects in both (page dictionary, content
//     streams, resources and everything they refer to, compared object by object), so it
//     cannot be drawn differently;
//   - every page with a stamp, drawn by PDFium (the renderer of the signing pages) from both
//     documents, is the same outside the stamped boxes (see the tolerance above);
//   - inside each stamped box the sealed page shows the overlay's page, as the overlay draws it
//     alone: the stamp is there, and is not hidden, moved or clipped by the page's own graphics
//     state (at most proofInsideShare of a box's pixels may differ, for anti-aliasing).
//
// Pages that sealed has after shown's (the certificate) are not compared. Any difference returns
// an error wrapping ErrNotShown that names the page.
func Prove(shown, sealed []byte, ov Overlay, stamped []Match) (err error) {
	if !bytes.HasPrefix(sealed, shown) {
		return fmt.Errorf("%w: it does not begin with the shown document's bytes", ErrNotShown)
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: pdfcpu failed while comparing: %v", ErrNotPDF, v)
		}
	}()
	actx, apages, err := read(shown)
	if err != nil {
		return fmt.Errorf("read the shown document: %w", err)
	}
	bctx, bpages, err := read(sealed)
	if err != nil {
		return fmt.Errorf("read the sealed document: %w", err)
	}
	if len(bpages) < len(apages) {
		return fmt.Errorf("%w: %d pages instead of at least %d", ErrNotShown, len(bpages), len(apages))
	}
	boxes := map[int][]Match{}
	for _, m := range stamped {
		if m.Page < 1 || m.Page > len(apages) {
			return fmt.Errorf("pdf: prove: a stamp on page %d of a %d-page document", m.Page, len(apages))
		}
		boxes[m.Page] = append(boxes[m.Page], m)
	}
	for i := range apages {
		if apages[i] != bpages[i] {
			return fmt.Errorf("%w: page %d changed size or position", ErrNotShown, i+1)
		}
		if _, ok := boxes[i+1]; ok {
			continue
		}
		if err := samePage(actx, bctx, i+1); err != nil {
			return fmt.Errorf("%w: page %d: %w", ErrNotShown, i+1, err)
		}
	}
	for _, nr := range slices.Sorted(maps.Keys(boxes)) {
		onr, ok := ov.OnPage[nr]
		if !ok {
			return fmt.Errorf("pdf: prove: page %d has stamps but no overlay page", nr)
		}
		if err := samePixels(shown, sealed, ov.PDF, nr, onr, apages[nr-1], boxes[nr]); err != nil {
			return err
		}
	}
	return nil
}

// samePage compares page nr of two documents object by object: the page dictionary (but its
// /Parent), its inherited attributes, and every object reachable from it.
func samePage(a, b *model.Context, nr int) error {
	apd, aref, ainh, err := a.PageDict(nr, false)
	if err != nil {
		return err
	}
	bpd, bref, binh, err := b.PageDict(nr, false)
	if err != nil {
		return err
	}
	if aref == nil || bref == nil || *aref != *bref {
		return errors.New("another page object")
	}
	cmp := &comparer{a: a.XRefTable, b: b.XRefTable, seen: map[int]bool{}}
	ad, bd := maps.Clone(apd), maps.Clone(bpd)
	delete(ad, "Parent")
	delete(bd, "Parent")
	if err := cmp.same(ad, bd); err != nil {
		return err
	}
	if (ainh == nil) != (binh == nil) {
		return errors.New("other inherited attributes")
	}
	if ainh != nil {
		if ainh.Rotate != binh.Rotate {
			return errors.New("another inherited rotation")
		}
		if err := cmp.same(ainh.Resources, binh.Resources); err != nil {
			return fmt.Errorf("inherited resources: %w", err)
		}
	}
	return nil
}

// comparer compares objects of two documents that share their object numbers.
type comparer struct {
	a, b *model.XRefTable
	seen map[int]bool
}

func (c *comparer) same(x, y types.Object) error {
	switch xv := x.(type) {
	case types.IndirectRef:
		yv, ok := y.(types.IndirectRef)
		if !ok || xv != yv {
			return fmt.Errorf("reference %v became %v", xv, y)
		}
		nr := xv.ObjectNumber.Value()
		if c.seen[nr] {
			return nil
		}
		c.seen[nr] = true
		xo, err := c.a.Dereference(xv)
		if err != nil {
			return err
		}
		yo, err := c.b.Dereference(yv)
		if err != nil {
			return err
		}
		if err := c.same(xo, yo); err != nil {
			return fmt.Errorf("object %d: %w", nr, err)
		}
		return nil
	case types.Dict:
		yv, ok := y.(types.Dict)
		if !ok || len(xv) != len(yv) {
			return errors.New("another dictionary")
		}
		for _, k := range slices.Sorted(maps.Keys(xv)) {
			if _, ok := yv[k]; !ok {
				return fmt.Errorf("/%s removed", k)
			}
			if err := c.same(xv[k], yv[k]); err != nil {
				return fmt.Errorf("/%s: %w", k, err)
			}
		}
		return nil
	case types.Array:
		yv, ok := y.(types.Array)
		if !ok || len(xv) != len(yv) {
			return errors.New("another array")
		}
		for i := range xv {
			if err := c.same(xv[i], yv[i]); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case types.StreamDict:
		yv, ok := y.(types.StreamDict)
		if !ok || !bytes.Equal(xv.Raw, yv.Raw) {
			return errors.New("another stream")
		}
		return c.same(xv.Dict, yv.Dict)
	case nil:
		if y != nil {
			return errors.New("a new entry")
		}
		return nil
	default:
		if y == nil || x.PDFString() != y.PDFString() {
			return fmt.Errorf("%s became %v", x.PDFString(), y)
		}
		return nil
	}
}

// samePixels draws page nr of both documents and compares them outside the boxes, and the sealed
// page with overlay page onr inside them.
func samePixels(shown, sealed, overlay []byte, nr, onr int, p page, boxes []Match) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: PDFium failed: %v", ErrNotPDF, v)
		}
	}()
	dw, _ := p.displaySize()
	width := min(max(int(dw*proofScale), 1), MaxRenderWidth)
	var before, stamp *image.RGBA
	if err := renderOne(shown, nr, width, func(img *image.RGBA) error {
		before = cloneRGBA(img)
		return nil
	}); err != nil {
		return fmt.Errorf("draw page %d of the shown document: %w", nr, err)
	}
	if err := renderOne(overlay, onr, width, func(img *image.RGBA) error {
		stamp = cloneRGBA(img)
		return nil
	}); err != nil {
		return fmt.Errorf("draw overlay page %d: %w", onr, err)
	}
	return renderOne(sealed, nr, width, func(after *image.RGBA) error {
		if after.Bounds() != before.Bounds() {
			return fmt.Errorf("%w: page %d draws %v instead of %v", ErrNotShown, nr, after.Bounds().Size(), before.Bounds().Size())
		}
		mask := masked(before.Bounds(), boxes)
		diff, first := 0, image.Point{}
		b := before.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if mask(x, y) {
					continue
				}
				i := before.PixOffset(x, y)
				if channelsDiffer(before.Pix[i:i+4], after.Pix[i:i+4]) {
					if diff == 0 {
						first = image.Pt(x, y)
					}
					diff++
				}
			}
		}
		if diff > 0 {
			return fmt.Errorf("%w: page %d: %d pixels differ outside the stamped fields, the first at %d%% across and %d%% down",
				ErrNotShown, nr, diff, 100*first.X/b.Dx(), 100*first.Y/b.Dy())
		}
		// The overlay page has the page's displayed size to half a point (pdf.Stamp checks it), so
		// its image may be a pixel taller or wider: its fields are compared where both images are.
		sb := stamp.Bounds()
		if d := sb.Size().Sub(b.Size()); d.X < -2 || d.X > 2 || d.Y < -2 || d.Y > 2 {
			return fmt.Errorf("%w: page %d: the overlay draws %v instead of %v", ErrNotShown, nr, sb.Size(), b.Size())
		}
		for i, box := range inside(b.Intersect(sb), boxes) {
			total, differ := 0, 0
			for y := box.Min.Y; y < box.Max.Y; y++ {
				for x := box.Min.X; x < box.Max.X; x++ {
					total++
					k, o := after.PixOffset(x, y), stamp.PixOffset(x, y)
					if channelsDiffer(stamp.Pix[o:o+4], after.Pix[k:k+4]) {
						differ++
					}
				}
			}
			if total > 0 && float64(differ) > proofInsideShare*float64(total) {
				return fmt.Errorf("%w: page %d: field %d does not show its stamp (%d of %d pixels differ)", ErrNotShown, nr, i+1, differ, total)
			}
		}
		return nil
	})
}

// inside returns each box in pixels, shrunk by the anti-aliasing margin and cut to the image.
func inside(b image.Rectangle, boxes []Match) []image.Rectangle {
	w, h := float64(b.Dx()), float64(b.Dy())
	out := make([]image.Rectangle, 0, len(boxes))
	for _, m := range boxes {
		r := image.Rect(int(m.X/100*w)+proofMarginPx, int(m.Y/100*h)+proofMarginPx,
			int((m.X+m.Width)/100*w)-proofMarginPx, int((m.Y+m.Height)/100*h)-proofMarginPx)
		out = append(out, r.Intersect(b))
	}
	return out
}

// renderOne opens data and draws one page of it.
func renderOne(data []byte, nr, width int, use func(*image.RGBA) error) error {
	inst, doc, count, done, err := openDocument(data)
	if err != nil {
		return err
	}
	defer done()
	if nr < 1 || nr > count {
		return fmt.Errorf("%w: page %d of %d", ErrNoSuchPage, nr, count)
	}
	return renderPage(inst, doc, nr, width, use)
}

func cloneRGBA(img *image.RGBA) *image.RGBA {
	out := image.NewRGBA(img.Bounds())
	copy(out.Pix, img.Pix)
	return out
}

// masked returns whether a pixel lies in one of the boxes, grown by the proof's margins.
func masked(b image.Rectangle, boxes []Match) func(x, y int) bool {
	w, h := float64(b.Dx()), float64(b.Dy())
	// proofScale pixels per point: the margin in points, in pixels.
	pad := proofMarginPt*proofScale + proofMarginPx
	var rs []image.Rectangle
	for _, m := range boxes {
		x0, y0 := m.X/100*w-pad, m.Y/100*h-pad
		x1, y1 := (m.X+m.Width)/100*w+pad, (m.Y+m.Height)/100*h+pad
		rs = append(rs, image.Rect(int(x0), int(y0), int(x1)+1, int(y1)+1))
	}
	return func(x, y int) bool {
		pt := image.Pt(x, y)
		for _, r := range rs {
			if pt.In(r) {
				return true
			}
		}
		return false
	}
}

func channelsDiffer(a, b []uint8) bool {
	for i := range 4 {
		d := int(a[i]) - int(b[i])
		if d > proofChannel || d < -proofChannel {
			return true
		}
	}
	return false
}
