package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
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
	pages   *pageTree // the page dictionaries, found once the layers are merged
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
	n.pages = newPageTree(n.ctx)
	seen := map[int]int{}
	for i := 1; i <= n.ctx.PageCount; i++ {
		_, ref, _, err := n.pages.page(i)
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
