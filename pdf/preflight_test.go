package pdf

import (
	"bytes"
	"compress/zlib"
	"errors"
	"strings"
	"testing"
)

func deflate(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withStream is a file fragment holding one stream object whose data is data.
func withStream(eol string, data []byte) []byte {
	return append(append([]byte("1 0 obj\n<< /Filter /FlateDecode >>\nstream"+eol), data...), "\nendstream\nendobj\n"...)
}

func TestPreflightMeasuresFlateStreamsInConstantMemory(t *testing.T) {
	limits := Limits{StreamBytes: 1 << 20, DocumentBytes: 3 << 20}.orDefault()
	zeros := func(n int) []byte { return make([]byte, n) }
	inner := deflate(t, zeros(2<<20))
	// A zlib header followed by bytes no decoder accepts, then 2 MiB of zeros: the layer inside
	// fails at once, the layer around it is still measured.
	fake := append([]byte{0x78, 0x9c, 0xff, 0xff}, zeros(2<<20)...)
	cases := []struct {
		name string
		file []byte
		err  string // "" when accepted
	}{
		{"small stream", withStream("\n", deflate(t, zeros(1000))), ""},
		{"a stream at the limit", withStream("\n", deflate(t, zeros(1<<20))), ""},
		{"a stream over the limit", withStream("\n", deflate(t, zeros(1<<20+1))), "decodes to more than 1 MiB"},
		{"after CR LF", withStream("\r\n", deflate(t, zeros(2<<20))), "decodes to more than 1 MiB"},
		{"after CR", withStream("\r", deflate(t, zeros(2<<20))), "decodes to more than 1 MiB"},
		{"two layers", withStream("\n", deflate(t, inner)), "decodes to more than 1 MiB"},
		{"three layers", withStream("\n", deflate(t, deflate(t, inner))), "decodes to more than 1 MiB"},
		{"a layer that only looks like zlib", withStream("\n", deflate(t, fake)), "decodes to more than 1 MiB"},
		{"not Flate", withStream("\n", zeros(4<<20)), ""},
		// pdfcpu reads a stream's data after spaces and without an end of line too.
		{"spaces before the end of line", withStream("   \n", deflate(t, zeros(2<<20))), "decodes to more than 1 MiB"},
		{"no end of line after the keyword", withStream("", deflate(t, zeros(2<<20))), "decodes to more than 1 MiB"},
		{"four streams under the per-stream limit, over the document's",
			bytes.Repeat(withStream("\n", deflate(t, zeros(1<<20))), 4), "streams decode to more than 3 MiB"},
	}
	for _, c := range cases {
		err := preflight(c.file, limits)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (!errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want ErrLimit saying %q", c.name, err, c.err)
		}
	}
}

// The hostile corpus's bombs are refused by the preflight, before the parser allocates.
func BenchmarkPreflightRefusesABomb(b *testing.B) {
	bomb := withStream("\n", func() []byte {
		var buf bytes.Buffer
		w, _ := zlib.NewWriterLevel(&buf, zlib.BestCompression)
		_, _ = w.Write(make([]byte, 300<<20))
		_ = w.Close()
		return buf.Bytes()
	}())
	b.ReportAllocs()
	b.SetBytes(int64(len(bomb)))
	for b.Loop() {
		if err := preflight(bomb, DefaultLimits()); !errors.Is(err, ErrLimit) {
			b.Fatal(err)
		}
	}
}

// BenchmarkPreflightManyStreams measures a file that is nothing but tiny zlib streams: the cost
// per stream, not per byte, is what such a file multiplies.
func BenchmarkPreflightManyStreams(b *testing.B) {
	var one bytes.Buffer
	w := zlib.NewWriter(&one)
	_, _ = w.Write([]byte("x"))
	_ = w.Close()
	unit := withStream("\n", one.Bytes())
	data := bytes.Repeat(unit, (8<<20)/len(unit))
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := preflight(data, DefaultLimits()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data)/len(unit)), "streams")
}
