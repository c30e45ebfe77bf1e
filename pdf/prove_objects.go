package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

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
func stampedPage(at, bt *pageTree, nr int) error {
	a, b := at.ctx, bt.ctx
	p, err := comparePages(at, bt, nr, "Contents", "Resources")
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
func samePage(a, b *pageTree, nr int) error {
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
func comparePages(at, bt *pageTree, nr int, skip ...string) (pagePair, error) {
	var p pagePair
	a, b := at.ctx, bt.ctx
	apd, aref, ainh, err := at.page(nr)
	if err != nil {
		return p, err
	}
	bpd, bref, binh, err := bt.page(nr)
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
