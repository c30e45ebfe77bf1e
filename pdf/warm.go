package pdf

// StartEngine starts the PDFium engine now instead of on the first call that needs it: compiling
// PDFium takes one to two seconds, which a server should spend while it starts, not in its first
// upload or seal. Calls made meanwhile wait for it, as they would on first use. It returns the
// engine's error, which the first call would return too.
func StartEngine() error {
	_, err := engine()
	return err
}
