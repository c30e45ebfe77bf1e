package pdf

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// This file writes the PDFs the tests read. They are built by hand, object by object, so that
// every number that matters (page boxes, rotation, where each text is drawn, in which order) is
// known exactly; pdfcpu can then rewrite them with compressed object streams, or encrypt them.

// Page sizes in points.
const (
	a4W, a4H         = 595.28, 841.89
	letterW, letterH = 612.0, 792.0
)

// txt is a line of Helvetica text drawn with its baseline starting at (x, y) in user space.
type txt struct {
	x, y, size float64
	s          string
}

// fixturePage describes one page of a generated PDF.
type fixturePage struct {
	w, h   float64  // media box [0 0 w h], unless inherited
	crop   *rect    // optional /CropBox
	rotate int      // /Rotate, written when not zero
	texts  []txt    // drawn in this order
	extra  []string // more content stream operators, drawn after the texts
}

// fixtureDoc describes a generated PDF.
type fixtureDoc struct {
	pages []fixturePage
	// inherit puts the first page's media box and rotation on the page tree root instead of
	// on each page, which must then inherit them.
	inherit bool
}

// pdfOf is shorthand for a document of the given pages.
func pdfOf(pages ...fixturePage) []byte { return fixtureDoc{pages: pages}.bytes() }

// bytes writes the document: a classic cross-reference table, uncompressed content streams and
// Helvetica (one of the 14 standard fonts, which PDF files use without embedding).
func (d fixtureDoc) bytes() []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	catalog := add("")
	root := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, p := range d.pages {
		var ops bytes.Buffer
		for _, t := range p.texts {
			fmt.Fprintf(&ops, "BT /F1 %g Tf %g %g Td (%s) Tj ET\n", t.size, t.x, t.y, t.s)
		}
		for _, e := range p.extra {
			ops.WriteString(e + "\n")
		}
		content := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", ops.Len(), ops.String()))
		var attrs strings.Builder
		if !d.inherit {
			fmt.Fprintf(&attrs, " /MediaBox [0 0 %g %g]", p.w, p.h)
			if p.rotate != 0 {
				fmt.Fprintf(&attrs, " /Rotate %d", p.rotate)
			}
		}
		if p.crop != nil {
			fmt.Fprintf(&attrs, " /CropBox [%g %g %g %g]", p.crop.x1, p.crop.y1, p.crop.x2, p.crop.y2)
		}
		kid := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R%s /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>",
			root, attrs.String(), font, content))
		kids = append(kids, fmt.Sprintf("%d 0 R", kid))
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", root)
	var inherited string
	if d.inherit && len(d.pages) > 0 {
		inherited = fmt.Sprintf(" /MediaBox [0 0 %g %g] /Rotate %d", d.pages[0].w, d.pages[0].h, d.pages[0].rotate)
	}
	objs[root-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d%s >>", strings.Join(kids, " "), len(d.pages), inherited)

	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, xref)
	return b.Bytes()
}

// rewritten is data as pdfcpu writes it: compressed streams, object streams and a
// cross-reference stream, like the files of most modern producers.
func rewritten(t testing.TB, data []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := api.Optimize(bytes.NewReader(data), &out, config()); err != nil {
		t.Fatalf("rewrite fixture with pdfcpu: %v", err)
	}
	return out.Bytes()
}

// encrypted is data encrypted with AES-256; an empty user password makes a file that opens
// without a password but restricts what may be done with it.
func encrypted(t testing.TB, data []byte, userPW, ownerPW string) []byte {
	t.Helper()
	var out bytes.Buffer
	conf := model.NewAESConfiguration(userPW, ownerPW, 256)
	if err := api.Encrypt(bytes.NewReader(data), &out, conf); err != nil {
		t.Fatalf("encrypt fixture with pdfcpu: %v", err)
	}
	return out.Bytes()
}

// helvetica holds the advance widths, in thousandths of the font size, of the characters the
// tests draw (from the standard Helvetica font metrics).
var helvetica = map[rune]float64{
	' ': 278, ':': 278, '{': 334, '}': 334, '_': 556, 'F': 611, 'K': 667, 'S': 667,
	'a': 556, 'e': 556, 'f': 278, 'g': 556, 'h': 556, 'i': 222, 'k': 500, 'l': 222, 'm': 833,
	'n': 556, 'o': 556, 'p': 556, 'r': 333, 's': 500, 't': 278, 'u': 556,
}

// textWidth is the advance width in points of s drawn in Helvetica at size.
func textWidth(t testing.TB, s string, size float64) float64 {
	t.Helper()
	var w float64
	for _, r := range s {
		cw, ok := helvetica[r]
		if !ok {
			t.Fatalf("no Helvetica width for %q", r)
		}
		w += cw
	}
	return w * size / 1000
}
