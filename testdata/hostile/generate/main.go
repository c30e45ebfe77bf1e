// Command generate writes the hostile PDF corpus in testdata/hostile.
//
// Run it from the repository root:
//
//	go run ./testdata/hostile/generate
//
// Every file is written by hand with raw PDF syntax so that the exact
// structure under test is known and does not depend on a PDF library.
// The output is deterministic: no timestamps, and a fixed /ID derived
// from the file name.
package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
)

const (
	mib = 1024 * 1024

	arrayBombNumbers   = 30_000_000
	objStmBombSize     = 400 * mib
	contentBombSize    = 300 * mib
	nestedBombSize     = 1024 * mib
	imageBombDimension = 60000
	imageBombRows      = 64
	pagesCount         = 300
	fontHelvetica      = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
	pageBox            = "/MediaBox [0 0 612 792]"
)

func main() {
	dir := filepath.Join("testdata", "hostile")
	if _, err := os.Stat(dir); err != nil {
		log.Fatalf("run from the repository root: %v", err)
	}
	files := []struct {
		name string
		gen  func(name string) []byte
	}{
		{"ocg-hidden.pdf", genOCGHidden},
		{"ocg-visible.pdf", genOCGVisible},
		{"incremental.pdf", genIncremental},
		{"placeholder.pdf", genPlaceholder},
		{"acroform.pdf", genAcroForm},
		{"annotations.pdf", genAnnotations},
		{"javascript.pdf", genJavaScript},
		{"embedded.pdf", genEmbedded},
		{"xfa.pdf", genXFA},
		{"objstm-bomb.pdf", genObjStmBomb},
		{"array-bomb.pdf", genArrayBomb},
		{"content-bomb.pdf", genContentBomb},
		{"content-bomb-nested.pdf", genContentBombNested},
		{"image-bomb.pdf", genImageBomb},
		{"xref-stream-plain.pdf", genXRefStreamPlain},
		{"pages-300.pdf", genPages300},
		{"clean.pdf", genClean},
	}
	for _, f := range files {
		data := f.gen(f.name)
		if err := os.WriteFile(filepath.Join(dir, f.name), data, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-26s %9d bytes\n", f.name, len(data))
	}
}
