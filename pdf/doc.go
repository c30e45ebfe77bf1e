// Package pdf reads the PDF files that senders upload to Sobre.
//
//   - Inspect checks that a file is a readable, unencrypted PDF and returns the size of each of
//     its pages as a viewer shows it.
//   - FindText finds where a text, typically a placeholder such as "{{signature}}", appears on
//     the pages, so that a field can be put there.
//   - WhiteOut paints white boxes over such places, so the placeholders no longer show.
//
// # Coordinates
//
// Page sizes are in PDF points (1/72 inch) of the displayed page: the crop box clipped to the
// media box, with the page's /Rotate applied (a portrait page rotated by 90 degrees is reported
// landscape). Boxes (Match) are percentages, 0 to 100, of that displayed page, with the origin
// at its top left corner and y going down: the convention of Documenso's positionX, positionY,
// width and height, which the API stores unchanged.
//
// # Libraries
//
// pdfcpu (github.com/pdfcpu/pdfcpu) parses and validates the file and reads the page boxes and
// rotations. Normalize runs it on an upload in a child process only (ReaderConfig): the running
// executable started again, which the package's init function turns into a reading process when
// its environment asks for one, before any main function runs. WhiteOut appends its change to the file as an incremental update written by this
// package, and falls back on pdfcpu to rewrite files that cannot take one. pdfcpu works in
// memory here; the package disables its configuration directory in an init function, so it
// never writes under $HOME.
//
// go-pdfium (github.com/klippa-app/go-pdfium) runs PDFium, the PDF engine of Chrome, compiled to
// WebAssembly, in the wazero runtime (github.com/tetratelabs/wazero): pure Go, no cgo and no
// system library. FindText uses its text search, which knows each glyph's exact box, whatever
// the fonts. PDFium starts on the first FindText of the process (one to two seconds) and is
// then shared; each call runs in an instance of its own, without access to the file system.
//
// All functions are safe for concurrent use and never panic on bad input. The package imports
// no other package of Sobre.
package pdf
