package main

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"hash/adler32"
	"io"
	"log"
	"strings"
)

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
