package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// Errors of Inspect.
var (
	ErrNotPDF    = errors.New("not a readable PDF")
	ErrEncrypted = errors.New("the PDF is encrypted")
)

// PageSize is a page's displayed width and height in PDF points (1/72 inch), rotation applied.
type PageSize struct {
	Width  float64
	Height float64
}

// Info is what Inspect reads of a PDF.
type Info struct {
	Pages []PageSize
}

var configOnce sync.Once

// config returns pdfcpu's configuration without touching the user's config directory.
func config() *model.Configuration {
	configOnce.Do(api.DisableConfigDir)
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	return conf
}

// Inspect reads the page sizes of data. A file that is not a PDF, or that pdfcpu cannot read,
// returns an error wrapping ErrNotPDF; a password-protected one, ErrEncrypted.
func Inspect(data []byte) (info Info, err error) {
	if !bytes.HasPrefix(bytes.TrimLeft(data[:min(len(data), 1024)], "\x00\t\r\n "), []byte("%PDF-")) {
		return info, fmt.Errorf("%w: no %%PDF- header", ErrNotPDF)
	}
	// A PDF ends with %%EOF (a few bytes of trailing noise are common); without it the upload
	// was cut short, and a lenient parser would make up what is missing.
	if !bytes.Contains(data[max(0, len(data)-1024):], []byte("%%EOF")) {
		return info, fmt.Errorf("%w: truncated (no %%%%EOF marker)", ErrNotPDF)
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", ErrNotPDF, v)
		}
	}()
	ctx, err := api.ReadContext(bytes.NewReader(data), config())
	if err != nil {
		if isEncrypted(err) {
			return info, fmt.Errorf("%w: %v", ErrEncrypted, err)
		}
		return info, fmt.Errorf("%w: %v", ErrNotPDF, err)
	}
	if ctx.XRefTable.Encrypt != nil || ctx.E != nil {
		return info, ErrEncrypted
	}
	if err := api.ValidateContext(ctx); err != nil {
		return info, fmt.Errorf("%w: %v", ErrNotPDF, err)
	}
	dims, err := ctx.XRefTable.PageDims()
	if err != nil {
		return info, fmt.Errorf("%w: %v", ErrNotPDF, err)
	}
	if len(dims) == 0 {
		return info, fmt.Errorf("%w: no pages", ErrNotPDF)
	}
	for _, d := range dims {
		if d.Width <= 0 || d.Height <= 0 {
			return info, fmt.Errorf("%w: a page has no size", ErrNotPDF)
		}
		info.Pages = append(info.Pages, PageSize{Width: d.Width, Height: d.Height})
	}
	return info, nil
}

func isEncrypted(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "encrypt") || strings.Contains(s, "password")
}
