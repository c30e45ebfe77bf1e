package pdf

import (
	"bytes"
	"fmt"
	"math"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

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
	pd, _, inh, err := n.pages.page(nr)
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
