package pdf

// StartEngine starts the PDFium engine now instead of on the first call that needs it: compiling
// PDFium takes one to two seconds, which a server should spend while it starts, not in its first
// upload or seal. It also starts one instance, which waits for the first call (or is closed after
// instanceIdle without one). Calls made meanwhile wait for it, as they would on first use. It
// returns the error of the engine or of that first instance, which the first call would meet too.
func StartEngine() error {
	pool, err := engine()
	if err != nil {
		return err
	}
	if raceBuild {
		raceSerial.Lock()
		defer raceSerial.Unlock()
	}
	in, err := borrow(pool)
	if err != nil {
		return err
	}
	in.giveBack(false)
	return nil
}
