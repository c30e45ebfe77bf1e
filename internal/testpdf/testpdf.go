// Package testpdf writes small, valid PDFs for tests: A4 pages, each with a line of Helvetica text.
package testpdf

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"math/rand/v2"
)

// Minimal returns a one-page A4 PDF showing text.
func Minimal(text string) []byte {
	return build([]string{text})
}

// Pages returns an A4 PDF of n pages, each showing text and its page number.
func Pages(n int, text string) []byte {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("%s %d", text, i+1)
	}
	return build(texts)
}

// WithImages returns an A4 PDF of n pages, each showing a line of text and a photo-like RGB
// image whose Flate-compressed stream is about imageBytes long (noise, which does not compress),
// for measuring work on documents of realistic size. The same arguments give the same bytes.
func WithImages(n, imageBytes int) []byte {
	side := 1
	for side*side*3 < imageBytes {
		side++
	}
	rng := rand.New(rand.NewPCG(1, 2))
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	var kids bytes.Buffer
	raw := make([]byte, side*side*3)
	for i := range n {
		for j := range raw {
			raw[j] = byte(rng.Uint32())
		}
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		_, _ = w.Write(raw)
		_ = w.Close()
		objects = append(objects, fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream",
			side, side, z.Len(), z.Bytes()))
		image := len(objects)
		content := fmt.Sprintf("BT /F1 12 Tf 72 780 Td (Page %d of %d) Tj ET q 400 0 0 400 97 300 cm /Im1 Do Q", i+1, n)
		objects = append(objects, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
		objects = append(objects, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595.28 841.89] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 %d 0 R >> >> /Contents %d 0 R >>",
			image, len(objects)))
		fmt.Fprintf(&kids, "%d 0 R ", len(objects))
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", bytes.TrimSpace(kids.Bytes()), n)
	return write(objects)
}

// build writes one page per text: catalog, page tree, font, then a content stream and a page
// object for each page, and the cross-reference table.
func build(texts []string) []byte {
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	var kids bytes.Buffer
	for _, text := range texts {
		content := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
		objects = append(objects, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
		objects = append(objects, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595.28 841.89] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", len(objects)))
		fmt.Fprintf(&kids, "%d 0 R ", len(objects))
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", bytes.TrimSpace(kids.Bytes()), len(texts))
	return write(objects)
}

// write numbers the objects from 1 (the first is the catalog) and writes the file with its
// cross-reference table.
func write(objects []string) []byte { return File(objects, 1) }

// File writes objects (bodies, numbered from 1) as a PDF 1.7 file with a classic
// cross-reference table whose trailer names object root as the catalog.
func File(objects []string, root int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, root, xref)
	return b.Bytes()
}
