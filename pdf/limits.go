package pdf

import (
	"errors"
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// ErrLimit is wrapped by the errors about a document that would cost more to read than Limits
// allow: a stream or a whole document that decodes to too many bytes, an image of too many
// pixels, too many pages or objects, or a page that takes too long to draw. The message says
// which limit and by how much. A page that PDFium takes longer to draw than the engine's
// deadline (EngineConfig) is refused the same way.
var ErrLimit = errors.New("pdf: over a limit")

// ErrUnsupported is wrapped by the errors about a readable document that Sobre refuses because a
// signer could not be shown exactly what would be sealed: content that viewers hide by default
// (optional content turned off), or a form that viewers build from XFA instead of from the
// page's content.
var ErrUnsupported = errors.New("pdf: cannot be shown as it would be sealed")

// Limits bound the memory and time that reading one document may cost, whatever its bytes. A
// document over a limit is refused (ErrLimit); zero means the default.
type Limits struct {
	// StreamBytes is the most one stream may decode to (content, object, font, image streams).
	StreamBytes int64
	// DocumentBytes is the most all the document's streams may decode to together.
	DocumentBytes int64
	// ImagePixels is the most pixels (width × height) one image may declare.
	ImagePixels int64
	// Pages is the most pages a document may have.
	Pages int
	// Objects is the most objects a document may have.
	Objects int
	// Entries is the most array elements and dictionary entries all its objects may hold
	// together: what a parser holds one by one, and what later readings of the normalised
	// document (the seal's, in the worker) cost in memory.
	Entries int
}

// Default limits; the README's configuration table names the variables that change them.
const (
	DefaultStreamBytes   = 64 << 20
	DefaultDocumentBytes = 256 << 20
	DefaultImagePixels   = 40_000_000
	DefaultPages         = 2000
	DefaultObjects       = 1_000_000
	DefaultEntries       = 2_000_000
)

// DefaultLimits are the limits Sobre applies unless configured otherwise.
func DefaultLimits() Limits {
	return Limits{
		StreamBytes: DefaultStreamBytes, DocumentBytes: DefaultDocumentBytes, ImagePixels: DefaultImagePixels,
		Pages: DefaultPages, Objects: DefaultObjects, Entries: DefaultEntries,
	}
}

// orDefault fills the zero members of l with the defaults.
func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.StreamBytes <= 0 {
		l.StreamBytes = d.StreamBytes
	}
	if l.DocumentBytes <= 0 {
		l.DocumentBytes = d.DocumentBytes
	}
	if l.ImagePixels <= 0 {
		l.ImagePixels = d.ImagePixels
	}
	if l.Pages <= 0 {
		l.Pages = d.Pages
	}
	if l.Objects <= 0 {
		l.Objects = d.Objects
	}
	if l.Entries <= 0 {
		l.Entries = d.Entries
	}
	return l
}

// configWith is pdfcpu's configuration with the limits applied to its own checks, which stop
// decoding as soon as a stream passes StreamBytes (so a bomb never inflates further).
func configWith(l Limits, inputSize int) *model.Configuration {
	conf := config()
	conf.Limits.MaxStreamBytes = int64(inputSize) // an encoded stream cannot be longer than the file
	conf.Limits.MaxDecodeBytes = l.StreamBytes
	conf.Limits.MaxImagePixels = l.ImagePixels
	conf.Limits.MaxImageBytes = l.StreamBytes
	conf.Limits.MaxObjectCount = l.Objects
	conf.Limits.MaxXRefEntries = l.Objects
	conf.Limits.MaxObjectStreamCount = l.Objects
	return conf
}

func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }
