package main

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"sort"
	"strings"
)

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
