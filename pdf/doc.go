// Package pdf reads uploaded PDF files: their page count and page sizes (Inspect, with pdfcpu),
// the boxes where a text placeholder appears (FindText, with PDFium compiled to WebAssembly, so
// no cgo and no system library), and paints white over such boxes (WhiteOut, with pdfcpu).
//
// Boxes are percentages of the page with a top-left origin, the coordinates of Documenso's
// positionX, positionY, width and height.
//
// It imports no package of Sobre.
package pdf
