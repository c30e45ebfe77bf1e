package pdf

import (
	"reflect"
	"testing"

	"github.com/sobre-sign/sobre/internal/testpdf"
)

// TestPageTree checks that the one-walk index answers for every page what pdfcpu's PageDict
// answers (dictionary, reference, inherited attributes), and that it leaves to pdfcpu the trees
// whose walk pdfcpu could take another way.
func TestPageTree(t *testing.T) {
	const content = "<< /Length 0 >>\nstream\n\nendstream"
	for _, c := range []struct {
		name    string
		doc     []byte
		indexed bool
	}{
		{"flat", testpdf.Pages(7, "page"), true},
		{"nested, with inherited attributes", testpdf.File([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R 6 0 R 8 0 R] /Count 4 /MediaBox [0 0 600 800] /Rotate 90 /Resources << /Font << /F1 9 0 R >> >> >>",
			"<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 5 0 R] /Count 2 /CropBox [10 10 590 790] /Resources << /Font << /F2 9 0 R >> >> >>",
			"<< /Type /Page /Parent 3 0 R /Contents 7 0 R >>",
			"<< /Type /Page /Parent 3 0 R /Contents 7 0 R /MediaBox [0 0 300 400] /Rotate 0 >>",
			"<< /Type /Page /Parent 2 0 R /Contents 7 0 R /Resources << >> >>",
			content,
			"<< /Type /Pages /Count 1 /Kids [10 0 R] /Parent 2 0 R >>",
			"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
			"<< /Type /Page /Parent 8 0 R /Contents 7 0 R /Rotate 180 >>",
		}, 1), true},
		{"a /Count that does not add up", testpdf.File([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 3 /MediaBox [0 0 600 800] >>",
			"<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 5 0 R] /Count 1 /Rotate 90 >>",
			"<< /Type /Page /Parent 3 0 R /Contents 7 0 R >>",
			"<< /Type /Page /Parent 3 0 R /Contents 7 0 R >>",
			"<< /Type /Page /Parent 2 0 R /Contents 7 0 R >>",
			content,
		}, 1), false},
	} {
		ctx, _, err := read(c.doc)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tree := newPageTree(ctx)
		if (tree.pages != nil) != c.indexed {
			t.Errorf("%s: indexed = %v, want %v", c.name, tree.pages != nil, c.indexed)
		}
		for nr := 0; nr <= ctx.PageCount+1; nr++ {
			wd, wref, winh, werr := ctx.PageDict(nr, false)
			d, ref, inh, err := tree.page(nr)
			if (err == nil) != (werr == nil) || !reflect.DeepEqual(d, wd) || !reflect.DeepEqual(ref, wref) || !reflect.DeepEqual(inh, winh) {
				t.Errorf("%s, page %d: %v %v %+v %v; pdfcpu: %v %v %+v %v", c.name, nr, d, ref, inh, err, wd, wref, winh, werr)
			}
		}
	}
}
