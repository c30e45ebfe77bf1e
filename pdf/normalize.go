package pdf

import (
	"bufio"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Normalized is a document as Sobre keeps it: the bytes that signing pages show, FAO_HASH
// digests and the seal stamps, and what normalisation took out of the upload to get there.
type Normalized struct {
	Data    []byte
	Pages   []PageSize
	Removed []string // what was flattened or removed, in words ("JavaScript", "2 annotations flattened")
}

// Normalize reads an uploaded PDF once and writes it again as one plain revision that every
// reader takes the same way, so that what a signer is shown is exactly what gets sealed:
//
//   - one revision: the latest one of every object, no /Prev chain, a classic cross-reference
//     table, no object or cross-reference streams;
//   - optional content resolved: a document that hides layers by default is refused
//     (ErrUnsupported); otherwise the layers are merged into the page (all were shown anyway);
//   - annotations and form fields flattened: the appearance a viewer draws for each visible
//     one is drawn into the page's content, then every annotation and the form are removed;
//   - nothing that runs or hides: JavaScript, automatic and launch actions, embedded files and
//     portfolios, XFA, bookmarks (whose actions may run scripts), thumbnails, the structure tree
//     (which points to the removed annotations) are removed; a dynamic XFA form, whose pages a
//     viewer builds from XFA, is refused (ErrUnsupported);
//   - inherited page attributes (resources, boxes, rotation) written on each page.
//
// Page content streams, fonts and images are kept byte for byte. Reading is bounded by limits
// (zero members take the defaults): a document over one is refused with an error wrapping
// ErrLimit before it can cost more. Unreadable input returns the errors of Inspect. The result
// is read back, by pdfcpu and by PDFium (the renderer of the signing pages), which must agree on
// its pages. Normalize never panics and is safe for concurrent use.
//
// The document is parsed, checked and written again in a reading process of its own, under the
// memory cap and deadline of ReaderConfig; the calling process then reads the result back.
func Normalize(ctx context.Context, data []byte, limits Limits) (Normalized, error) {
	limits = limits.orDefault()
	if err := sniff(data); err != nil {
		return Normalized{}, err
	}
	readerUsed.Do(func() {})
	out, err := readInChild(ctx, data, limits, resolvedReaderConfig())
	if err != nil {
		return Normalized{}, err
	}
	// The reading process read its output back with pdfcpu; PDFium, capped on its own, does it
	// here. pdfcpu never parses the document in this process.
	if err := agreeWithPDFium(out.Data, out.Pages); err != nil {
		return Normalized{}, err
	}
	return out, nil
}

// normalize is Normalize, with the read-back by PDFium optional: the fuzz test leaves it out,
// since coverage instrumentation makes the WebAssembly runtime too slow to fuzz through.
func normalize(data []byte, limits Limits, withPDFium bool) (out Normalized, err error) {
	limits = limits.orDefault()
	if err := sniff(data); err != nil {
		return out, err
	}
	defer func() {
		if v := recover(); v != nil {
			out, err = Normalized{}, fmt.Errorf("%w: pdfcpu failed: %v", ErrNotPDF, v)
		}
	}()
	ctx, err := readLimited(data, limits)
	if err != nil {
		return out, err
	}
	n := &normalizer{ctx: ctx, limits: limits, removed: map[string]int{}}
	if err := n.run(); err != nil {
		return out, err
	}
	ctx.Configuration.WriteObjectStream = false
	ctx.Configuration.WriteXRefStream = false
	var buf bytes.Buffer
	if err := api.WriteContext(ctx, &buf); err != nil {
		return out, fmt.Errorf("%w: write the normalised document: %w", ErrNotPDF, err)
	}
	out.Data = buf.Bytes()
	out.Removed = n.summary()

	// Read back by both engines: the pages must be the same for the one that wrote the file and
	// for the one that shows it.
	back, pages, err := readPages(out.Data, limits)
	if err != nil {
		return Normalized{}, fmt.Errorf("the normalised document does not read back: %w", err)
	}
	// What every later reading holds (the seal's, in the worker, outside this capped process) is
	// bounded here, on what is kept: removed annotations and outlines do not count.
	if entries(back, limits.Entries) > limits.Entries {
		return Normalized{}, fmt.Errorf("%w: more than %d array and dictionary entries", ErrLimit, limits.Entries)
	}
	if len(pages) != ctx.PageCount {
		return Normalized{}, fmt.Errorf("%w: the normalised document has %d pages instead of %d", ErrNotPDF, len(pages), ctx.PageCount)
	}
	out.Pages = make([]PageSize, len(pages))
	for i, p := range pages {
		w, h := p.displaySize()
		out.Pages[i] = PageSize{Width: w, Height: h}
	}
	if withPDFium {
		if err := agreeWithPDFium(out.Data, out.Pages); err != nil {
			return Normalized{}, err
		}
	}
	return out, nil
}

// readLimited parses data with pdfcpu under limits. Every error wraps ErrNotPDF, ErrEncrypted or
// ErrLimit.
func readLimited(data []byte, limits Limits) (*model.Context, error) {
	if err := preflight(data, limits); err != nil {
		return nil, err
	}
	ctx, err := api.ReadContext(bytes.NewReader(data), configWith(limits, len(data)))
	if err != nil {
		switch {
		case encryptionError(err):
			return nil, fmt.Errorf("%w: %w", ErrEncrypted, err)
		case errors.Is(err, filter.ErrDecodeLimitExceeded) || strings.Contains(err.Error(), "limit"):
			return nil, fmt.Errorf("%w: a stream decodes to more than %s (%w)", ErrLimit, mib(limits.StreamBytes), err)
		}
		return nil, fmt.Errorf("%w: parse: %w", ErrNotPDF, err)
	}
	if ctx.XRefTable.Encrypt != nil || ctx.E != nil {
		return nil, fmt.Errorf("%w: the file has an /Encrypt dictionary", ErrEncrypted)
	}
	// Writing walks every object number up to /Size: a single object numbered in the billions
	// would cost as much as that many objects.
	if ctx.Size != nil && *ctx.Size > limits.Objects || len(ctx.Table) > limits.Objects {
		return nil, fmt.Errorf("%w: objects numbered up to %d, more than %d", ErrLimit, max(len(ctx.Table), sizeOf(ctx)), limits.Objects)
	}
	if ctx.PageCount > limits.Pages {
		return nil, fmt.Errorf("%w: %d pages, more than %d", ErrLimit, ctx.PageCount, limits.Pages)
	}
	if err := api.ValidateContext(ctx); err != nil {
		if errors.Is(err, filter.ErrDecodeLimitExceeded) {
			return nil, fmt.Errorf("%w: a stream decodes to more than %s", ErrLimit, mib(limits.StreamBytes))
		}
		return nil, fmt.Errorf("%w: validate: %w", ErrNotPDF, err)
	}
	if ctx.PageCount == 0 {
		return nil, fmt.Errorf("%w: the document has no pages", ErrNotPDF)
	}
	return ctx, nil
}

func sizeOf(ctx *model.Context) int {
	if ctx.Size == nil {
		return 0
	}
	return *ctx.Size
}

// normalizer changes pdfcpu's model of one document in place.
type normalizer struct {
	ctx     *model.Context
	limits  Limits
	removed map[string]int
}

func (n *normalizer) run() error {
	if err := n.checkStreams(); err != nil {
		return err
	}
	root, err := n.ctx.Catalog()
	if err != nil || root == nil {
		return fmt.Errorf("%w: no document catalog", ErrNotPDF)
	}
	if err := n.optionalContent(root); err != nil {
		return err
	}
	if err := n.forms(root); err != nil {
		return err
	}
	seen := map[int]int{}
	for i := 1; i <= n.ctx.PageCount; i++ {
		_, ref, _, err := n.ctx.PageDict(i, false)
		if err != nil || ref == nil {
			return fmt.Errorf("%w: page %d: %v", ErrNotPDF, i, err)
		}
		if first, ok := seen[ref.ObjectNumber.Value()]; ok {
			// Stamping one would stamp both.
			return fmt.Errorf("%w: pages %d and %d are one page object", ErrUnsupported, first, i)
		}
		seen[ref.ObjectNumber.Value()] = i
		if err := n.page(i); err != nil {
			return fmt.Errorf("page %d: %w", i, err)
		}
	}
	n.catalog(root)
	return nil
}

// entries counts the array elements and dictionary entries of every object of ctx (stream
// dictionaries included), stopping past limit.
func entries(ctx *model.Context, limit int) int {
	total := 0
	var count func(o types.Object, depth int)
	count = func(o types.Object, depth int) {
		if depth > 64 || total > limit {
			return
		}
		switch v := o.(type) {
		case types.Dict:
			total += len(v)
			for _, e := range v {
				count(e, depth+1)
			}
		case types.StreamDict:
			count(v.Dict, depth)
		case types.Array:
			total += len(v)
			for _, e := range v {
				count(e, depth+1)
			}
		}
	}
	for _, e := range ctx.Table {
		if e != nil && !e.Free && e.Object != nil {
			count(e.Object, 0)
		}
	}
	return total
}

// checkStreams decodes every stream once, under the per-stream and per-document limits, and
// checks the size every image declares. Decoded bytes are dropped straight away: only the
// encoded ones are written back.
func (n *normalizer) checkStreams() error {
	var total int64
	for _, nr := range slices.Sorted(maps.Keys(n.ctx.Table)) {
		e := n.ctx.Table[nr]
		if e == nil || e.Free || e.Object == nil {
			continue
		}
		sd, ok := e.Object.(types.StreamDict)
		if !ok {
			continue
		}
		if t := sd.Subtype(); t != nil && *t == "Image" {
			w, h := sd.IntEntry("Width"), sd.IntEntry("Height")
			if w != nil && h != nil && int64(*w)*int64(*h) > n.limits.ImagePixels {
				return fmt.Errorf("%w: an image of %d × %d pixels, more than %d", ErrLimit, *w, *h, n.limits.ImagePixels)
			}
			if imageCodec(sd) {
				continue // decoded by the renderer only, within the pixel limit just checked
			}
		}
		if len(sd.FilterPipeline) == 0 {
			total += int64(len(sd.Raw))
			continue
		}
		if err := sd.DecodeWithLimit(n.limits.StreamBytes); err != nil {
			if errors.Is(err, filter.ErrDecodeLimitExceeded) {
				return fmt.Errorf("%w: object %d decodes to more than %s", ErrLimit, nr, mib(n.limits.StreamBytes))
			}
			// A stream pdfcpu cannot decode whole (a damaged checksum, say) still costs the
			// renderer what it inflates to: it is counted as a lenient reader reads it.
			size, err := lenientSize(sd, n.limits.StreamBytes)
			if err != nil {
				return fmt.Errorf("%w: object %d: %w", ErrLimit, nr, err)
			}
			total += size
			if total > n.limits.DocumentBytes {
				return fmt.Errorf("%w: the document's streams decode to more than %s", ErrLimit, mib(n.limits.DocumentBytes))
			}
			continue
		}
		if bytes.Contains(sd.Content, []byte("/OCMD")) {
			// A membership dictionary written in a content stream: its visibility is not one
			// every reader decides the same way.
			return fmt.Errorf("%w: optional content membership written inside a content stream", ErrUnsupported)
		}
		total += int64(len(sd.Content))
		if total > n.limits.DocumentBytes {
			return fmt.Errorf("%w: the document's streams decode to more than %s", ErrLimit, mib(n.limits.DocumentBytes))
		}
		sd.Content = nil
		e.Object = sd
	}
	return nil
}

// lenientSize is how many bytes a reader that ignores checksums inflates a Flate stream to
// (every filter is counted as Flate, the only one that inflates much), or an error past limit.
func lenientSize(sd types.StreamDict, limit int64) (int64, error) {
	var size int64
	r := io.Reader(bytes.NewReader(sd.Raw))
	for _, f := range sd.FilterPipeline {
		if f.Name != filter.Flate {
			return int64(len(sd.Raw)), nil
		}
		fr := flate.NewReader(skipZlibHeader(r))
		var buf bytes.Buffer
		n, _ := io.Copy(&buf, io.LimitReader(fr, limit+1))
		if n > limit {
			return 0, fmt.Errorf("it decodes to more than %s", mib(limit))
		}
		size = n
		r = &buf
	}
	return size, nil
}

// skipZlibHeader drops the two bytes of a zlib header, when there is one.
func skipZlibHeader(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if h, err := br.Peek(2); err == nil && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		_, _ = br.Discard(2)
	}
	return br
}

// imageCodec reports whether an image stream ends in a filter that only image decoders undo.
func imageCodec(sd types.StreamDict) bool {
	if len(sd.FilterPipeline) == 0 {
		return false
	}
	switch sd.FilterPipeline[len(sd.FilterPipeline)-1].Name {
	case filter.DCT, filter.JPX, filter.JBIG2, filter.CCITTFax:
		return true
	}
	return false
}

// optionalContent refuses a document that hides some of its content by default, and merges the
// layers of one that shows all of them, by removing /OCProperties: without it, readers draw all
// optional content. Every object is looked at, wherever it is and whether or not the catalog
// lists it: a layer that a reader would hide through its usage, a membership dictionary that
// shows content only while a layer is off, and a visibility expression, are refused.
func (n *normalizer) optionalContent(root types.Dict) error {
	if props, _ := n.ctx.DereferenceDict(root["OCProperties"]); props != nil {
		d, _ := n.ctx.DereferenceDict(props["D"])
		if d != nil {
			if base := d.NameEntry("BaseState"); base != nil && *base != "ON" {
				return fmt.Errorf("%w: its optional content starts %s by default", ErrUnsupported, *base)
			}
			if off, _ := n.ctx.DereferenceArray(d["OFF"]); len(off) > 0 {
				return fmt.Errorf("%w: the layer %s is hidden by default", ErrUnsupported, n.layerName(off[0]))
			}
		}
	}
	for _, nr := range slices.Sorted(maps.Keys(n.ctx.Table)) {
		e := n.ctx.Table[nr]
		if e == nil || e.Free || e.Object == nil {
			continue
		}
		if err := n.walk(e.Object, 0); err != nil {
			return err
		}
	}
	if _, found := root.Find("OCProperties"); found {
		delete(root, "OCProperties")
		n.removed["optional content layers merged"]++
	}
	return nil
}

// walk looks at one object and the direct objects inside it (indirect ones are looked at from
// the table): it refuses conditional optional content, and removes actions and annotations from
// form XObjects and the actions of named destinations.
func (n *normalizer) walk(o types.Object, depth int) error {
	if depth > 64 {
		return nil
	}
	var d types.Dict
	switch v := o.(type) {
	case types.Dict:
		d = v
	case types.StreamDict:
		d = v.Dict
		if t := d.Subtype(); t != nil && *t == "Form" {
			for _, k := range []string{"AA", "Annots"} {
				if _, ok := d.Find(k); ok {
					delete(d, k)
					n.removed["form XObject actions"]++
				}
			}
		}
	case types.Array:
		for _, e := range v {
			if err := n.walk(e, depth+1); err != nil {
				return err
			}
		}
		return nil
	default:
		return nil
	}
	switch t := d.Type(); {
	case t != nil && *t == "OCMD":
		// With every layer on (checked above and below), a membership that asks for any or all
		// of its layers on shows its content; one that asks for some off hides it.
		if p := d.NameEntry("P"); p != nil && *p != "AnyOn" && *p != "AllOn" {
			return fmt.Errorf("%w: optional content shown only while a layer is off", ErrUnsupported)
		}
	case t != nil && *t == "OCG":
		if usage, _ := n.ctx.DereferenceDict(d["Usage"]); usage != nil {
			if view, _ := n.ctx.DereferenceDict(usage["View"]); view != nil {
				if s := view.NameEntry("ViewState"); s != nil && *s == "OFF" {
					return fmt.Errorf("%w: the layer %s is hidden on screen", ErrUnsupported, n.layerName(d))
				}
			}
			if _, zoom := usage.Find("Zoom"); zoom {
				return fmt.Errorf("%w: the layer %s shows only at some zoom levels", ErrUnsupported, n.layerName(d))
			}
		}
	}
	if _, ok := d.Find("VE"); ok {
		return fmt.Errorf("%w: optional content shown by a visibility expression", ErrUnsupported)
	}
	// Whatever is left of actions after the catalog, pages and annotations lost theirs (in
	// named destinations, say): scripts, and actions beside a destination, go.
	if _, ok := d.Find("JS"); ok {
		delete(d, "JS")
		n.removed["JavaScript"]++
	}
	if s := d.NameEntry("S"); s != nil && (*s == "JavaScript" || *s == "Launch" || *s == "ImportData" || *s == "SubmitForm" || *s == "GoToR" || *s == "GoToE" || *s == "RichMediaExecute") {
		delete(d, "S")
	}
	if _, dest := d.Find("D"); dest {
		if _, ok := d.Find("A"); ok {
			delete(d, "A")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(d)) {
		if err := n.walk(d[k], depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (n *normalizer) layerName(o types.Object) string {
	if d, _ := n.ctx.DereferenceDict(o); d != nil {
		if s, err := n.ctx.DereferenceStringOrHexLiteral(d["Name"], model.V10, nil); err == nil && s != "" {
			return fmt.Sprintf("%q", s)
		}
	}
	return "(unnamed)"
}

// forms refuses a dynamic XFA form: its pages are built by the viewer from the XFA, and what a
// viewer without XFA shows is a placeholder page.
func (n *normalizer) forms(root types.Dict) error {
	if b := root.BooleanEntry("NeedsRendering"); b != nil && *b {
		return fmt.Errorf("%w: a dynamic XFA form, which viewers draw from XFA rather than from its pages", ErrUnsupported)
	}
	return nil
}

// Annotation flags (PDF 32000-1, 12.5.3).
const (
	annotHidden = 1 << 1
	annotNoView = 1 << 5
)

// page writes the inherited attributes on the page, flattens its visible annotations into its
// content and removes its annotations and actions.
func (n *normalizer) page(nr int) error {
	pd, _, inh, err := n.ctx.PageDict(nr, false)
	if err != nil || pd == nil {
		return fmt.Errorf("%w: no page dictionary: %v", ErrNotPDF, err)
	}
	if inh != nil {
		if _, ok := pd.Find("Resources"); !ok && inh.Resources != nil {
			pd["Resources"] = inh.Resources
		}
		if _, ok := pd.Find("MediaBox"); !ok && inh.MediaBox != nil {
			pd["MediaBox"] = inh.MediaBox.Array()
		}
		if _, ok := pd.Find("CropBox"); !ok && inh.CropBox != nil {
			pd["CropBox"] = inh.CropBox.Array()
		}
		if _, ok := pd.Find("Rotate"); !ok && inh.Rotate != 0 {
			pd["Rotate"] = types.Integer(inh.Rotate)
		}
	}
	for _, k := range []string{"AA", "Thumb", "B", "PresSteps", "StructParents"} {
		if _, ok := pd.Find(k); ok {
			delete(pd, k)
			if k == "AA" {
				n.removed["page actions"]++
			}
		}
	}
	annots, _ := n.ctx.DereferenceArray(pd["Annots"])
	delete(pd, "Annots")
	if len(annots) == 0 {
		return nil
	}
	var forms []flatForm
	for _, a := range annots {
		ad, _ := n.ctx.DereferenceDict(a)
		if ad == nil {
			continue
		}
		form, ok := n.appearance(ad)
		if !ok {
			n.removed["annotations removed"]++
			continue
		}
		forms = append(forms, form)
		n.removed["annotations flattened"]++
	}
	if len(forms) == 0 {
		return nil
	}
	return n.drawOnPage(pd, forms)
}

// flatForm is an annotation's appearance ready to draw: its form XObject and the matrix that
// puts the form's box on the annotation's rectangle.
type flatForm struct {
	ref    types.IndirectRef
	matrix string
}

// appearance returns the normal appearance a viewer draws for a visible annotation, following
// PDF 32000-1 12.5.5: the form's bounding box, transformed by its matrix, is fitted to the
// annotation's rectangle. Hidden annotations, pop-ups and annotations without an appearance
// stream give none.
func (n *normalizer) appearance(ad types.Dict) (flatForm, bool) {
	if f := ad.IntEntry("F"); f != nil && *f&(annotHidden|annotNoView) != 0 {
		return flatForm{}, false
	}
	if t := ad.Subtype(); t != nil && *t == "Popup" {
		return flatForm{}, false
	}
	ap, _ := n.ctx.DereferenceDict(ad["AP"])
	if ap == nil {
		return flatForm{}, false
	}
	normal := ap["N"]
	ref, ok := normal.(types.IndirectRef)
	if !ok {
		return flatForm{}, false
	}
	target, err := n.ctx.Dereference(ref)
	if err != nil {
		return flatForm{}, false
	}
	if states, isDict := target.(types.Dict); isDict {
		// An appearance per state (checkboxes, radio buttons): the one named by /AS.
		as := ad.NameEntry("AS")
		if as == nil {
			return flatForm{}, false
		}
		if ref, ok = states[*as].(types.IndirectRef); !ok {
			return flatForm{}, false
		}
		if target, err = n.ctx.Dereference(ref); err != nil {
			return flatForm{}, false
		}
	}
	sd, ok := target.(types.StreamDict)
	if !ok {
		return flatForm{}, false
	}
	at, ok := n.rectEntry(ad, "Rect")
	if !ok {
		return flatForm{}, false
	}
	bbox, ok := n.rectEntry(sd.Dict, "BBox")
	if !ok {
		return flatForm{}, false
	}
	m := [6]float64{1, 0, 0, 1, 0, 0}
	if arr, _ := n.ctx.DereferenceArray(sd.Dict["Matrix"]); len(arr) == 6 {
		for i, o := range arr {
			v, err := n.ctx.DereferenceNumber(o)
			if err != nil || !finite(v) {
				return flatForm{}, false
			}
			m[i] = v
		}
	}
	// The bounding box, transformed by the form's matrix.
	box := rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, c := range [][2]float64{{bbox.x1, bbox.y1}, {bbox.x2, bbox.y1}, {bbox.x1, bbox.y2}, {bbox.x2, bbox.y2}} {
		x, y := m[0]*c[0]+m[2]*c[1]+m[4], m[1]*c[0]+m[3]*c[1]+m[5]
		box = rect{min(box.x1, x), min(box.y1, y), max(box.x2, x), max(box.y2, y)}
	}
	if box.empty() || at.empty() {
		return flatForm{}, false
	}
	sx, sy := (at.x2-at.x1)/(box.x2-box.x1), (at.y2-at.y1)/(box.y2-box.y1)
	tx, ty := at.x1-box.x1*sx, at.y1-box.y1*sy
	// Appearance streams are form XObjects; some producers leave out the entries saying so.
	sd.Dict["Type"], sd.Dict["Subtype"] = types.Name("XObject"), types.Name("Form")
	n.ctx.Table[ref.ObjectNumber.Value()].Object = sd
	return flatForm{ref: ref, matrix: fmt.Sprintf("%s 0 0 %s %s %s", num(sx), num(sy), num(tx), num(ty))}, true
}

// rectEntry reads a rectangle entry, normalised, with finite coordinates.
func (n *normalizer) rectEntry(d types.Dict, key string) (rect, bool) {
	arr, _ := n.ctx.DereferenceArray(d[key])
	if len(arr) != 4 {
		return rect{}, false
	}
	var v [4]float64
	for i, o := range arr {
		f, err := n.ctx.DereferenceNumber(o)
		if err != nil || !finite(f) {
			return rect{}, false
		}
		v[i] = f
	}
	r := rect{v[0], v[1], v[2], v[3]}.normal()
	return r, !r.empty()
}

// drawOnPage draws the forms after the page's own content, with the page's graphics state
// restored first, and adds them to the page's resources under names it does not use. The page's
// own content streams and resource entries are kept as they are; the page gets a resource
// dictionary of its own.
func (n *normalizer) drawOnPage(pd types.Dict, forms []flatForm) error {
	res, _ := n.ctx.DereferenceDict(pd["Resources"])
	refs := make([]types.IndirectRef, len(forms))
	for i, f := range forms {
		refs[i] = f.ref
	}
	res, names := withXObjects(n.ctx.XRefTable, res, "SobreFlat", refs...)
	pd["Resources"] = res
	ops := bytes.NewBufferString("\nQ\n")
	for i, f := range forms {
		fmt.Fprintf(ops, "q %s cm /%s Do Q\n", f.matrix, names[i])
	}
	existing, err := contentStreams(n.ctx.XRefTable, pd)
	if err != nil {
		return err
	}
	open, err := newStream(n.ctx.XRefTable, []byte("q\n"))
	if err != nil {
		return err
	}
	paint, err := newStream(n.ctx.XRefTable, ops.Bytes())
	if err != nil {
		return err
	}
	pd["Contents"] = wrappedContents(existing, *open, *paint)
	return nil
}

// catalog removes what runs, hides or is not shown on the pages.
func (n *normalizer) catalog(root types.Dict) {
	for _, k := range []struct{ key, what string }{
		{"OpenAction", "open action"}, {"AA", "document actions"}, {"AcroForm", "form"},
		{"Collection", "portfolio"}, {"Outlines", "bookmarks"}, {"StructTreeRoot", "structure tree"},
		{"MarkInfo", ""}, {"Perms", ""}, {"Threads", ""}, {"URI", ""}, {"SpiderInfo", ""}, {"Legal", ""},
		{"Requirements", ""}, {"NeedsRendering", ""}, {"AF", "associated files"}, {"PieceInfo", ""},
	} {
		if _, ok := root.Find(k.key); ok {
			delete(root, k.key)
			if k.what != "" {
				n.removed[k.what]++
			}
		}
	}
	if mode := root.NameEntry("PageMode"); mode != nil && *mode != "UseNone" && *mode != "FullScreen" {
		delete(root, "PageMode")
	}
	// Of the name trees only named destinations stay: JavaScript, embedded files and the others
	// go, from the catalog and from pdfcpu's cache of them, which it writes back.
	names, _ := n.ctx.DereferenceDict(root["Names"])
	kept := types.Dict{}
	for k, v := range names {
		if k == "Dests" {
			kept[k] = v
			continue
		}
		switch k {
		case "JavaScript":
			n.removed["JavaScript"]++
		case "EmbeddedFiles":
			n.removed["embedded files"]++
		}
	}
	delete(root, "Names")
	if len(kept) > 0 {
		root["Names"] = kept
	}
	// Named destinations keep their destination only (a dictionary form may carry actions).
	if dests, _ := n.ctx.DereferenceDict(root["Dests"]); dests != nil {
		for k, v := range dests {
			if d, _ := n.ctx.DereferenceDict(v); d != nil {
				if dest, ok := d["D"]; ok {
					dests[k] = dest
				} else {
					delete(dests, k)
				}
			}
		}
	}
	for k := range n.ctx.Names {
		if k != "Dests" {
			delete(n.ctx.Names, k)
		}
	}
}

// summary lists what was removed, in a stable order.
func (n *normalizer) summary() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(n.removed)) {
		if c := n.removed[k]; c > 1 || strings.HasPrefix(k, "annotations") {
			out = append(out, fmt.Sprintf("%s: %d", k, c))
		} else {
			out = append(out, k)
		}
	}
	return out
}

// num writes a number for a content stream: fixed point, no exponent.
func num(v float64) string {
	s := fmt.Sprintf("%.6f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}
