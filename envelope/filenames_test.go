package envelope

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFileTitle(t *testing.T) {
	long := strings.Repeat("contrato ", 40) + "final.pdf"
	tests := []struct{ in, want string }{
		{"contrato.pdf", "contrato.pdf"},
		{`C:\Users\maria\Escritorio\contrato.pdf`, "contrato.pdf"},
		{"/home/ana/docs/acta.pdf", "acta.pdf"},
		{"../../etc/passwd", "passwd"},
		{"factura\u202Efdp.exe", "facturafdp.exe"},
		{"\u2066a\u2069\u200Fb\u200E\u061C\uFEFF.pdf", "ab.pdf"},
		{"línea\r\nnueva\t\x00\x1b[31m.pdf", "línea nueva [31m.pdf"},
		{"  espacios   de   más  .pdf ", "espacios de más .pdf"},
		{"bad\xffutf8.pdf", "badutf8.pdf"},
		{"\x01\x02", ""},
		{"dir/", ""},
		{long, strings.TrimRight(long[:MaxTitle-len(".pdf")], " ") + ".pdf"},
		{strings.Repeat("ñ", 300), strings.Repeat("ñ", MaxTitle)},
	}
	for _, tt := range tests {
		if got := FileTitle(tt.in); got != tt.want {
			t.Errorf("FileTitle(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if n := utf8.RuneCountInString(FileTitle(tt.in)); n > MaxTitle {
			t.Errorf("FileTitle(%q) has %d characters", tt.in, n)
		}
	}
}

func TestFileName(t *testing.T) {
	tests := []struct{ stem, suffix, want string }{
		{"Contrato 2024/25", ".pdf", "Contrato 2024_25.pdf"},
		{`a\b`, "", "a_b"},
		{"Año ✓ \u202Egnp", "_signed.pdf", "Año ✓ gnp_signed.pdf"},
		{"\u202E", ".pdf", "document.pdf"},
		{"..", "", "document"},
		{strings.Repeat("x", 200), "_certificate.pdf", strings.Repeat("x", MaxFileName-len("_certificate.pdf")) + "_certificate.pdf"},
		{strings.Repeat("ñ", 200), "", strings.Repeat("ñ", MaxFileName)},
	}
	for _, tt := range tests {
		if got := FileName(tt.stem, tt.suffix); got != tt.want {
			t.Errorf("FileName(%q, %q) = %q, want %q", tt.stem, tt.suffix, got, tt.want)
		}
	}
}
