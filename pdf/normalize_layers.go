package pdf

import (
	"fmt"
	"maps"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

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
