package pdf

import (
	"bufio"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// checkStreams decodes every stream once, under the per-stream and per-document limits, and
// checks the size every image declares. Decoded bytes are dropped straight away: only the
// encoded ones are written back.
func (n *normalizer) checkStreams() error {
	var total int64
	for _, nr := range slices.Sorted(maps.Keys(n.ctx.Table)) {
		e := n.ctx.Table[nr]
		if e == nil || e.Free || e.Object == nil {
			continue
		}
		sd, ok := e.Object.(types.StreamDict)
		if !ok {
			continue
		}
		if t := sd.Subtype(); t != nil && *t == "Image" {
			w, h := sd.IntEntry("Width"), sd.IntEntry("Height")
			if w != nil && h != nil && int64(*w)*int64(*h) > n.limits.ImagePixels {
				return fmt.Errorf("%w: an image of %d × %d pixels, more than %d", ErrLimit, *w, *h, n.limits.ImagePixels)
			}
			if imageCodec(sd) {
				continue // decoded by the renderer only, within the pixel limit just checked
			}
		}
		if len(sd.FilterPipeline) == 0 {
			total += int64(len(sd.Raw))
			continue
		}
		if err := sd.DecodeWithLimit(n.limits.StreamBytes); err != nil {
			if errors.Is(err, filter.ErrDecodeLimitExceeded) {
				return fmt.Errorf("%w: object %d decodes to more than %s", ErrLimit, nr, mib(n.limits.StreamBytes))
			}
			// A stream pdfcpu cannot decode whole (a damaged checksum, say) still costs the
			// renderer what it inflates to: it is counted as a lenient reader reads it.
			size, err := lenientSize(sd, n.limits.StreamBytes)
			if err != nil {
				return fmt.Errorf("%w: object %d: %w", ErrLimit, nr, err)
			}
			total += size
			if total > n.limits.DocumentBytes {
				return fmt.Errorf("%w: the document's streams decode to more than %s", ErrLimit, mib(n.limits.DocumentBytes))
			}
			continue
		}
		if bytes.Contains(sd.Content, []byte("/OCMD")) {
			// A membership dictionary written in a content stream: its visibility is not one
			// every reader decides the same way.
			return fmt.Errorf("%w: optional content membership written inside a content stream", ErrUnsupported)
		}
		total += int64(len(sd.Content))
		if total > n.limits.DocumentBytes {
			return fmt.Errorf("%w: the document's streams decode to more than %s", ErrLimit, mib(n.limits.DocumentBytes))
		}
		sd.Content = nil
		e.Object = sd
	}
	return nil
}

// lenientSize is how many bytes a reader that ignores checksums inflates a Flate stream to
// (every filter is counted as Flate, the only one that inflates much), or an error past limit.
func lenientSize(sd types.StreamDict, limit int64) (int64, error) {
	var size int64
	r := io.Reader(bytes.NewReader(sd.Raw))
	for _, f := range sd.FilterPipeline {
		if f.Name != filter.Flate {
			return int64(len(sd.Raw)), nil
		}
		fr := flate.NewReader(skipZlibHeader(r))
		var buf bytes.Buffer
		n, _ := io.Copy(&buf, io.LimitReader(fr, limit+1))
		if n > limit {
			return 0, fmt.Errorf("it decodes to more than %s", mib(limit))
		}
		size = n
		r = &buf
	}
	return size, nil
}

// skipZlibHeader drops the two bytes of a zlib header, when there is one.
func skipZlibHeader(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if h, err := br.Peek(2); err == nil && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		_, _ = br.Discard(2)
	}
	return br
}

// imageCodec reports whether an image stream ends in a filter that only image decoders undo.
func imageCodec(sd types.StreamDict) bool {
	if len(sd.FilterPipeline) == 0 {
		return false
	}
	switch sd.FilterPipeline[len(sd.FilterPipeline)-1].Name {
	case filter.DCT, filter.JPX, filter.JBIG2, filter.CCITTFax:
		return true
	}
	return false
}
