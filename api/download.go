package api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
)

// contentDisposition is an RFC 6266 Content-Disposition of a file named name (made by
// envelope.FileName): a quoted ASCII filename for old clients (other characters, quotes,
// backslashes and percent signs as "_"), and filename* with the UTF-8 name (RFC 8187), which
// current browsers prefer.
func contentDisposition(disposition, name string) string {
	var ascii, ext strings.Builder
	for _, r := range name {
		switch {
		case r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '%':
			ascii.WriteByte('_')
		default:
			ascii.WriteRune(r)
		}
	}
	for _, b := range []byte(name) {
		if isAttrChar(b) {
			ext.WriteByte(b)
		} else {
			fmt.Fprintf(&ext, "%%%02X", b)
		}
	}
	return disposition + `; filename="` + ascii.String() + `"; filename*=UTF-8''` + ext.String()
}

// isAttrChar reports whether b may stand unescaped in an RFC 8187 value (attr-char).
func isAttrChar(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("!#$&+-.^_`|~", b) >= 0
}

// pdfName is the download name of a document titled title: its stem (without ".pdf"), then
// suffix (".pdf", "_signed.pdf"...), cleaned and shortened by envelope.FileName.
func pdfName(title, suffix string) string {
	if len(title) >= 4 && strings.EqualFold(title[len(title)-4:], ".pdf") {
		title = title[:len(title)-4]
	}
	return envelope.FileName(title, suffix)
}

// writeFile sends data as a file: its type and length, its name (contentDisposition of a name
// made by envelope.FileName), and a sandbox, so that a file the browser shows (an inline PDF)
// runs nothing with Sobre's origin.
func writeFile(w http.ResponseWriter, contentType, disposition, name string, data []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", contentDisposition(disposition, name))
	h.Set("Content-Security-Policy", "sandbox")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	_, _ = w.Write(data)
}
