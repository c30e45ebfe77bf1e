package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// ErrNotPDF is wrapped by every error about input that is not a PDF this package can read:
// not a PDF at all, empty, cut short, damaged, without pages, or encrypted.
var ErrNotPDF = errors.New("pdf: not a readable PDF")

// ErrEncrypted is wrapped by the errors about encrypted PDFs, with or without a password to
// open them. It wraps ErrNotPDF, so errors.Is(err, ErrNotPDF) holds for these errors too.
var ErrEncrypted = fmt.Errorf("%w: encrypted or password-protected", ErrNotPDF)

// ErrNoSuchPage is a page number outside the document.
var ErrNoSuchPage = errors.New("pdf: no such page")

// PageSize is the size of a page as a viewer shows it, in PDF points (1/72 inch): the width and
// height of its crop box (clipped to its media box), swapped when the page is rotated by 90 or
// 270 degrees.
type PageSize struct {
	Width  float64
	Height float64
}

// Info is what Inspect reads of a PDF.
type Info struct {
	Pages []PageSize // one per page, in page order; never empty
}

// pdfcpu would otherwise create a configuration directory under the user's config dir ($HOME)
// on first use. This sets a variable of pdfcpu's once, before any goroutine of the program can
// use pdfcpu; the built-in configuration is what this package wants anyway.
func init() {
	api.DisableConfigDir()
}

// config is the pdfcpu configuration for every call: built-in defaults, relaxed validation (as
// tolerant of common producer mistakes as pdfcpu gets), and no network for certificate checks.
func config() *model.Configuration {
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	conf.Offline = true
	return conf
}

// Inspect reads the number of pages of a PDF and the displayed size of each.
//
// Any input that is not a PDF that can be read returns an error wrapping ErrNotPDF; an
// encrypted PDF, one wrapping ErrEncrypted. Inspect never panics: a panic inside pdfcpu is
// returned as such an error. It is safe for concurrent use.
func Inspect(data []byte) (Info, error) {
	_, pages, err := read(data)
	if err != nil {
		return Info{}, err
	}
	info := Info{Pages: make([]PageSize, len(pages))}
	for i, p := range pages {
		w, h := p.displaySize()
		info.Pages[i] = PageSize{Width: w, Height: h}
	}
	return info, nil
}

// read parses and validates data with pdfcpu under the default limits and returns its context
// and the geometry of each page. Every error wraps ErrNotPDF, ErrEncrypted or ErrLimit.
func read(data []byte) (ctx *model.Context, pages []page, err error) {
	return readPages(data, DefaultLimits())
}

// readPages is read under the given limits.
func readPages(data []byte, limits Limits) (ctx *model.Context, pages []page, err error) {
	limits = limits.orDefault()
	if err := sniff(data); err != nil {
		return nil, nil, err
	}
	defer func() {
		if v := recover(); v != nil {
			ctx, pages, err = nil, nil, fmt.Errorf("%w: pdfcpu failed: %v", ErrNotPDF, v)
		}
	}()
	if ctx, err = readLimited(data, limits); err != nil {
		return nil, nil, err
	}
	bounds, err := ctx.XRefTable.PageBoundaries(nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: page boxes: %w", ErrNotPDF, err)
	}
	if len(bounds) == 0 {
		return nil, nil, fmt.Errorf("%w: the document has no pages", ErrNotPDF)
	}
	pages = make([]page, len(bounds))
	for i, b := range bounds {
		media := b.MediaBox()
		if media == nil {
			return nil, nil, fmt.Errorf("%w: page %d has no media box", ErrNotPDF, i+1)
		}
		var crop *rect
		if b.Crop != nil && b.Crop.Rect != nil {
			c := toRect(b.Crop.Rect)
			crop = &c
		}
		pages[i] = newPage(toRect(media), crop, b.Rot)
		if !pages[i].valid() {
			return nil, nil, fmt.Errorf("%w: page %d has an empty or invalid media box", ErrNotPDF, i+1)
		}
	}
	return ctx, pages, nil
}

func toRect(r *types.Rectangle) rect { return rect{r.LL.X, r.LL.Y, r.UR.X, r.UR.Y} }

// sniff rejects, before any parsing, what cannot be a whole PDF. A PDF starts with %PDF- (viewers
// accept up to 1 KiB of junk before it) and ends with %%EOF (followed by at most a little junk).
// Without the end marker the upload was cut short, and a lenient parser would rebuild what is
// missing into a document with pages lost.
func sniff(data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("%w: empty input", ErrNotPDF)
	}
	if !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
		return fmt.Errorf("%w: no %%PDF- header", ErrNotPDF)
	}
	if !bytes.Contains(data[max(0, len(data)-1024):], []byte("%%EOF")) {
		return fmt.Errorf("%w: no %%%%EOF marker at the end (truncated?)", ErrNotPDF)
	}
	return nil
}

// encryptionError reports whether a pdfcpu read error is about encryption.
func encryptionError(err error) bool {
	for _, target := range []error{pdfcpu.ErrWrongPassword, pdfcpu.ErrEncrypted, pdfcpu.ErrOwnerPasswordRequired, pdfcpu.ErrPermissionDenied} {
		if errors.Is(err, target) {
			return true
		}
	}
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "password") || strings.Contains(s, "encrypt")
}
