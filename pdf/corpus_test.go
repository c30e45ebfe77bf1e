package pdf

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klippa-app/go-pdfium/requests"
)

// TestCorpus runs the package over every *.pdf under the directory named by $PDF_CORPUS (it is
// skipped without it), for instance the PDFs that pdfcpu and go-pdfium ship in the module cache:
//
//	PDF_CORPUS=$(go env GOMODCACHE)/github.com/pdfcpu go test -run TestCorpus -v ./pdf/
//
// For every file that Inspect accepts it checks that PDFium sees the same pages at the same
// sizes, that FindText works, that WhiteOut gives a file Inspect accepts with the same pages, and
// that Normalize accepts it (or refuses it for a stated reason) with the same pages.
func TestCorpus(t *testing.T) {
	root := os.Getenv("PDF_CORPUS")
	if root == "" {
		t.Skip("set PDF_CORPUS to a directory of PDF files")
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".pdf") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var accepted, encrypted, rejected int
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, f)
		start := time.Now()
		info, err := Inspect(data)
		took := time.Since(start)
		switch {
		case errors.Is(err, ErrEncrypted):
			encrypted++
			continue
		case err != nil:
			rejected++
			t.Logf("rejected %s: %v", name, err)
			continue
		}
		accepted++
		if took > 2*time.Second {
			t.Logf("slow: Inspect(%s) took %v", name, took)
		}
		if msg := comparePDFium(t, data, info); msg != "" {
			t.Logf("size disagreement %s: %s", name, msg)
		}
		ms, err := FindText(data, "e")
		if err != nil {
			t.Errorf("FindText(%s): %v", name, err)
			continue
		}
		if len(ms) > 20 {
			ms = ms[:20]
		}
		out, err := WhiteOut(data, ms)
		if err != nil {
			t.Errorf("WhiteOut(%s): %v", name, err)
			continue
		}
		after, err := Inspect(out)
		if err != nil || len(after.Pages) != len(info.Pages) {
			t.Errorf("Inspect(WhiteOut(%s)) = %d pages, %v; want %d", name, len(after.Pages), err, len(info.Pages))
		}
		start = time.Now()
		norm, err := Normalize(t.Context(), data, Limits{})
		switch {
		case errors.Is(err, ErrUnsupported) || errors.Is(err, ErrLimit):
			t.Logf("refused %s: %v", name, err)
		case err != nil:
			t.Errorf("Normalize(%s): %v", name, err)
		case len(norm.Pages) != len(info.Pages):
			t.Errorf("Normalize(%s) has %d pages, want %d", name, len(norm.Pages), len(info.Pages))
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Logf("slow: Normalize(%s) took %v", name, took)
		}
	}
	t.Logf("%d files: %d accepted, %d encrypted, %d rejected", len(files), accepted, encrypted, rejected)
}

// comparePDFium describes how PDFium's page sizes differ from Inspect's, or returns "".
func comparePDFium(t *testing.T, data []byte, info Info) string {
	inst, doc, _, done, err := openDocument(data)
	if err != nil {
		return "PDFium cannot open it: " + err.Error()
	}
	defer done()
	for i, want := range info.Pages {
		size, err := inst.GetPageSize(&requests.GetPageSize{Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}}})
		if err != nil {
			return err.Error()
		}
		if math.Abs(size.Width-want.Width) > 0.5 || math.Abs(size.Height-want.Height) > 0.5 {
			return fmt.Sprintf("page %d: PDFium %.2fx%.2f, Inspect %.2fx%.2f", i+1, size.Width, size.Height, want.Width, want.Height)
		}
	}
	return ""
}
