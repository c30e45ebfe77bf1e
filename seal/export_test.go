package seal

import "github.com/sobre-sign/sobre/pdf"

// StampForTest is stamp, for the proof's tests: the stamped PDF, the overlay and the boxes.
func StampForTest(in Input, d Document) ([]byte, pdf.Overlay, []pdf.Match, error) {
	return stamp(in, d)
}
