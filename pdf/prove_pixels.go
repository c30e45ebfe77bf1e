package pdf

import (
	"bytes"
	"fmt"
	"image"
	"sync"

	"github.com/klippa-app/go-pdfium/references"
)

// drawing is the three documents of a proof, open in one PDFium instance, and the canvas their
// pages are drawn on.
type drawing struct {
	canvas                 *canvas
	shown, sealed, overlay references.FPDF_DOCUMENT
}

// samePixels draws page nr of both documents and compares them outside the boxes, and the sealed
// page with overlay page onr inside them. The shown page's image is kept in a buffer reused from
// one page and one proof to the next, and of the overlay's only the boxes are kept: copying
// whole pages cost a tenth of a one-page seal's proof.
func (d drawing) samePixels(nr, onr int, p page, boxes []Match) error {
	dw, _ := p.displaySize()
	width := min(max(int(dw*proofScale), 1), MaxRenderWidth)
	buf := pageBuffers.Get().(*[]byte)
	defer pageBuffers.Put(buf)
	var before *image.RGBA
	if err := d.canvas.draw(d.shown, nr, width, func(img *image.RGBA) error {
		before = copyRGBA(img, buf)
		return nil
	}); err != nil {
		return fmt.Errorf("draw page %d of the shown document: %w", nr, err)
	}
	b := before.Bounds()
	// The overlay page has the page's displayed size to half a point (pdf.Stamp checks it), so
	// its image may be a pixel taller or wider: its fields are compared where both images are.
	// Its size is checked after the sealed page is compared outside the fields, as the reasons
	// the proof fails for come in that order.
	var fields []*image.RGBA
	var overlaySize error
	if err := d.canvas.draw(d.overlay, onr, width, func(img *image.RGBA) error {
		sb := img.Bounds()
		if d := sb.Size().Sub(b.Size()); d.X < -2 || d.X > 2 || d.Y < -2 || d.Y > 2 {
			overlaySize = fmt.Errorf("%w: page %d: the overlay draws %v instead of %v", ErrNotShown, nr, sb.Size(), b.Size())
			return nil
		}
		for _, box := range inside(b.Intersect(sb), boxes) {
			fields = append(fields, copyRGBA(img.SubImage(box).(*image.RGBA), new([]byte)))
		}
		return nil
	}); err != nil {
		return fmt.Errorf("draw overlay page %d: %w", onr, err)
	}
	return d.canvas.draw(d.sealed, nr, width, func(after *image.RGBA) error {
		if after.Bounds() != b {
			return fmt.Errorf("%w: page %d draws %v instead of %v", ErrNotShown, nr, after.Bounds().Size(), b.Size())
		}
		diff, first := differOutside(before, after, masked(b, boxes))
		if diff > 0 {
			return fmt.Errorf("%w: page %d: %d pixels differ outside the stamped fields, the first at %d%% across and %d%% down",
				ErrNotShown, nr, diff, 100*first.X/b.Dx(), 100*first.Y/b.Dy())
		}
		if overlaySize != nil {
			return overlaySize
		}
		for i, stamp := range fields {
			box := stamp.Bounds()
			total, differ := 0, 0
			for y := box.Min.Y; y < box.Max.Y; y++ {
				for x := box.Min.X; x < box.Max.X; x++ {
					total++
					k, o := after.PixOffset(x, y), stamp.PixOffset(x, y)
					if channelsDiffer(stamp.Pix[o:o+4], after.Pix[k:k+4]) {
						differ++
					}
				}
			}
			if total > 0 && float64(differ) > proofInsideShare*float64(total) {
				return fmt.Errorf("%w: page %d: field %d does not show its stamp (%d of %d pixels differ)", ErrNotShown, nr, i+1, differ, total)
			}
		}
		return nil
	})
}

// pageBuffers holds the buffers the shown pages' images are copied into.
var pageBuffers = sync.Pool{New: func() any { return new([]byte) }}

// copyRGBA copies img into *buf, grown as needed, and returns the copy, with img's bounds.
func copyRGBA(img *image.RGBA, buf *[]byte) *image.RGBA {
	r := img.Bounds()
	stride := 4 * r.Dx()
	n := stride * r.Dy()
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	out := &image.RGBA{Pix: (*buf)[:n], Stride: stride, Rect: r}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i := img.PixOffset(r.Min.X, y)
		copy(out.Pix[(y-r.Min.Y)*stride:], img.Pix[i:i+stride])
	}
	return out
}

// inside returns each box in pixels, shrunk by the anti-aliasing margin and cut to the image.
func inside(b image.Rectangle, boxes []Match) []image.Rectangle {
	w, h := float64(b.Dx()), float64(b.Dy())
	out := make([]image.Rectangle, 0, len(boxes))
	for _, m := range boxes {
		r := image.Rect(int(m.X/100*w)+proofMarginPx, int(m.Y/100*h)+proofMarginPx,
			int((m.X+m.Width)/100*w)-proofMarginPx, int((m.Y+m.Height)/100*h)-proofMarginPx)
		out = append(out, r.Intersect(b))
	}
	return out
}

// masked returns the boxes in pixels, grown by the proof's margins: the pixels not compared.
func masked(b image.Rectangle, boxes []Match) []image.Rectangle {
	w, h := float64(b.Dx()), float64(b.Dy())
	// proofScale pixels per point: the margin in points, in pixels.
	pad := proofMarginPt*proofScale + proofMarginPx
	var rs []image.Rectangle
	for _, m := range boxes {
		x0, y0 := m.X/100*w-pad, m.Y/100*h-pad
		x1, y1 := (m.X+m.Width)/100*w+pad, (m.Y+m.Height)/100*h+pad
		rs = append(rs, image.Rect(int(x0), int(y0), int(x1)+1, int(y1)+1))
	}
	return rs
}

// differOutside counts the pixels outside the masked rectangles whose channels differ between
// before and after (images of the same bounds and layout), and returns the first of them in
// reading order. Each row is cut into the runs between masked rectangles; a run whose bytes are
// equal has no pixel that differs, and only the others are compared pixel by pixel.
func differOutside(before, after *image.RGBA, mask []image.Rectangle) (diff int, first image.Point) {
	b := before.Bounds()
	var cuts [][2]int // the masked columns of the row, [from, to)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		cuts = cuts[:0]
		for _, r := range mask {
			if y >= r.Min.Y && y < r.Max.Y && r.Min.X < r.Max.X {
				cuts = append(cuts, [2]int{r.Min.X, r.Max.X})
			}
		}
		for x := b.Min.X; x < b.Max.X; {
			if end, ok := maskedUntil(cuts, x); ok {
				x = end
				continue
			}
			next := b.Max.X
			for _, c := range cuts {
				if c[0] > x && c[0] < next {
					next = c[0]
				}
			}
			i, j := before.PixOffset(x, y), before.PixOffset(next, y)
			if !bytes.Equal(before.Pix[i:j], after.Pix[i:j]) {
				for k := x; k < next; k++ {
					o := before.PixOffset(k, y)
					if channelsDiffer(before.Pix[o:o+4], after.Pix[o:o+4]) {
						if diff == 0 {
							first = image.Pt(k, y)
						}
						diff++
					}
				}
			}
			x = next
		}
	}
	return diff, first
}

// maskedUntil reports whether column x is in one of the cuts, and where the first such cut ends.
func maskedUntil(cuts [][2]int, x int) (int, bool) {
	for _, c := range cuts {
		if c[0] <= x && x < c[1] {
			return c[1], true
		}
	}
	return 0, false
}

func channelsDiffer(a, b []uint8) bool {
	for i := range 4 {
		d := int(a[i]) - int(b[i])
		if d > proofChannel || d < -proofChannel {
			return true
		}
	}
	return false
}
