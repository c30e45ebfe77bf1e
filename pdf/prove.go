package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"maps"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
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
//   - the document catalog is the same (what opens, names, viewer preferences...), but for the
//     page tree (the certificate pages are added to it) and the signature's form (invisible
//     signature fields only) and permissions (/DocMDP only), which it may add;
//   - every page of shown is a page of sealed, of the same size;
//   - every page without a stamp uses the very same objects in both (page dictionary, content
//     streams, resources and everything they refer to, compared object by object), so it
//     cannot be drawn differently;
//   - every page with a stamp is the same page object, whose dictionary is the same but for its
//     /Contents, which must be a stream holding "q", the page's own streams (the same objects),
//     and a stream that closes that "Q" and paints one stamp form, and its /Resources, which
//     must be the page's own with only that form added under /XObject (see Stamp);
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
	if err := sameCatalog(actx, bctx); err != nil {
		return fmt.Errorf("%w: the document catalog: %w", ErrNotShown, err)
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
		check := samePage
		if _, ok := boxes[i+1]; ok {
			check = stampedPage
		}
		if err := check(actx, bctx, i+1); err != nil {
			return fmt.Errorf("%w: page %d: %w", ErrNotShown, i+1, err)
		}
	}
	drawn := slices.Sorted(maps.Keys(boxes))
	for _, nr := range drawn {
		if _, ok := ov.OnPage[nr]; !ok {
			return fmt.Errorf("pdf: prove: page %d has stamps but no overlay page", nr)
		}
	}
	return drawAndCompare(shown, sealed, ov, drawn, apages, boxes)
}

// drawAndCompare runs samePixels on each of the pages drawn, spread over as many PDFium
// instances as the engine runs at once; each instance opens the three documents once and draws
// its share of the pages from them. The error of the first page (in page order) that fails is
// returned.
func drawAndCompare(shown, sealed []byte, ov Overlay, drawn []int, pages []page, boxes map[int][]Match) error {
	workers := min(len(drawn), resolvedEngineConfig().Instances)
	errs := make([]error, len(drawn))
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := func() (err error) {
				defer func() {
					if v := recover(); v != nil {
						err = fmt.Errorf("%w: PDFium failed: %v", ErrNotPDF, v)
					}
				}()
				inst, docs, counts, done, err := openDocuments(shown, sealed, ov.PDF)
				if err != nil {
					return err
				}
				defer done()
				for i := w; i < len(drawn) && !failed.Load(); i += workers {
					nr := drawn[i]
					d := drawing{inst: inst, shown: docs[0], sealed: docs[1], overlay: docs[2]}
					if nr > counts[0] || nr > counts[1] || ov.OnPage[nr] > counts[2] {
						errs[i] = fmt.Errorf("%w: page %d is missing from a document", ErrNoSuchPage, nr)
					} else {
						errs[i] = d.samePixels(nr, ov.OnPage[nr], pages[nr-1], boxes[nr])
					}
					if errs[i] != nil {
						failed.Store(true)
					}
				}
				return nil
			}()
			if err != nil {
				errs[w] = errors.Join(errs[w], err)
				failed.Store(true)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// drawing is the three documents of a proof, open in one PDFium instance.
type drawing struct {
	inst                   pdfium.Pdfium
	shown, sealed, overlay references.FPDF_DOCUMENT
}

// sealCatalogKeys are the catalog entries the seal may add: the signature's form field and its
// certification permissions (PDF 32000 12.7.2, 12.8.4), and the PDF version it needs.
var sealCatalogKeys = map[string]bool{"AcroForm": true, "Perms": true, "Version": true}

// sameCatalog compares the catalogs of two documents entry by entry: every entry of a but the
// page tree and the version must be in b, the same object for object, and b may only add
// sealCatalogKeys.
func sameCatalog(a, b *model.Context) error {
	ac, err := a.Catalog()
	if err != nil {
		return err
	}
	bc, err := b.Catalog()
	if err != nil {
		return err
	}
	cmp := &comparer{a: a.XRefTable, b: b.XRefTable, seen: map[int]bool{}}
	for _, k := range slices.Sorted(maps.Keys(ac)) {
		if k == "Pages" || k == "Version" {
			continue
		}
		if err := cmp.same(ac[k], bc[k]); err != nil {
			return fmt.Errorf("/%s: %w", k, err)
		}
	}
	for k := range bc {
		if _, ok := ac[k]; !ok && !sealCatalogKeys[k] {
			return fmt.Errorf("/%s added", k)
		}
	}
	if _, ok := ac["AcroForm"]; !ok {
		if err := sealForm(b.XRefTable, bc["AcroForm"]); err != nil {
			return fmt.Errorf("/AcroForm: %w", err)
		}
	}
	if _, ok := ac["Perms"]; !ok {
		if perms, _ := b.DereferenceDict(bc["Perms"]); len(perms) > 1 || len(perms) == 1 && (perms["DocMDP"] == nil || !isSignature(b.XRefTable, perms["DocMDP"])) {
			return errors.New("/Perms holds more than the seal's /DocMDP signature")
		}
	}
	return nil
}

// isSignature reports whether o is (or refers to) a signature dictionary (/Type /Sig).
func isSignature(x *model.XRefTable, o types.Object) bool {
	d, err := x.DereferenceDict(o)
	if err != nil || d == nil {
		return false
	}
	t := d.NameEntry("Type")
	return t != nil && *t == "Sig"
}

// sealFieldKeys are the entries of the seal's signature field: an invisible widget merged with
// its field, and its value, the signature.
var sealFieldKeys = map[string]bool{"F": true, "FT": true, "P": true, "Rect": true, "Subtype": true, "T": true, "Type": true, "V": true}

// sealForm checks a form that the seal added (o; nil when it added none): /Fields and /SigFlags
// only, and every field an invisible signature field, without actions or appearances: nothing a
// viewer would draw or run.
func sealForm(x *model.XRefTable, o types.Object) error {
	form, err := x.DereferenceDict(o)
	if err != nil || form == nil {
		return err
	}
	for k := range form {
		if k != "Fields" && k != "SigFlags" {
			return fmt.Errorf("/%s added", k)
		}
	}
	fields, err := x.DereferenceArray(form["Fields"])
	if err != nil {
		return err
	}
	for i, f := range fields {
		d, err := x.DereferenceDict(f)
		if err != nil || d == nil {
			return fmt.Errorf("field %d is not a dictionary", i+1)
		}
		if ft := d.NameEntry("FT"); ft == nil || *ft != "Sig" {
			return fmt.Errorf("field %d is not a signature field", i+1)
		}
		for k := range d {
			if !sealFieldKeys[k] {
				return fmt.Errorf("field %d has /%s", i+1, k)
			}
		}
		if d["V"] != nil && !isSignature(x, d["V"]) {
			return fmt.Errorf("field %d's value is not a signature", i+1)
		}
		rect, _ := x.DereferenceArray(d["Rect"])
		for _, v := range rect {
			if n, ok := v.(types.Integer); ok && n == 0 {
				continue
			}
			if n, ok := v.(types.Float); ok && n == 0 {
				continue
			}
			return fmt.Errorf("field %d is visible (/Rect %v)", i+1, rect)
		}
	}
	return nil
}

// stampPaint is the content stream Stamp appends to a stamped page: it closes the q that wraps
// the page's own streams, then paints the stamp form.
var stampPaint = regexp.MustCompile(`^\nQ\nq /(SobreStamp[0-9]+) Do Q\n$`)

// stampedPage compares page nr of a with its stamped version in b: what Stamp writes, and nothing
// else. Only the /Contents and /Resources of the page dictionary may differ: /Contents is
// [q, a's streams, stampPaint], and /Resources is a's resources (its own, or else the inherited
// ones) with the one form that stampPaint names added to /XObject.
func stampedPage(a, b *model.Context, nr int) error {
	p, err := comparePages(a, b, nr, "Contents", "Resources")
	if err != nil {
		return err
	}
	apd, bpd, ainh, cmp := p.a, p.b, p.ainh, p.cmp

	own, err := contentStreams(a.XRefTable, apd)
	if err != nil {
		return err
	}
	stamped, err := contentStreams(b.XRefTable, bpd)
	if err != nil {
		return err
	}
	if len(stamped) != len(own)+2 {
		return fmt.Errorf("%d content streams instead of %d and the stamp's two", len(stamped), len(own))
	}
	if err := cmp.same(own, stamped[1:len(own)+1]); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	if open, err := streamText(b.XRefTable, stamped[0]); err != nil || open != "q\n" {
		return fmt.Errorf("the first content stream is not the stamp's q (%q, %v)", open, err)
	}
	paint, err := streamText(b.XRefTable, stamped[len(stamped)-1])
	m := stampPaint.FindStringSubmatch(paint)
	if err != nil || m == nil {
		return fmt.Errorf("the last content stream is not the stamp's (%q, %v)", paint, err)
	}

	ares, _ := a.DereferenceDict(apd["Resources"])
	if ares == nil && ainh != nil {
		ares = ainh.Resources
	}
	bres, err := b.DereferenceDict(bpd["Resources"])
	if err != nil || bres == nil {
		return fmt.Errorf("no resources: %v", err)
	}
	for k := range bres {
		if _, ok := ares[k]; !ok && k != "XObject" {
			return fmt.Errorf("resources: /%s added", k)
		}
	}
	for k, v := range ares {
		if k == "XObject" {
			continue
		}
		if err := cmp.same(v, bres[k]); err != nil {
			return fmt.Errorf("resources: /%s: %w", k, err)
		}
	}
	axo, _ := a.DereferenceDict(ares["XObject"])
	bxo, err := b.DereferenceDict(bres["XObject"])
	if err != nil || bxo == nil {
		return fmt.Errorf("resources: no /XObject: %v", err)
	}
	if len(bxo) != len(axo)+1 || bxo[m[1]] == nil || axo[m[1]] != nil {
		return fmt.Errorf("resources: /XObject holds more than the stamp /%s", m[1])
	}
	for k, v := range axo {
		if err := cmp.same(v, bxo[k]); err != nil {
			return fmt.Errorf("resources: /XObject /%s: %w", k, err)
		}
	}
	return nil
}

// streamText is the decoded content of the stream o refers to.
func streamText(x *model.XRefTable, o types.Object) (string, error) {
	ref, ok := o.(types.IndirectRef)
	if !ok {
		return "", errors.New("not a reference")
	}
	sd, _, err := x.DereferenceStreamDict(ref)
	if err != nil || sd == nil {
		return "", fmt.Errorf("not a stream: %v", err)
	}
	if err := sd.Decode(); err != nil {
		return "", err
	}
	return string(sd.Content), nil
}

// samePage compares page nr of two documents object by object: the page dictionary (but its
// /Parent), its inherited attributes, and every object reachable from it.
func samePage(a, b *model.Context, nr int) error {
	p, err := comparePages(a, b, nr)
	if err != nil {
		return err
	}
	ainh, binh, cmp := p.ainh, p.binh, p.cmp
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

// pagePair is page nr of two documents, read by comparePages.
type pagePair struct {
	a, b       types.Dict
	ainh, binh *model.InheritedPageAttrs
	cmp        *comparer
}

// comparePages reads page nr of a and b, which must be one page object, and compares their page
// dictionaries object by object but for /Parent and the entries skip names. It returns both
// dictionaries, their inherited attributes, and the comparer, to compare the rest with.
func comparePages(a, b *model.Context, nr int, skip ...string) (pagePair, error) {
	var p pagePair
	apd, aref, ainh, err := a.PageDict(nr, false)
	if err != nil {
		return p, err
	}
	bpd, bref, binh, err := b.PageDict(nr, false)
	if err != nil {
		return p, err
	}
	if aref == nil || bref == nil || *aref != *bref {
		return p, errors.New("another page object")
	}
	p = pagePair{a: apd, b: bpd, ainh: ainh, binh: binh, cmp: &comparer{a: a.XRefTable, b: b.XRefTable, seen: map[int]bool{}}}
	ad, bd := maps.Clone(apd), maps.Clone(bpd)
	for _, k := range append(skip, "Parent") {
		delete(ad, k)
		delete(bd, k)
	}
	return p, p.cmp.same(ad, bd)
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
func (d drawing) samePixels(nr, onr int, p page, boxes []Match) error {
	dw, _ := p.displaySize()
	width := min(max(int(dw*proofScale), 1), MaxRenderWidth)
	var before, stamp *image.RGBA
	if err := renderPage(d.inst, d.shown, nr, width, func(img *image.RGBA) error {
		before = cloneRGBA(img)
		return nil
	}); err != nil {
		return fmt.Errorf("draw page %d of the shown document: %w", nr, err)
	}
	if err := renderPage(d.inst, d.overlay, onr, width, func(img *image.RGBA) error {
		stamp = cloneRGBA(img)
		return nil
	}); err != nil {
		return fmt.Errorf("draw overlay page %d: %w", onr, err)
	}
	return renderPage(d.inst, d.sealed, nr, width, func(after *image.RGBA) error {
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
