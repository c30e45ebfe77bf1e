package pdf

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
)

// maxFlateLayers is how many Flate encodings of one stream inside one another preflight undoes
// ([/FlateDecode /FlateDecode ...]); deeper layers are left to the parser's own limit.
const maxFlateLayers = 4

// preflight refuses a document whose Flate streams decode to more than the limits allow before
// any parser holds one of them in memory. It measures each one by decoding it into a counter,
// in constant memory (a few tens of KiB), and stops as soon as a limit is passed, so a bomb
// costs its input and at most the limit's worth of decompression time.
//
// It does not parse the document: every stream's data starts right after a `stream` keyword and
// its end of line (PDF 32000 7.3.8.1; pdfcpu also allows spaces before it, or no end of line at
// all: streamData), so preflight decodes from every such place whose bytes
// begin with a zlib header, layer after layer while the decoded bytes begin with one too. It can
// only count more than the parser will decode (a stream of an older revision, a keyword inside
// other data that happens to be followed by zlib data), never less, for Flate. Other filters
// that expand (LZW, run length) are bounded by the parser's own per-stream limit, which costs
// up to about three times the limit in memory while it decodes.
func preflight(data []byte, l Limits) error {
	var total int64
	var m measurer
	keyword := []byte("stream")
	for at := 0; ; {
		i := bytes.Index(data[at:], keyword)
		if i < 0 {
			return nil
		}
		start := at + i + len(keyword)
		at = start
		if bytes.HasSuffix(data[:start], []byte("endstream")) {
			continue
		}
		start = streamData(data, start)
		n := m.size(data[start:], l.StreamBytes+1)
		if n > l.StreamBytes {
			return fmt.Errorf("%w: the stream at byte %d decodes to more than %s", ErrLimit, start, mib(l.StreamBytes))
		}
		if total += n; total > l.DocumentBytes {
			return fmt.Errorf("%w: the document's streams decode to more than %s", ErrLimit, mib(l.DocumentBytes))
		}
	}
}

// streamData is where a stream's data begins after a `stream` keyword that ends at start, as
// pdfcpu reads it: after any spaces, then an end of line (CR LF, LF or CR) if there is one.
func streamData(data []byte, start int) int {
	for start < len(data) && data[start] == ' ' {
		start++
	}
	switch {
	case bytes.HasPrefix(data[start:], []byte("\r\n")):
		return start + 2
	case bytes.HasPrefix(data[start:], []byte("\n")), bytes.HasPrefix(data[start:], []byte("\r")):
		return start + 1
	}
	return start
}

// measurer measures zlib data (see size), reusing its decoders from one stream to the next: a
// file of many tiny streams costs their bytes, not a decoder's allocation each.
type measurer struct {
	src    bytes.Reader
	layers [maxFlateLayers]struct {
		buf *bufio.Reader
		z   io.Reader
		c   counter
	}
}

// size is how many bytes the zlib data at the start of b decodes to, counting at most limit;
// 0 when b does not start with zlib data. While the decoded bytes start with a zlib header too,
// up to maxFlateLayers layers are undone, and the size is the largest layer's: a layer that only
// looks like zlib data and fails does not hide the size of the one around it. A corrupt stream
// counts what decoded before the damage.
func (m *measurer) size(b []byte, limit int64) int64 {
	if !zlibHeader(b) {
		return 0
	}
	m.src.Reset(b)
	var below io.Reader = &m.src
	n := 0
	for n < maxFlateLayers {
		l := &m.layers[n]
		if l.buf == nil {
			l.buf = bufio.NewReaderSize(below, 512)
		} else {
			l.buf.Reset(below)
		}
		if n > 0 {
			if head, _ := l.buf.Peek(2); !zlibHeader(head) {
				break
			}
		}
		var err error
		if l.z == nil {
			l.z, err = zlib.NewReader(l.buf)
		} else {
			err = l.z.(zlib.Resetter).Reset(l.buf, nil)
		}
		if err != nil {
			l.z = nil
			break
		}
		l.c = counter{r: l.z}
		below = &l.c
		n++
	}
	// Drain from the innermost layer out: reading a layer pulls the ones around it, and each
	// outer layer then goes on from where the inner one stopped.
	var size int64
	for i := n - 1; i >= 0; i-- {
		c := &m.layers[i].c
		if c.n < limit {
			_, _ = io.Copy(io.Discard, io.LimitReader(c, limit-c.n))
		}
		size = max(size, c.n)
	}
	return min(size, limit)
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// zlibHeader reports whether b starts with a zlib header using Deflate (RFC 1950 2.2): method 8,
// a window of at most 32 KiB, a check that makes the first two bytes a multiple of 31, and no
// preset dictionary.
func zlibHeader(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	cmf, flg := b[0], b[1]
	return cmf&0x0f == 8 && cmf>>4 <= 7 && (uint16(cmf)<<8|uint16(flg))%31 == 0 && flg&0x20 == 0
}
