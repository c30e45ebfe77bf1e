package pdf

import (
	"image"
	"math/rand/v2"
	"testing"
)

// TestDifferOutside compares differOutside with its definition, pixel by pixel: every pixel
// outside the masked rectangles whose channels differ by more than proofChannel counts, the
// first in reading order is named, and nothing inside a rectangle counts.
func TestDifferOutside(t *testing.T) {
	bounds := image.Rect(0, 0, 40, 30)
	for _, c := range []struct {
		name    string
		mask    []image.Rectangle
		changes []image.Point
		by      int
	}{
		{"no change", []image.Rectangle{image.Rect(5, 5, 10, 10)}, nil, 200},
		{"a change under the mask", []image.Rectangle{image.Rect(5, 5, 10, 10)}, []image.Point{{5, 5}, {9, 9}}, 200},
		{"a change just past the mask", []image.Rectangle{image.Rect(5, 5, 10, 10)}, []image.Point{{10, 9}, {4, 5}, {9, 10}}, 200},
		{"a change within the tolerance", nil, []image.Point{{0, 0}, {39, 29}}, proofChannel},
		{"a change past the tolerance", nil, []image.Point{{39, 29}, {0, 0}}, proofChannel + 1},
		{"overlapping masks", []image.Rectangle{image.Rect(0, 0, 20, 5), image.Rect(10, 2, 30, 8)}, []image.Point{{19, 4}, {29, 7}, {30, 7}, {20, 1}}, 100},
		{"a mask past the image", []image.Rectangle{image.Rect(-5, -5, 50, 3)}, []image.Point{{0, 2}, {39, 3}}, 100},
		{"an empty mask", []image.Rectangle{image.Rect(7, 7, 7, 12)}, []image.Point{{7, 8}}, 100},
	} {
		before := image.NewRGBA(bounds)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range before.Pix {
			before.Pix[i] = byte(64 + rng.IntN(128))
		}
		after := copyRGBA(before, new([]byte))
		for _, p := range c.changes {
			i := after.PixOffset(p.X, p.Y)
			after.Pix[i+1] = byte(int(after.Pix[i+1]) + c.by)
		}
		wantDiff, wantFirst := 0, image.Point{}
		for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
			for x := bounds.Min.X; x < bounds.Max.X; x++ {
				in := false
				for _, r := range c.mask {
					in = in || image.Pt(x, y).In(r)
				}
				i := before.PixOffset(x, y)
				if !in && channelsDiffer(before.Pix[i:i+4], after.Pix[i:i+4]) {
					if wantDiff == 0 {
						wantFirst = image.Pt(x, y)
					}
					wantDiff++
				}
			}
		}
		diff, first := differOutside(before, after, c.mask)
		if diff != wantDiff || first != wantFirst {
			t.Errorf("%s: %d pixels differ, the first at %v; want %d at %v", c.name, diff, first, wantDiff, wantFirst)
		}
	}
}
