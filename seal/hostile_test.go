package seal_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/pdf"
	"github.com/sobre-sign/sobre/seal"
)

// hostile is one document of testdata/hostile (see its README) and what Sobre must make of it.
type hostile struct {
	file    string
	refused error    // pdf.ErrLimit or pdf.ErrUnsupported, or nil when accepted
	shows   []string // text the normalised document shows (pdftotext)
	hides   []string // text it must not show
	absent  []string // PDF names that must not remain in the normalised file
}

var hostiles = []hostile{
	{file: "clean.pdf", shows: []string{"CLEAN DOCUMENT"}},
	{file: "ocg-hidden.pdf", refused: pdf.ErrUnsupported},
	{file: "ocg-visible.pdf", shows: []string{"LAYER TEXT SHOWN"}, absent: []string{"/OCProperties"}},
	{file: "incremental.pdf", shows: []string{"UPDATED REVISION TEXT"}, hides: []string{"ORIGINAL REVISION TEXT"}, absent: []string{"/Prev"}},
	{file: "placeholder.pdf", shows: []string{"Contract body line"}},
	{file: "acroform.pdf", shows: []string{"FORM DOCUMENT", "FORM VALUE 123"}, absent: []string{"/AcroForm", "/Annots", "/Widget"}},
	{file: "annotations.pdf", shows: []string{"ANNOTATED DOCUMENT", "ANNOTATION TEXT"}, hides: []string{"HIDDEN ANNOTATION"}, absent: []string{"/Annots", "/Popup", "/URI"}},
	{file: "javascript.pdf", shows: []string{"SCRIPTED DOCUMENT"}, absent: []string{"/JavaScript", "/JS", "/OpenAction", "/AA", "/Launch"}},
	{file: "embedded.pdf", shows: []string{"DOCUMENT WITH ATTACHMENT"}, hides: []string{"EMBEDDED SECRET"}, absent: []string{"/EmbeddedFile", "/FileAttachment"}},
	{file: "xfa.pdf", refused: pdf.ErrUnsupported},
	{file: "objstm-bomb.pdf", refused: pdf.ErrLimit},
	{file: "array-bomb.pdf", refused: pdf.ErrLimit},
	{file: "content-bomb.pdf", refused: pdf.ErrLimit},
	{file: "content-bomb-nested.pdf", refused: pdf.ErrLimit},
	{file: "image-bomb.pdf", refused: pdf.ErrLimit},
	{file: "xref-stream-plain.pdf", shows: []string{"PLAIN XREF STREAM"}, absent: []string{"/XRef"}},
	{file: "pages-300.pdf", shows: []string{"Page 1 of 300", "Page 300 of 300"}},
}

// TestHostileDocuments takes each document of the hostile corpus from upload to seal: it is
// normalised (or refused, within seconds and bounded memory), then sealed with a value stamped
// on its first page, and poppler must read in the sealed PDF exactly the normalised document's
// text, plus the stamped value and the certificate; pdfsig and qpdf must pass.
func TestHostileDocuments(t *testing.T) {
	s := signer(t)
	for _, h := range hostiles {
		t.Run(h.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", h.file))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			norm, err := pdf.Normalize(t.Context(), data, pdf.Limits{})
			took := time.Since(start)
			if h.refused != nil {
				if !errors.Is(err, h.refused) {
					t.Fatalf("Normalize = %v, want an error wrapping %v", err, h.refused)
				}
				var after runtime.MemStats
				runtime.ReadMemStats(&after)
				grown := int64(after.TotalAlloc-before.TotalAlloc) >> 20
				t.Logf("refused in %v after allocating %d MiB: %v", took.Round(time.Millisecond), grown, err)
				// Loose enough for the race detector on a loaded 2-core machine (alone: at most
				// 2 s).
				if took > 40*time.Second {
					t.Errorf("refusing took %v", took)
				}
				// The document is parsed in a reading process, under its own memory cap: this
				// process only holds the upload.
				if grown > 64 {
					t.Errorf("refusing allocated %d MiB in the calling process", grown)
				}
				return
			}
			if err != nil {
				t.Fatalf("Normalize: %v", err)
			}
			t.Logf("normalised in %v; removed %v", took.Round(time.Millisecond), norm.Removed)
			for _, name := range h.absent {
				if bytes.Contains(norm.Data, []byte(name+" ")) || bytes.Contains(norm.Data, []byte(name+"/")) ||
					bytes.Contains(norm.Data, []byte(name+"<")) || bytes.Contains(norm.Data, []byte(name+"[")) || bytes.Contains(norm.Data, []byte(name+"(")) {
					t.Errorf("the normalised document still holds %s", name)
				}
			}
			if n := bytes.Count(norm.Data, []byte("startxref")); n != 1 {
				t.Errorf("the normalised document has %d revisions", n)
			}
			shown := pdftext(t, norm.Data)
			for _, want := range h.shows {
				if !strings.Contains(shown, want) {
					t.Errorf("the normalised document does not show %q:\n%s", want, shown)
				}
			}
			for _, hidden := range h.hides {
				if strings.Contains(shown, hidden) {
					t.Errorf("the normalised document shows %q", hidden)
				}
			}
			// What the signing page draws (PDFium) must render every page.
			if _, err := pdf.RenderPage(norm.Data, 1, 400); err != nil {
				t.Fatalf("render page 1: %v", err)
			}

			in := input(t)
			in.Documents = []seal.Document{{ItemID: "item1", Title: h.file, PDF: norm.Data, SHA256: "upload"}}
			for _, p := range norm.Pages {
				in.Documents[0].Pages = append(in.Documents[0].Pages, seal.Size{Width: p.Width, Height: p.Height})
			}
			in.Marks = []seal.Mark{{ItemID: "item1", Page: 1, X: 60, Y: 90, W: 30, H: 4, Type: envelope.FieldText, Text: "STAMPED VALUE"}}
			out, err := seal.Seal(context.Background(), in, s)
			if err != nil {
				t.Fatalf("Seal: %v", err)
			}
			if !bytes.HasPrefix(out[0].PDF, norm.Data) {
				t.Error("the sealed PDF does not begin with the normalised document")
			}
			file := filepath.Join(t.TempDir(), "sealed.pdf")
			if err := os.WriteFile(file, out[0].PDF, 0o600); err != nil {
				t.Fatal(err)
			}
			if sig, err := run(t, "pdfsig", file); err != nil || !strings.Contains(sig, "Signature is Valid") {
				t.Errorf("pdfsig: %v\n%s", err, sig)
			}
			if check, err := run(t, "qpdf", "--check", file); err != nil {
				t.Errorf("qpdf --check: %v\n%s", err, check)
			}
			// The sealed pages read as the shown ones plus the stamped value; the certificate
			// follows them.
			sealedPages := pdftextPages(t, file, 1, len(norm.Pages))
			want := strings.TrimSpace(shown)
			got := strings.TrimSpace(strings.Replace(sealedPages, "STAMPED VALUE", "", 1))
			if normalizeSpace(got) != normalizeSpace(want) {
				t.Errorf("the sealed pages' text differs from the shown text\nshown:  %q\nsealed: %q", want, got)
			}
			if !strings.Contains(sealedPages, "STAMPED VALUE") {
				t.Error("the stamped value is not in the sealed PDF")
			}
		})
	}
}

// TestProofRefusesAnAlteredStamp checks that the seal-time proof notices a stamp that draws
// outside its field, and an item whose bytes are not the ones its recipients were shown.
func TestProofRefusesAnAlteredStamp(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", "clean.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	norm, err := pdf.Normalize(t.Context(), data, pdf.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	in := input(t)
	in.Documents = []seal.Document{{ItemID: "item1", Title: "clean.pdf", PDF: norm.Data, Pages: []seal.Size{{Width: norm.Pages[0].Width, Height: norm.Pages[0].Height}}}}
	in.Marks = []seal.Mark{{ItemID: "item1", Page: 1, X: 60, Y: 90, W: 30, H: 4, Type: envelope.FieldText, Text: "VALUE"}}
	out, err := seal.Seal(context.Background(), in, signer(t))
	if err != nil {
		t.Fatal(err)
	}
	// The same stamp, but claiming a box a tenth of its size: what it draws outside the claimed
	// box must be found.
	_, ov, _, err := seal.StampForTest(in, in.Documents[0])
	if err != nil {
		t.Fatal(err)
	}
	err = pdf.Prove(norm.Data, out[0].PDF, ov, []pdf.Match{{Page: 1, X: 60, Y: 90, Width: 3, Height: 0.4}})
	if !errors.Is(err, pdf.ErrNotShown) {
		t.Errorf("Prove with a box smaller than the stamp = %v, want ErrNotShown", err)
	}
	// A sealed file that does not start with the shown bytes.
	if err := pdf.Prove(norm.Data, append([]byte("%PDF-1.7\n"), out[0].PDF...), ov, nil); !errors.Is(err, pdf.ErrNotShown) {
		t.Errorf("Prove of a file with other leading bytes = %v, want ErrNotShown", err)
	}
	// An item whose recipients were shown another document.
	in.Documents[0].ShownSHA256 = strings.Repeat("0", 64)
	if _, err := seal.Seal(context.Background(), in, signer(t)); !errors.Is(err, seal.ErrNotShown) {
		t.Errorf("Seal of a document other than the shown one = %v, want ErrNotShown", err)
	}
}

func pdftext(t *testing.T, data []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "pdftotext", file, "-")
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	return out
}

func pdftextPages(t *testing.T, file string, first, last int) string {
	t.Helper()
	out, err := run(t, "pdftotext", "-f", strconv.Itoa(first), "-l", strconv.Itoa(last), file, "-")
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	return out
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestFoundByReview runs the reproducers of testdata/hostile/found (see its README).
func TestFoundByReview(t *testing.T) {
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", "found", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for _, c := range []struct {
		file    string
		refused error
	}{
		{"noocprops-ocmd.pdf", pdf.ErrUnsupported},
		{"ocg-viewstate-unlisted.pdf", pdf.ErrUnsupported},
		{"ocmd-direct.pdf", pdf.ErrUnsupported},
		{"ocmd-ve.pdf", pdf.ErrUnsupported},
		{"dup-kid.pdf", pdf.ErrUnsupported},
		{"min-objnum.pdf", pdf.ErrLimit},
	} {
		start := time.Now()
		if _, err := pdf.Normalize(t.Context(), read(c.file), pdf.Limits{}); !errors.Is(err, c.refused) {
			t.Errorf("%s: Normalize = %v, want %v", c.file, err, c.refused)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: refused after %v", c.file, took)
		}
	}
	norm, err := pdf.Normalize(t.Context(), read("leftovers.pdf"), pdf.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"/JS", "/JavaScript", "/Launch", "/AA", "/Annots"} {
		if bytes.Contains(norm.Data, []byte(name+" ")) || bytes.Contains(norm.Data, []byte(name+"<")) || bytes.Contains(norm.Data, []byte(name+"(")) {
			t.Errorf("leftovers.pdf: the normalised document still holds %s", name)
		}
	}
	// A page whose content leaves a clip set past its own end: the stamp would be clipped away.
	// The seal must refuse, not seal a page without its value.
	q, err := pdf.Normalize(t.Context(), read("qleak.pdf"), pdf.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	in := input(t)
	in.Documents = []seal.Document{{ItemID: "item1", Title: "qleak.pdf", PDF: q.Data, Pages: []seal.Size{{Width: q.Pages[0].Width, Height: q.Pages[0].Height}}}}
	in.Marks = []seal.Mark{{ItemID: "item1", Page: 1, X: 30, Y: 40, W: 40, H: 6, Type: envelope.FieldText, Text: "VALUE THAT MUST SHOW"}}
	if _, err := seal.Seal(context.Background(), in, signer(t)); !errors.Is(err, seal.ErrNotShown) {
		t.Errorf("seal of a page that hides its stamp = %v, want ErrNotShown", err)
	}
}

// A document whose streams cannot be decoded whole (a damaged checksum) still counts what they
// inflate to against the document's limit.
func TestUndecodableStreamsCount(t *testing.T) {
	var objs []string
	var zipped bytes.Buffer
	zw := zlib.NewWriter(&zipped)
	zw.Write(make([]byte, 8<<20))
	zw.Close()
	bad := zipped.Bytes()
	bad[len(bad)-1] ^= 0xff // the Adler-32 checksum
	var kids []string
	for i := range 6 {
		objs = append(objs, fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(bad), bad))
		kids = append(kids, fmt.Sprintf("%d 0 R", i+1))
	}
	content := "BT /F1 12 Tf 72 720 Td (X) Tj ET"
	objs = append(objs, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	contentNr := len(objs)
	objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents [%d 0 R %s] /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>", len(objs)+2, contentNr, strings.Join(kids, " ")))
	pageNr := len(objs)
	objs = append(objs, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", pageNr))
	objs = append(objs, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", len(objs)))
	_, err := pdf.Normalize(t.Context(), testpdf.File(objs, len(objs)), pdf.Limits{StreamBytes: 16 << 20, DocumentBytes: 40 << 20})
	if !errors.Is(err, pdf.ErrLimit) {
		t.Errorf("six 8 MiB streams with damaged checksums against a 40 MiB limit: %v, want ErrLimit", err)
	}
}

// A document may hold the signature dictionary's own words in its strings (its catalog's /Lang
// here, which the signature's catalog version copies after the signature dictionary): the seal
// writes its signature where it made the room for it, and the result verifies.
func TestSignatureMarkersInTheDocument(t *testing.T) {
	decoy := `/SubFilter /ETSI.CAdES.detached /ByteRange [0 10 20 30] /Contents <00>`
	data := testpdf.File([]string{
		"<< /Type /Catalog /Pages 2 0 R /Lang (" + decoy + ") >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>",
		"<< /Length 40 >>\nstream\nBT /F1 12 Tf 72 720 Td (DECOY) Tj ET    \nendstream",
	}, 1)
	norm, err := pdf.Normalize(t.Context(), data, pdf.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(norm.Data, []byte("/SubFilter /ETSI.CAdES.detached")) {
		t.Fatal("normalising dropped the decoy: the test proves nothing")
	}
	in := input(t)
	in.Documents = []seal.Document{{ItemID: "item1", Title: "decoy.pdf", PDF: norm.Data, Pages: []seal.Size{{Width: norm.Pages[0].Width, Height: norm.Pages[0].Height}}}}
	in.Marks = []seal.Mark{{ItemID: "item1", Page: 1, X: 10, Y: 80, W: 30, H: 4, Type: envelope.FieldText, Text: "VALUE"}}
	out, err := seal.Seal(context.Background(), in, signer(t))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "sealed.pdf")
	if err := os.WriteFile(file, out[0].PDF, 0o600); err != nil {
		t.Fatal(err)
	}
	if sig, err := run(t, "pdfsig", file); err != nil || !strings.Contains(sig, "Signature is Valid") || !strings.Contains(sig, "Total document signed") {
		t.Fatalf("pdfsig: %v\n%s", err, sig)
	}
}
