package pdf

import (
	"fmt"
	"math"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// maxPageTreeDepth is the deepest page tree the one-walk index follows; a deeper one is left to
// pdfcpu's own walk, which has its own limit.
const maxPageTreeDepth = 64

// pageTree answers what pdfcpu's PageDict(nr, false) answers for every page of one document, from
// one walk of its page tree: pdfcpu walks the tree from its root on each call, so work done page
// by page (stamping, proving, normalising) cost time in the square of the page count.
//
// The walk gives the same answers as pdfcpu's, or none: it follows the same path to each page
// and folds the same inherited attributes (the last /Resources, /MediaBox, /CropBox and /Rotate
// on the way, the page's own included), and it trusts the tree only when pdfcpu's walk could not
// take another path, that is when every node's /Count is the number of pages under it and the
// pages are as many as pdfcpu counted. Any other tree (a wrong /Count, a cycle, an odd node, an
// attribute pdfcpu would refuse) is left to pdfcpu's PageDict, page by page, as before.
type pageTree struct {
	ctx   *model.Context
	pages []pageNode // in page order; nil when pdfcpu answers
}

// pageNode is one page as the walk found it.
type pageNode struct {
	dict types.Dict
	ref  types.IndirectRef
	inh  model.InheritedPageAttrs
}

// newPageTree walks the page tree of ctx once.
func newPageTree(ctx *model.Context) *pageTree {
	t := &pageTree{ctx: ctx}
	root, err := ctx.Pages()
	if err != nil || root == nil {
		return t
	}
	w := treeWalk{x: ctx.XRefTable, seen: map[int]bool{}}
	if _, ok := w.node(*root, model.InheritedPageAttrs{}, 0); ok && len(w.pages) == ctx.PageCount {
		t.pages = w.pages
	}
	return t
}

// page returns page nr (from 1) as ctx.PageDict(nr, false) does: its dictionary, its reference
// and the attributes it inherits (a copy of its own).
func (t *pageTree) page(nr int) (types.Dict, *types.IndirectRef, *model.InheritedPageAttrs, error) {
	if t.pages == nil {
		return t.ctx.PageDict(nr, false)
	}
	if nr < 1 || nr > len(t.pages) {
		return nil, nil, nil, model.ErrPageNotFound
	}
	p := t.pages[nr-1]
	ref, inh := p.ref, p.inh
	return p.dict, &ref, &inh, nil
}

// treeWalk collects the pages of a page tree in order.
type treeWalk struct {
	x     *model.XRefTable
	seen  map[int]bool
	pages []pageNode
}

// node walks the page tree node ref with the attributes inherited so far and returns how many
// pages it holds; ok is false when the tree is not one to trust (see pageTree).
func (w *treeWalk) node(ref types.IndirectRef, inh model.InheritedPageAttrs, depth int) (count int, ok bool) {
	nr := ref.ObjectNumber.Value()
	if depth > maxPageTreeDepth || w.seen[nr] {
		return 0, false
	}
	w.seen[nr] = true
	d, err := w.x.DereferenceDict(ref)
	if err != nil || d == nil {
		return 0, false
	}
	if inh, err = inherited(w.x, d, inh); err != nil {
		return 0, false
	}
	kids := d.ArrayEntry("Kids")
	if kids == nil {
		return 0, false // the root is a page, not a tree
	}
	for _, o := range kids {
		if o == nil {
			continue
		}
		kid, isRef := o.(types.IndirectRef)
		if !isRef {
			return 0, false
		}
		kd, err := w.x.DereferenceDict(kid)
		if err != nil || kd == nil {
			return 0, false
		}
		switch nodeType(w.x, kd) {
		case "Pages":
			n, ok := w.node(kid, inh, depth+1)
			if !ok {
				return 0, false
			}
			count += n
		case "Page":
			if !w.leaf(kid, kd, inh) {
				return 0, false
			}
			count++
		default:
			return 0, false
		}
	}
	if c := d.IntEntry("Count"); c == nil || *c != count {
		return 0, false
	}
	return count, true
}

// leaf records the page kd (at ref) with what it inherits, its own attributes folded in.
func (w *treeWalk) leaf(ref types.IndirectRef, kd types.Dict, inh model.InheritedPageAttrs) bool {
	nr := ref.ObjectNumber.Value()
	// A page with /Count or /Kids would be taken for a tree node on pdfcpu's way down.
	if _, ok := kd.Find("Count"); ok || w.seen[nr] {
		return false
	}
	if _, ok := kd.Find("Kids"); ok {
		return false
	}
	w.seen[nr] = true
	inh, err := inherited(w.x, kd, inh)
	if err != nil {
		return false
	}
	w.pages = append(w.pages, pageNode{dict: kd, ref: ref, inh: inh})
	return true
}

// nodeType is a page tree node's /Type, or "Pages" for a node without one that has /Count and
// /Kids (pdfcpu's relaxed reading, the one this package uses).
func nodeType(x *model.XRefTable, d types.Dict) string {
	if t := d.Type(); t != nil {
		return *t
	}
	if x.ValidationMode == model.ValidationRelaxed {
		_, count := d.Find("Count")
		_, kids := d.Find("Kids")
		if count && kids {
			return "Pages"
		}
	}
	return ""
}

// inherited folds node d's inheritable attributes into inh, as pdfcpu does on its way down
// (resources as they are, not merged with the ones above).
func inherited(x *model.XRefTable, d types.Dict, inh model.InheritedPageAttrs) (model.InheritedPageAttrs, error) {
	for _, k := range []string{"MediaBox", "CropBox"} {
		o, found := d.Find(k)
		if !found {
			continue
		}
		a, err := x.DereferenceArray(o)
		if err != nil {
			return inh, err
		}
		r, err := rectangle(x, a)
		if err != nil {
			return inh, err
		}
		if k == "MediaBox" {
			inh.MediaBox = r
		} else {
			inh.CropBox = r
		}
	}
	if o, found := d.Find("Rotate"); found {
		o, err := x.Dereference(o)
		if err != nil {
			return inh, err
		}
		switch v := o.(type) {
		case types.Integer:
			inh.Rotate = v.Value()
		case types.Float:
			if x.ValidationMode == model.ValidationStrict {
				return inh, fmt.Errorf("/Rotate %v", v)
			}
			inh.Rotate = int(math.Round(v.Value()))
		default:
			return inh, fmt.Errorf("/Rotate of type %T", o)
		}
	}
	if o, found := d.Find("Resources"); found {
		res, err := x.DereferenceDict(o)
		if err != nil {
			return inh, err
		}
		inh.Resources = res
	}
	return inh, nil
}

// rectangle reads a box of four numbers.
func rectangle(x *model.XRefTable, a types.Array) (*types.Rectangle, error) {
	if len(a) < 4 {
		return nil, fmt.Errorf("a box of %d numbers", len(a))
	}
	var v [4]float64
	for i := range v {
		n, err := x.DereferenceNumber(a[i])
		if err != nil {
			return nil, err
		}
		v[i] = n
	}
	return types.NewRectangle(v[0], v[1], v[2], v[3]), nil
}
