package pdf

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Overlay is what the seal draws on a document: a PDF of its own making with one page for each
// page of the document that gets stamped (of the same displayed size, drawn with the origin at
// the displayed page's bottom left, as any PDF page) and the pages to add at the end.
type Overlay struct {
	PDF    []byte
	OnPage map[int]int // page of the document (from 1) → page of the overlay drawn over it (from 1)
	Append []int       // pages of the overlay added after the document's last page, in order
}

// Stamp draws an overlay on a document and returns the document followed by one incremental
// update: data itself is a prefix of the result, byte for byte. For each stamped page the update
// holds the overlay page as a form XObject and a new version of the page dictionary whose
// content is the page's own streams (unchanged, wrapped in q … Q) followed by the form; its
// resources are the page's own entries plus that form. Appended pages are copied whole. No other
// object of the document is touched.
//
// data is read by pdfcpu, the engine that normalised it (Normalize), under the default limits.
func Stamp(data []byte, ov Overlay) (out []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, fmt.Errorf("%w: pdfcpu failed while stamping: %v", ErrNotPDF, v)
		}
	}()
	ctx, pages, err := read(data)
	if err != nil {
		return nil, fmt.Errorf("read the document: %w", err)
	}
	octx, opages, err := read(ov.PDF)
	if err != nil {
		return nil, fmt.Errorf("read the overlay: %w", err)
	}
	prevXRef, xrefStream, err := lastXRef(data)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(data, []byte("%PDF-")) || ctx.Read.RepairOffset != 0 || ctx.Root == nil {
		return nil, fmt.Errorf("%w: the document cannot take an incremental update", errNoUpdate)
	}
	tree, otree := newPageTree(ctx), newPageTree(octx)
	cp := &copier{src: octx.XRefTable, dst: ctx.XRefTable, done: map[int]types.IndirectRef{}}
	changed := map[int]types.Object{} // object number → new version, for existing objects

	for _, nr := range slices.Sorted(maps.Keys(ov.OnPage)) {
		onr := ov.OnPage[nr]
		if nr < 1 || nr > len(pages) || onr < 1 || onr > len(opages) {
			return nil, fmt.Errorf("pdf: stamp page %d with overlay page %d: no such page", nr, onr)
		}
		pd, ref, inh, err := tree.page(nr)
		if err != nil || pd == nil || ref == nil {
			return nil, fmt.Errorf("%w: page %d: %v", ErrNotPDF, nr, err)
		}
		form, err := cp.form(otree, onr, opages[onr-1], pages[nr-1])
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", nr, err)
		}
		page := maps.Clone(pd)
		own, _ := ctx.DereferenceDict(pd["Resources"])
		if own == nil && inh != nil {
			own = inh.Resources
		}
		res, names := withXObjects(ctx.XRefTable, own, "SobreStamp", form)
		page["Resources"] = res
		existing, err := contentStreams(ctx.XRefTable, pd)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", nr, err)
		}
		open := cp.stream([]byte("q\n"))
		paint := cp.stream([]byte("\nQ\nq /" + names[0] + " Do Q\n"))
		page["Contents"] = wrappedContents(existing, open, paint)
		changed[ref.ObjectNumber.Value()] = page
	}

	if len(ov.Append) > 0 {
		rootRef, err := ctx.Pages()
		if err != nil || rootRef == nil {
			return nil, fmt.Errorf("%w: no page tree: %v", ErrNotPDF, err)
		}
		root, err := ctx.DereferenceDict(*rootRef)
		if err != nil || root == nil {
			return nil, fmt.Errorf("%w: page tree root: %v", ErrNotPDF, err)
		}
		root = maps.Clone(root)
		kids, _ := ctx.DereferenceArray(root["Kids"])
		kids = slices.Clone(kids)
		for _, onr := range ov.Append {
			if onr < 1 || onr > len(opages) {
				return nil, fmt.Errorf("pdf: append overlay page %d: no such page", onr)
			}
			ref, err := cp.page(otree, onr, *rootRef)
			if err != nil {
				return nil, fmt.Errorf("append overlay page %d: %w", onr, err)
			}
			kids = append(kids, ref)
		}
		root["Kids"] = kids
		root["Count"] = types.Integer(len(pages) + len(ov.Append))
		changed[rootRef.ObjectNumber.Value()] = root
	}

	u := newUpdate(data, ctx)
	for _, nr := range slices.Sorted(maps.Keys(changed)) {
		u.object(nr, genOf(ctx.XRefTable, nr), changed[nr].PDFString())
	}
	for _, nr := range cp.written {
		switch o := ctx.Table[nr].Object.(type) {
		case types.StreamDict:
			u.streamObject(nr, o)
		default:
			u.object(nr, 0, o.PDFString())
		}
	}
	u.next = max(u.next, *ctx.Size)
	u.end(ctx, prevXRef, xrefStream)
	out = u.buf.Bytes()
	if err := check(out, len(pages)+len(ov.Append)); err != nil {
		return nil, fmt.Errorf("pdf: stamp: %w", err)
	}
	return out, nil
}

func genOf(x *model.XRefTable, nr int) int {
	if e := x.Table[nr]; e != nil && e.Generation != nil {
		return *e.Generation
	}
	return 0
}

// streamObject writes a stream object with its encoded bytes as they are.
func (u *update) streamObject(nr int, sd types.StreamDict) {
	d := maps.Clone(sd.Dict)
	d["Length"] = types.Integer(len(sd.Raw))
	u.offsets[nr], u.gens[nr] = int64(u.buf.Len()), 0
	fmt.Fprintf(&u.buf, "%d 0 obj\n%s\nstream\n", nr, d.PDFString())
	u.buf.Write(sd.Raw)
	u.buf.WriteString("\nendstream\nendobj\n")
}

// copier copies objects of the overlay into the document under new object numbers.
type copier struct {
	src, dst *model.XRefTable
	done     map[int]types.IndirectRef // overlay object number → its copy
	written  []int                     // object numbers added to the document, in order
}

// add puts a new object in the document, numbered after every existing one.
func (c *copier) add(o types.Object) types.IndirectRef {
	nr := c.dst.InsertNew(*model.NewXRefTableEntryGen0(o))
	c.written = append(c.written, nr)
	return *types.NewIndirectRef(nr, 0)
}

// stream adds a new Flate-compressed stream holding content.
func (c *copier) stream(content []byte) types.IndirectRef {
	sd, _ := c.dst.NewStreamDictForBuf(content)
	if err := sd.Encode(); err != nil {
		// Flate-compressing a buffer in memory does not fail; keep the content plain if it did.
		sd = &types.StreamDict{Dict: types.NewDict(), Raw: content}
	}
	return c.add(*sd)
}

// copy returns o with every object it refers to copied into the document.
func (c *copier) copy(o types.Object) (types.Object, error) {
	switch v := o.(type) {
	case types.IndirectRef:
		nr := v.ObjectNumber.Value()
		if ref, ok := c.done[nr]; ok {
			return ref, nil
		}
		target, err := c.src.Dereference(v)
		if err != nil {
			return nil, fmt.Errorf("overlay object %d: %w", nr, err)
		}
		ref := c.add(types.Dict{}) // numbered before its contents, so cycles end here
		c.done[nr] = ref
		cp, err := c.copy(target)
		if err != nil {
			return nil, err
		}
		c.dst.Table[ref.ObjectNumber.Value()].Object = cp
		return ref, nil
	case types.Dict:
		out := types.Dict{}
		for k, e := range v {
			ce, err := c.copy(e)
			if err != nil {
				return nil, err
			}
			out[k] = ce
		}
		return out, nil
	case types.Array:
		out := make(types.Array, len(v))
		for i, e := range v {
			ce, err := c.copy(e)
			if err != nil {
				return nil, err
			}
			out[i] = ce
		}
		return out, nil
	case types.StreamDict:
		d, err := c.copy(v.Dict)
		if err != nil {
			return nil, err
		}
		return types.StreamDict{Dict: d.(types.Dict), Raw: v.Raw, FilterPipeline: v.FilterPipeline}, nil
	case nil:
		return nil, nil
	default:
		return o, nil
	}
}

// form copies overlay page onr as a form XObject whose matrix puts the overlay's displayed page
// on the document page's user space (crop box and rotation taken into account).
func (c *copier) form(overlay *pageTree, onr int, op page, target page) (types.IndirectRef, error) {
	octx := overlay.ctx
	opd, _, inh, err := overlay.page(onr)
	if err != nil || opd == nil {
		return types.IndirectRef{}, fmt.Errorf("overlay page %d: %v", onr, err)
	}
	var content bytes.Buffer
	streams, err := contentStreams(octx.XRefTable, opd)
	if err != nil {
		return types.IndirectRef{}, err
	}
	for _, s := range streams {
		sd, _, err := octx.DereferenceStreamDict(s)
		if err != nil || sd == nil {
			return types.IndirectRef{}, fmt.Errorf("overlay content: %v", err)
		}
		if err := sd.Decode(); err != nil {
			return types.IndirectRef{}, fmt.Errorf("overlay content: %w", err)
		}
		content.Write(sd.Content)
		content.WriteByte('\n')
	}
	resObj := opd["Resources"]
	if resObj == nil && inh != nil && inh.Resources != nil {
		resObj = inh.Resources
	}
	res, err := c.copy(resObj)
	if err != nil {
		return types.IndirectRef{}, err
	}
	sd, _ := c.dst.NewStreamDictForBuf(content.Bytes())
	if err := sd.Encode(); err != nil {
		return types.IndirectRef{}, fmt.Errorf("encode the stamp: %w", err)
	}
	ow, oh := op.displaySize()
	tw, th := target.displaySize()
	if math.Abs(ow-tw) > 0.5 || math.Abs(oh-th) > 0.5 {
		return types.IndirectRef{}, fmt.Errorf("overlay page %d is %.1f × %.1f pt, the page %.1f × %.1f pt", onr, ow, oh, tw, th)
	}
	sd.Dict["Type"], sd.Dict["Subtype"] = types.Name("XObject"), types.Name("Form")
	sd.Dict["BBox"] = types.NewNumberArray(op.llx, op.lly, op.urx, op.ury)
	if res != nil {
		sd.Dict["Resources"] = res
	}
	m := displayMatrix(op, target)
	sd.Dict["Matrix"] = types.NewNumberArray(m[:]...)
	return c.add(*sd), nil
}

// page copies overlay page onr as a page of the document under parent.
func (c *copier) page(overlay *pageTree, onr int, parent types.IndirectRef) (types.IndirectRef, error) {
	opd, _, inh, err := overlay.page(onr)
	if err != nil || opd == nil {
		return types.IndirectRef{}, fmt.Errorf("overlay page %d: %v", onr, err)
	}
	d := types.Dict{}
	for k, v := range opd {
		if k == "Parent" || k == "Annots" {
			continue
		}
		d[k] = v
	}
	if inh != nil {
		if _, ok := d["Resources"]; !ok && inh.Resources != nil {
			d["Resources"] = inh.Resources
		}
		if _, ok := d["MediaBox"]; !ok && inh.MediaBox != nil {
			d["MediaBox"] = inh.MediaBox.Array()
		}
	}
	cp, err := c.copy(d)
	if err != nil {
		return types.IndirectRef{}, err
	}
	pd := cp.(types.Dict)
	pd["Parent"] = parent
	return c.add(pd), nil
}

// displayMatrix maps the overlay page's user space (the displayed page, origin bottom left, y
// up, offset by its own box) onto the target page's user space, as a PDF matrix [a b c d e f].
// It is built from target.toUser, the mapping every box of Sobre goes through, so a stamp lands
// exactly where FindText and the signing page put the field.
func displayMatrix(overlay, target page) [6]float64 {
	_, dh := target.displaySize()
	at := func(x, y float64) (float64, float64) {
		// Overlay point → displayed page from its top left → user space.
		return target.toUser(x-overlay.llx, dh-(y-overlay.lly))
	}
	e, f := at(overlay.llx, overlay.lly)
	ax, ay := at(overlay.llx+1, overlay.lly)
	cx, cy := at(overlay.llx, overlay.lly+1)
	return [6]float64{ax - e, ay - f, cx - e, cy - f, e - overlay.llx*(ax-e) - overlay.lly*(cx-e), f - overlay.llx*(ay-f) - overlay.lly*(cy-f)}
}
