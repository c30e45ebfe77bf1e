package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
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
	at, bt := newPageTree(actx), newPageTree(bctx)
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
		if err := check(at, bt, i+1); err != nil {
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
				cv := &canvas{inst: inst}
				defer cv.close()
				d := drawing{canvas: cv, shown: docs[0], sealed: docs[1], overlay: docs[2]}
				for i := w; i < len(drawn) && !failed.Load(); i += workers {
					nr := drawn[i]
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
