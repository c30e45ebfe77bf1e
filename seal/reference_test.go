package seal_test

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite seal/testdata/sealed-page1.png from this run (review the image before committing it)")

// The sealed first page, rendered by poppler's pdftoppm at 50 dpi, matches the reviewed reference
// image. Tolerance: a pixel differs when a channel differs by more than 48 of 255 (anti-aliasing
// and font hinting move edges by a shade); at most 0.5% of the pixels may differ, which a missing
// or moved value (hundreds of pixels) exceeds.
func TestSealedPageMatchesTheReference(t *testing.T) {
	out, err := sealOnce(t)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "sealed.pdf")
	if err := os.WriteFile(file, out, 0o600); err != nil {
		t.Fatal(err)
	}
	if msg, err := run(t, "pdftoppm", "-r", "50", "-f", "1", "-l", "1", "-png", "-singlefile", file, filepath.Join(dir, "page")); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, msg)
	}
	got, err := os.ReadFile(filepath.Join(dir, "page.png"))
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join("testdata", "sealed-page1.png")
	if *update {
		if err := os.WriteFile(ref, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", ref)
		return
	}
	want, err := os.ReadFile(ref)
	if err != nil {
		t.Fatalf("no reference image (go test ./seal -run Reference -update): %v", err)
	}
	a, err := png.Decode(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	b, err := png.Decode(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if a.Bounds() != b.Bounds() {
		t.Fatalf("page size %v, reference %v", a.Bounds(), b.Bounds())
	}
	if n, total := differing(a, b, 48*257); float64(n) > 0.005*float64(total) {
		t.Fatalf("%d of %d pixels differ from the reference (more than 0.5%%)", n, total)
	}
}

func differing(a, b image.Image, tol uint32) (n, total int) {
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			if diff(r1, r2) > tol || diff(g1, g2) > tol || diff(b1, b2) > tol {
				n++
			}
			total++
		}
	}
	return n, total
}
