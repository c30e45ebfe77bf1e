// Command generate writes the hostile PDF corpus in testdata/hostile.
//
// Run it from the repository root:
//
//	go run ./testdata/hostile/generate
//
// Every file is written by hand with raw PDF syntax so that the exact
// structure under test is known and does not depend on a PDF library.
// The output is deterministic: no timestamps, and a fixed /ID derived
// from the file name.
package main

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"io"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	mib = 1024 * 1024

	arrayBombNumbers   = 30_000_000
	objStmBombSize     = 400 * mib
	contentBombSize    = 300 * mib
	nestedBombSize     = 1024 * mib
	imageBombDimension = 60000
	imageBombRows      = 64
	pagesCount         = 300
	fontHelvetica      = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
	pageBox            = "/MediaBox [0 0 612 792]"
)

func main() {
	dir := filepath.Join("testdata", "hostile")
	if _, err := os.Stat(dir); err != nil {
		log.Fatalf("run from the repository root: %v", err)
	}
	files := []struct {
		name string
		gen  func(name string) []byte
	}{
		{"ocg-hidden.pdf", genOCGHidden},
		{"ocg-visible.pdf", genOCGVisible},
		{"incremental.pdf", genIncremental},
		{"placeholder.pdf", genPlaceholder},
		{"acroform.pdf", genAcroForm},
		{"annotations.pdf", genAnnotations},
		{"javascript.pdf", genJavaScript},
		{"embedded.pdf", genEmbedded},
		{"xfa.pdf", genXFA},
		{"objstm-bomb.pdf", genObjStmBomb},
		{"array-bomb.pdf", genArrayBomb},
		{"content-bomb.pdf", genContentBomb},
		{"content-bomb-nested.pdf", genContentBombNested},
		{"image-bomb.pdf", genImageBomb},
		{"xref-stream-plain.pdf", genXRefStreamPlain},
		{"pages-300.pdf", genPages300},
		{"clean.pdf", genClean},
	}
	for _, f := range files {
		data := f.gen(f.name)
		if err := os.WriteFile(filepath.Join(dir, f.name), data, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-26s %9d bytes\n", f.name, len(data))
	}
}

// writer builds a PDF file in memory and remembers where each object starts.
type writer struct {
	buf        bytes.Buffer
	offsets    map[int]int    // object number -> byte offset (in-use objects)
	compressed map[int][2]int // object number -> {object stream number, index}
	id         string         // hex of the fixed file identifier
}

func newWriter(name, version string) *writer {
	sum := md5.Sum([]byte("sobre hostile corpus/" + name))
	w := &writer{
		offsets:    map[int]int{},
		compressed: map[int][2]int{},
		id:         fmt.Sprintf("%X", sum[:]),
	}
	// The comment with high-bit bytes marks the file as binary.
	fmt.Fprintf(&w.buf, "%%PDF-%s\n%%\xe2\xe3\xcf\xd3\n", version)
	return w
}

// idEntry returns the /ID trailer entry. Both halves are the same fixed value.
func (w *writer) idEntry() string {
	return fmt.Sprintf("/ID [<%s> <%s>]", w.id, w.id)
}

// obj writes "n 0 obj body endobj".
func (w *writer) obj(n int, body string) {
	w.offsets[n] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n%s\nendobj\n", n, body)
}

// stream writes a stream object. dict holds the dictionary entries other
// than /Length, which is computed from data.
func (w *writer) stream(n int, dict string, data []byte) {
	w.offsets[n] = w.buf.Len()
	if dict != "" {
		dict += " "
	}
	fmt.Fprintf(&w.buf, "%d 0 obj\n<< %s/Length %d >>\nstream\n", n, dict, len(data))
	w.buf.Write(data)
	w.buf.WriteString("\nendstream\nendobj\n")
}

// size is one more than the highest object number in use.
func (w *writer) size() int {
	highest := 0
	for n := range w.offsets {
		highest = max(highest, n)
	}
	for n := range w.compressed {
		highest = max(highest, n)
	}
	return highest + 1
}

// xrefTable writes a classic cross-reference section for the given objects
// (grouped into contiguous subsections), the trailer and startxref. When
// nums is nil every object 0..size-1 is listed. It returns the offset of
// the "xref" keyword, for use as /Prev by a later update.
func (w *writer) xrefTable(nums []int, trailer string) int {
	size := w.size()
	if nums == nil {
		for n := 0; n < size; n++ {
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	start := w.buf.Len()
	w.buf.WriteString("xref\n")
	for i := 0; i < len(nums); {
		j := i + 1
		for j < len(nums) && nums[j] == nums[j-1]+1 {
			j++
		}
		fmt.Fprintf(&w.buf, "%d %d\n", nums[i], j-i)
		for _, n := range nums[i:j] {
			if n == 0 {
				w.buf.WriteString("0000000000 65535 f\r\n")
				continue
			}
			off, ok := w.offsets[n]
			if !ok {
				log.Fatalf("xref: object %d was not written", n)
			}
			fmt.Fprintf(&w.buf, "%010d 00000 n\r\n", off)
		}
		i = j
	}
	fmt.Fprintf(&w.buf, "trailer\n<< /Size %d %s %s >>\n", size, trailer, w.idEntry())
	fmt.Fprintf(&w.buf, "startxref\n%d\n%%%%EOF\n", start)
	return start
}

// xrefStream writes a cross-reference stream as object n covering objects
// 0..n, with no /Filter, followed by startxref.
func (w *writer) xrefStream(n int, trailer string) {
	start := w.buf.Len()
	w.offsets[n] = start
	size := w.size()
	var data bytes.Buffer
	entry := func(typ byte, f2 uint32, f3 uint16) {
		data.WriteByte(typ)
		binary.Write(&data, binary.BigEndian, f2)
		binary.Write(&data, binary.BigEndian, f3)
	}
	for i := 0; i < size; i++ {
		if i == 0 {
			entry(0, 0, 65535)
			continue
		}
		if off, ok := w.offsets[i]; ok {
			entry(1, uint32(off), 0)
			continue
		}
		if c, ok := w.compressed[i]; ok {
			entry(2, uint32(c[0]), uint16(c[1]))
			continue
		}
		log.Fatalf("xref stream: object %d was not written", i)
	}
	dict := fmt.Sprintf("/Type /XRef /Size %d /W [1 4 2] /Index [0 %d] %s %s", size, size, trailer, w.idEntry())
	w.stream(n, dict, data.Bytes())
	fmt.Fprintf(&w.buf, "startxref\n%d\n%%%%EOF\n", start)
}

func (w *writer) bytes() []byte { return w.buf.Bytes() }

// pdfString escapes s as the body of a literal string.
func pdfString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	return "(" + r.Replace(s) + ")"
}

// textLines returns content-stream operators that show each line with
// /F1 at 18 pt, one line under the other, starting near the top left.
func textLines(lines ...string) string {
	var b strings.Builder
	b.WriteString("BT\n/F1 18 Tf\n28 TL\n72 720 Td\n")
	for i, l := range lines {
		if i > 0 {
			b.WriteString("T*\n")
		}
		fmt.Fprintf(&b, "%s Tj\n", pdfString(l))
	}
	b.WriteString("ET\n")
	return b.String()
}

func deflate(data []byte) []byte {
	var b bytes.Buffer
	z, err := zlib.NewWriterLevel(&b, zlib.BestCompression)
	if err != nil {
		log.Fatal(err)
	}
	z.Write(data)
	if err := z.Close(); err != nil {
		log.Fatal(err)
	}
	return b.Bytes()
}

// writeRepeated writes n copies of c to w in fixed-size chunks, so that
// large bombs are produced without holding them in memory.
func writeRepeated(w io.Writer, c byte, n int) {
	chunk := bytes.Repeat([]byte{c}, mib)
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			log.Fatal(err)
		}
		n -= k
	}
}

// page describes the common single-page layout: objects 1 (catalog),
// 2 (pages), 3 (page), 4 (Helvetica) and 5 (content). Files add their own
// objects from 6 upwards.
type page struct {
	catalog   string // extra catalog entries
	page      string // extra page entries
	resources string // extra resource entries
	content   string
	flate     bool
}

func (w *writer) onePage(p page) {
	w.obj(1, fmt.Sprintf("<< /Type /Catalog /Pages 2 0 R %s>>", spaced(p.catalog)))
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, fmt.Sprintf("<< /Type /Page /Parent 2 0 R %s /Resources << /Font << /F1 4 0 R >> %s>> /Contents 5 0 R %s>>",
		pageBox, spaced(p.resources), spaced(p.page)))
	w.obj(4, fontHelvetica)
	if p.flate {
		w.stream(5, "/Filter /FlateDecode", deflate([]byte(p.content)))
	} else {
		w.stream(5, "", []byte(p.content))
	}
}

func spaced(s string) string {
	if s == "" {
		return ""
	}
	return s + " "
}

// formXObject returns the dictionary entries of an appearance stream.
func formXObject(w, h int, resources string) string {
	d := fmt.Sprintf("/Type /XObject /Subtype /Form /BBox [0 0 %d %d]", w, h)
	if resources != "" {
		d += " /Resources " + resources
	}
	return d
}

func genOCGHidden(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		catalog:   "/OCProperties << /OCGs [6 0 R] /D << /Name (Default) /OFF [6 0 R] /Order [6 0 R] >> >>",
		resources: "/Properties << /L1 6 0 R >>",
		content: textLines("VISIBLE BODY TEXT") +
			"/OC /L1 BDC\nBT\n/F1 18 Tf\n72 660 Td\n(HIDDEN LAYER TEXT) Tj\nET\nEMC\n",
	})
	w.obj(6, "<< /Type /OCG /Name (Hidden layer) >>")
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genOCGVisible(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		catalog:   "/OCProperties << /OCGs [6 0 R] /D << /Name (Default) /ON [6 0 R] /Order [6 0 R] >> >>",
		resources: "/Properties << /L1 6 0 R >>",
		content: textLines("VISIBLE BODY TEXT") +
			"/OC /L1 BDC\nBT\n/F1 18 Tf\n72 660 Td\n(LAYER TEXT SHOWN) Tj\nET\nEMC\n",
	})
	w.obj(6, "<< /Type /OCG /Name (Visible layer) >>")
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genIncremental(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{content: textLines("ORIGINAL REVISION TEXT")})
	prev := w.xrefTable(nil, "/Root 1 0 R")

	// Incremental update: a new content stream and a new version of the
	// page object pointing at it. Object 5 stays in the file, unreferenced.
	w.stream(6, "", []byte(textLines("UPDATED REVISION TEXT")))
	w.obj(3, fmt.Sprintf("<< /Type /Page /Parent 2 0 R %s /Resources << /Font << /F1 4 0 R >> >> /Contents 6 0 R >>", pageBox))
	w.xrefTable([]int{3, 6}, fmt.Sprintf("/Root 1 0 R /Prev %d", prev))
	return w.bytes()
}

func genPlaceholder(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{content: textLines("Contract body line", "Sign here: {{signature}}")})
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genAcroForm(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		catalog: "/AcroForm 6 0 R",
		page:    "/Annots [7 0 R 9 0 R]",
		content: textLines("FORM DOCUMENT"),
	})
	w.obj(6, "<< /Fields [7 0 R 9 0 R] /DR << /Font << /Helv 4 0 R >> >> /DA (/Helv 0 Tf 0 g) >>")
	// Text field, merged field and widget.
	w.obj(7, "<< /Type /Annot /Subtype /Widget /FT /Tx /T (amount) /V (FORM VALUE 123) /DA (/Helv 14 Tf 0 g) "+
		"/Rect [72 600 372 630] /F 4 /P 3 0 R /MK << /BC [0 0 0] >> /AP << /N 8 0 R >> >>")
	w.stream(8, formXObject(300, 30, "<< /Font << /Helv 4 0 R >> >>"),
		[]byte("/Tx BMC\nq\n0 G 1 w 0.5 0.5 299 29 re S\nBT\n/Helv 14 Tf 0 g\n4 10 Td\n(FORM VALUE 123) Tj\nET\nQ\nEMC\n"))
	// Check box, checked.
	w.obj(9, "<< /Type /Annot /Subtype /Widget /FT /Btn /T (agree) /V /Yes /AS /Yes "+
		"/Rect [72 540 92 560] /F 4 /P 3 0 R /MK << /BC [0 0 0] >> /AP << /N << /Yes 10 0 R /Off 11 0 R >> >> >>")
	w.stream(10, formXObject(20, 20, ""),
		[]byte("q\n0 G 1 w 0.5 0.5 19 19 re S\n0 g 4 4 12 12 re f\n0 G 2 w 3 3 m 17 17 l S 3 17 m 17 3 l S\nQ\n"))
	w.stream(11, formXObject(20, 20, ""), []byte("q\n0 G 1 w 0.5 0.5 19 19 re S\nQ\n"))
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genAnnotations(name string) []byte {
	w := newWriter(name, "1.7")
	helv := "<< /Font << /Helv 4 0 R >> >>"
	w.onePage(page{
		page:    "/Annots [6 0 R 8 0 R 10 0 R 12 0 R 13 0 R 14 0 R]",
		content: textLines("ANNOTATED DOCUMENT"),
	})
	// Visible FreeText.
	w.obj(6, "<< /Type /Annot /Subtype /FreeText /Rect [72 600 372 630] /Contents (ANNOTATION TEXT) "+
		"/DA (/Helv 14 Tf 0 g) /F 4 /P 3 0 R /AP << /N 7 0 R >> >>")
	w.stream(7, formXObject(300, 30, helv),
		[]byte("BT\n/Helv 14 Tf 0 g\n4 10 Td\n(ANNOTATION TEXT) Tj\nET\n"))
	// Square with a red outline.
	w.obj(8, "<< /Type /Annot /Subtype /Square /Rect [72 450 172 550] /C [1 0 0] /BS << /W 2 >> "+
		"/Contents (Red square) /F 4 /P 3 0 R /AP << /N 9 0 R >> >>")
	w.stream(9, formXObject(100, 100, ""), []byte("q\n1 0 0 RG 2 w\n1 1 98 98 re S\nQ\n"))
	// Hidden FreeText (/F 2 = Hidden).
	w.obj(10, "<< /Type /Annot /Subtype /FreeText /Rect [72 380 372 410] /Contents (HIDDEN ANNOTATION) "+
		"/DA (/Helv 14 Tf 0 g) /F 2 /P 3 0 R /AP << /N 11 0 R >> >>")
	w.stream(11, formXObject(300, 30, helv),
		[]byte("BT\n/Helv 14 Tf 0 g\n4 10 Td\n(HIDDEN ANNOTATION) Tj\nET\n"))
	// Sticky note with its popup.
	w.obj(12, "<< /Type /Annot /Subtype /Text /Rect [400 700 420 720] /Contents (Sticky note comment) "+
		"/T (Reviewer) /Name /Comment /Open false /F 28 /P 3 0 R /Popup 13 0 R >>")
	w.obj(13, "<< /Type /Annot /Subtype /Popup /Rect [420 600 600 700] /Parent 12 0 R /Open false /F 28 /P 3 0 R >>")
	// Link to a web address.
	w.obj(14, "<< /Type /Annot /Subtype /Link /Rect [72 300 272 330] /Border [0 0 0] /F 4 /P 3 0 R "+
		"/A << /S /URI /URI (https://example.com/) >> >>")
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genJavaScript(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		catalog: `/OpenAction << /S /JavaScript /JS (app.alert\('opened'\)) >> ` +
			`/Names << /JavaScript 6 0 R >> ` +
			`/AA << /WC << /S /JavaScript /JS (app.alert\('closing'\)) >> >>`,
		page:    `/AA << /O << /S /JavaScript /JS (app.alert\('page opened'\)) >> >> /Annots [8 0 R 9 0 R]`,
		content: textLines("SCRIPTED DOCUMENT"),
	})
	w.obj(6, "<< /Names [(docscript) 7 0 R] >>")
	w.obj(7, `<< /S /JavaScript /JS (app.alert\('document script'\)) >>`)
	w.obj(8, `<< /Type /Annot /Subtype /Link /Rect [72 600 272 630] /Border [0 0 0] /F 4 /P 3 0 R `+
		`/A << /S /JavaScript /JS (app.alert\('link clicked'\)) >> >>`)
	w.obj(9, `<< /Type /Annot /Subtype /Link /Rect [72 560 272 590] /Border [0 0 0] /F 4 /P 3 0 R `+
		`/A << /S /Launch /F (calc.exe) /Win << /F (calc.exe) >> /NewWindow true >> >>`)
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genEmbedded(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		catalog: "/Names << /EmbeddedFiles << /Names [(secret.txt) 6 0 R] >> >>",
		page:    "/Annots [8 0 R]",
		content: textLines("DOCUMENT WITH ATTACHMENT"),
	})
	secret := []byte("EMBEDDED SECRET")
	w.obj(6, "<< /Type /Filespec /F (secret.txt) /UF (secret.txt) /Desc (Document-level attachment) /EF << /F 7 0 R >> >>")
	w.stream(7, fmt.Sprintf("/Type /EmbeddedFile /Subtype /text#2Fplain /Params << /Size %d >>", len(secret)), secret)
	w.obj(8, "<< /Type /Annot /Subtype /FileAttachment /Rect [72 600 92 620] /Contents (Attached file) "+
		"/Name /PushPin /F 4 /P 3 0 R /FS 9 0 R >>")
	w.obj(9, "<< /Type /Filespec /F (annotation.txt) /UF (annotation.txt) /EF << /F 10 0 R >> >>")
	attached := []byte("ANNOTATION ATTACHMENT SECRET")
	w.stream(10, fmt.Sprintf("/Type /EmbeddedFile /Subtype /text#2Fplain /Params << /Size %d >>", len(attached)), attached)
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

const xdp = `<?xml version="1.0" encoding="UTF-8"?>
<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/">
<template xmlns="http://www.xfa.org/schema/xfa-template/3.3/">
<subform name="form1" layout="tb" locale="en_US">
<pageSet>
<pageArea name="Page1" id="Page1">
<contentArea x="0.25in" y="0.25in" w="8in" h="10.5in"/>
<medium stock="letter" short="8.5in" long="11in"/>
</pageArea>
</pageSet>
<subform w="8in" h="10.5in">
<draw name="Text1" x="1in" y="1in" w="6in" h="0.5in">
<value><text>XFA DYNAMIC CONTENT</text></value>
<font typeface="Helvetica" size="18pt"/>
</draw>
</subform>
</subform>
</template>
<xfa:datasets xmlns:xfa="http://www.xfa.org/schema/xfa-data/1.0/">
<xfa:data/>
</xfa:datasets>
</xdp:xdp>
`

func genXFA(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		catalog: "/AcroForm << /Fields [] /XFA 6 0 R >> /NeedsRendering true",
		content: textLines("XFA PLACEHOLDER PAGE"),
	})
	w.stream(6, "", []byte(xdp))
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genObjStmBomb(name string) []byte {
	w := newWriter(name, "1.5")
	// Object 7 lives only inside the object stream (6) and is used by the
	// page content through /ExtGState, so rendering the page needs it.
	w.onePage(page{
		resources: "/ExtGState << /GS0 7 0 R >>",
		content:   "/GS0 gs\n" + textLines("OBJECT STREAM BOMB"),
	})
	object := "<< /Type /ExtGState /CA 1 /ca 1 >>"
	w.packObjectSeven(func(z io.Writer, header string) {
		io.WriteString(z, object)
		writeRepeated(z, ' ', objStmBombSize-len(header)-len(object))
	})
	return w.bytes()
}

// packObjectSeven ends a one-page file whose object 7 lives only in an object stream (6),
// Flate-compressed at best: body writes the object (after its header), then a cross-reference
// stream (8) lists it.
func (w *writer) packObjectSeven(body func(z io.Writer, header string)) {
	header := "7 0 "
	var comp bytes.Buffer
	z, err := zlib.NewWriterLevel(&comp, zlib.BestCompression)
	if err != nil {
		log.Fatal(err)
	}
	io.WriteString(z, header)
	body(z, header)
	if err := z.Close(); err != nil {
		log.Fatal(err)
	}
	w.stream(6, fmt.Sprintf("/Type /ObjStm /N 1 /First %d /Filter /FlateDecode", len(header)), comp.Bytes())
	w.compressed[7] = [2]int{6, 0}
	w.xrefStream(8, "/Root 1 0 R")
}

// genArrayBomb packs one array of 30 million numbers into an object stream: 60 MB decoded,
// under any per-stream limit, about 60 KB on disk, and gigabytes for a parser that holds each
// number as an object.
func genArrayBomb(name string) []byte {
	w := newWriter(name, "1.5")
	w.onePage(page{
		resources: "/Properties << /P0 7 0 R >>",
		content:   textLines("ARRAY BOMB"),
	})
	w.packObjectSeven(func(z io.Writer, _ string) {
		io.WriteString(z, "[")
		for range arrayBombNumbers / 1000 {
			io.WriteString(z, strings.Repeat("0 ", 1000))
		}
		io.WriteString(z, "]")
	})
	return w.bytes()
}

func genContentBomb(name string) []byte {
	w := newWriter(name, "1.7")
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, fmt.Sprintf("<< /Type /Page /Parent 2 0 R %s /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>", pageBox))
	w.obj(4, fontHelvetica)
	prefix := "BT /F1 12 Tf 72 720 Td (BOMB) Tj ET\n"
	var comp bytes.Buffer
	z, err := zlib.NewWriterLevel(&comp, zlib.BestCompression)
	if err != nil {
		log.Fatal(err)
	}
	io.WriteString(z, prefix)
	writeRepeated(z, ' ', contentBombSize-len(prefix))
	if err := z.Close(); err != nil {
		log.Fatal(err)
	}
	w.stream(5, "/Filter /FlateDecode", comp.Bytes())
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genContentBombNested(name string) []byte {
	w := newWriter(name, "1.7")
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	w.obj(3, fmt.Sprintf("<< /Type /Page /Parent 2 0 R %s /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>", pageBox))
	w.obj(4, fontHelvetica)
	inner := zlibSpaces("BT /F1 12 Tf 72 720 Td (BOMB) Tj ET\n", nestedBombSize)
	w.stream(5, "/Filter [/FlateDecode /FlateDecode]", deflate(inner))
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

// zlibSpaces returns a zlib stream that inflates to prefix followed by
// spaces, total bytes in all. compress/flate starts a new block every few
// thousand tokens, which keeps its output from being uniform enough to
// compress well a second time. Instead this writes the prefix as a stored
// block and the spaces as a single dynamic-Huffman block in which each
// 258-byte copy takes two bits, so the stream is a short repeating pattern
// that shrinks about a thousandfold when deflated again.
func zlibSpaces(prefix string, total int) []byte {
	var out bytes.Buffer
	out.Write([]byte{0x78, 0xda}) // zlib header: deflate, 32K window, best compression
	bw := &bitWriter{out: &out}

	// Block 1: stored, not final, holding the prefix.
	bw.bits(0, 1)
	bw.bits(0, 2)
	bw.align()
	bw.bits(uint64(len(prefix)), 16)
	bw.bits(uint64(^uint16(len(prefix))), 16)
	for i := 0; i < len(prefix); i++ {
		bw.bits(uint64(prefix[i]), 8)
	}

	// Block 2: dynamic Huffman, final. Literal/length alphabet uses only
	// ' ' (32), end of block (256) and length 258 (285); distances use
	// codes 0 (distance 1) and 1 (distance 2, unused, keeps the code complete).
	const space, endOfBlock, len258 = 32, 256, 285
	litLens := make([]uint, 286)
	litLens[space], litLens[endOfBlock], litLens[len258] = 2, 2, 1
	distLens := []uint{1, 1}
	// Code-length alphabet: 1 and 2 for the lengths above, 18 for runs of zeros.
	clLens := make([]uint, 19)
	clLens[1], clLens[2], clLens[18] = 2, 2, 1
	clOrder := []int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
	ncl := len(clOrder)
	for ncl > 4 && clLens[clOrder[ncl-1]] == 0 {
		ncl--
	}
	bw.bits(1, 1)
	bw.bits(2, 2)
	bw.bits(uint64(len(litLens)-257), 5)
	bw.bits(uint64(len(distLens)-1), 5)
	bw.bits(uint64(ncl-4), 4)
	for _, sym := range clOrder[:ncl] {
		bw.bits(uint64(clLens[sym]), 3)
	}
	clCodes := canonicalCodes(clLens)
	all := append(append([]uint{}, litLens...), distLens...)
	for i := 0; i < len(all); {
		if all[i] != 0 {
			bw.code(clCodes[all[i]])
			i++
			continue
		}
		run := 0
		for i+run < len(all) && all[i+run] == 0 {
			run++
		}
		i += run
		for run > 0 {
			k := min(run, 138)
			if k < 11 {
				log.Fatalf("zlibSpaces: zero run of %d needs code 17", k)
			}
			bw.code(clCodes[18])
			bw.bits(uint64(k-11), 7)
			run -= k
		}
	}
	litCodes := canonicalCodes(litLens)
	distCodes := canonicalCodes(distLens)
	// The first space has nothing to copy from, so it is a literal. The
	// rest repeats a 24-bit unit of eleven copies and one literal: the
	// stream stays periodic (every 3 bytes) and compresses well again,
	// while the output per 64 KiB of input is not a multiple of 64 KiB.
	// With a 1-byte period it would be, and zlib-based readers that
	// inflate in 64 KiB pieces (qpdf) would hit a no-progress inflate
	// call at the end of every piece and warn about it.
	n := total - len(prefix)
	bw.code(litCodes[space])
	n--
	const copies = 11
	for ; n >= copies*258+1; n -= copies*258 + 1 {
		for i := 0; i < copies; i++ {
			bw.code(litCodes[len258]) // length 258, no extra bits
			bw.code(distCodes[0])     // distance 1, no extra bits
		}
		bw.code(litCodes[space])
	}
	for ; n >= 258; n -= 258 {
		bw.code(litCodes[len258])
		bw.code(distCodes[0])
	}
	for ; n > 0; n-- {
		bw.code(litCodes[space])
	}
	bw.code(litCodes[endOfBlock])
	bw.align()

	sum := adler32.New()
	io.WriteString(sum, prefix)
	writeRepeated(sum, ' ', total-len(prefix))
	out.Write(sum.Sum(nil)) // big-endian, as zlib wants
	return out.Bytes()
}

// huffCode is a canonical Huffman code of the given bit length.
type huffCode struct {
	code uint32
	len  uint
}

// canonicalCodes assigns canonical Huffman codes to code lengths (RFC 1951, 3.2.2).
func canonicalCodes(lengths []uint) []huffCode {
	var count [16]uint32
	for _, l := range lengths {
		if l > 0 {
			count[l]++
		}
	}
	var next [16]uint32
	code := uint32(0)
	for l := 1; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	codes := make([]huffCode, len(lengths))
	for sym, l := range lengths {
		if l > 0 {
			codes[sym] = huffCode{next[l], l}
			next[l]++
		}
	}
	return codes
}

// bitWriter writes a DEFLATE bit stream, least significant bit first.
type bitWriter struct {
	out *bytes.Buffer
	acc uint64
	n   uint
}

func (b *bitWriter) bits(v uint64, n uint) {
	b.acc |= v << b.n
	b.n += n
	for b.n >= 8 {
		b.out.WriteByte(byte(b.acc))
		b.acc >>= 8
		b.n -= 8
	}
}

// code writes a Huffman code, which DEFLATE packs most significant bit first.
func (b *bitWriter) code(c huffCode) {
	var r uint64
	for i := uint(0); i < c.len; i++ {
		r = r<<1 | uint64(c.code>>i&1)
	}
	b.bits(r, c.len)
}

func (b *bitWriter) align() {
	if b.n > 0 {
		b.bits(0, 8-b.n)
	}
}

func genImageBomb(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		resources: "/XObject << /Im0 6 0 R >>",
		content:   "q\n612 0 0 792 0 0 cm\n/Im0 Do\nQ\n" + textLines("IMAGE BOMB"),
	})
	// Only the first rows are present; the declared size is what a
	// decoder would allocate for (60000 * 60000 * 3 bytes).
	var comp bytes.Buffer
	z, err := zlib.NewWriterLevel(&comp, zlib.BestCompression)
	if err != nil {
		log.Fatal(err)
	}
	writeRepeated(z, 0, imageBombDimension*3*imageBombRows)
	if err := z.Close(); err != nil {
		log.Fatal(err)
	}
	w.stream(6, fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /FlateDecode",
		imageBombDimension, imageBombDimension), comp.Bytes())
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genXRefStreamPlain(name string) []byte {
	w := newWriter(name, "1.5")
	w.onePage(page{content: textLines("PLAIN XREF STREAM")})
	w.xrefStream(6, "/Root 1 0 R")
	return w.bytes()
}

func genPages300(name string) []byte {
	w := newWriter(name, "1.7")
	// 1 catalog, 2 pages, 3 font, then page i uses 2i+2 (page) and 2i+3 (content).
	kids := make([]string, pagesCount)
	for i := 1; i <= pagesCount; i++ {
		kids[i-1] = fmt.Sprintf("%d 0 R", 2*i+2)
	}
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pagesCount))
	w.obj(3, fontHelvetica)
	for i := 1; i <= pagesCount; i++ {
		w.obj(2*i+2, fmt.Sprintf("<< /Type /Page /Parent 2 0 R %s /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", pageBox, 2*i+3))
		w.stream(2*i+3, "/Filter /FlateDecode", deflate([]byte(textLines(fmt.Sprintf("Page %d of %d", i, pagesCount)))))
	}
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genClean(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{content: textLines("CLEAN DOCUMENT", "Signature: {{sig}}")})
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}
