package main

import (
	"time"

	"github.com/sobre-sign/sobre/pdf"
)

// startPDFium compiles PDFium in the background as the process starts (pdf.StartEngine), so that
// the first upload, page image or seal does not wait for it.
func (p *process) startPDFium() {
	go func() {
		start := time.Now()
		if err := pdf.StartEngine(); err != nil {
			p.log.Error("PDFium did not start; uploads, page images and seals will fail", "err", err)
			return
		}
		p.log.Info("PDFium ready", "took", time.Since(start).Round(time.Millisecond))
	}()
}
