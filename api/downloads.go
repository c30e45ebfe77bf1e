package api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/seal"
)

// downloadItem answers GET /envelope/item/{envelopeItemId}/download?version=original|signed: the
// file envelope.DownloadFile names.
func (s *Server) downloadItem(w http.ResponseWriter, r *http.Request) {
	item, ref, err := s.store.ItemByID(r.Context(), scope(r), chi.URLParam(r, "envelopeItemId"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	file, err := envelope.DownloadFile(r.URL.Query().Get("version"), ref.Status)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	switch file {
	case envelope.ItemFileSealed:
		data, err := s.store.SealedItemFile(r.Context(), item.ID)
		if err != nil {
			s.writeError(w, r, envelope.Errorf(envelope.CodeInvalidRequest, "This envelope was completed before Sobre sealed documents; download version=original"))
			return
		}
		writePDF(w, pdfName(item.Title, "_signed.pdf"), data)
	case envelope.ItemFileCurrent:
		doc, err := s.store.ItemFile(r.Context(), ref.ID, item.ID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writePDF(w, pdfName(item.Title, ".pdf"), doc.Data)
	default:
		data, err := s.store.OriginalFile(r.Context(), item.ID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writePDF(w, pdfName(item.Title, ".pdf"), data)
	}
}

// writePDF sends a PDF to download (writeFile).
func writePDF(w http.ResponseWriter, name string, data []byte) {
	writeFile(w, "application/pdf", "attachment", name, data)
}

// downloadCertificate answers GET /envelope/{envelopeId}/certificate/download: the certificate
// of completion, signed with the seal, once the envelope is COMPLETED.
func (s *Server) downloadCertificate(w http.ResponseWriter, r *http.Request) {
	e, err := s.store.GetEnvelope(r.Context(), scope(r), chi.URLParam(r, "envelopeId"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if e.Status != envelope.StatusCompleted {
		s.writeError(w, r, envelope.Errorf(envelope.CodeInvalidRequest, "The certificate exists once the envelope is COMPLETED; it is %s", e.Status))
		return
	}
	data, err := s.store.SealedCertificate(r.Context(), e.ID)
	if err != nil {
		s.writeError(w, r, envelope.Errorf(envelope.CodeInvalidRequest, "This envelope was completed before Sobre made certificates"))
		return
	}
	writePDF(w, pdfName(e.Title, "_certificate.pdf"), data)
}

// MaxAuditPDFEntries is the most entries the audit log's PDF holds. The PDF is built in memory
// by the API process, about 1.3 to 2 ms of CPU and 130 KiB of allocations per entry (10,000
// entries: 13 to 23 s and 1.3 GiB); a longer log is read page by page with GET
// /envelope/{envelopeId}/audit-log.
const MaxAuditPDFEntries = 5000

// codeAuditLogLimit answers a PDF asked of a longer audit log (400, as Documenso answers its
// limits).
const codeAuditLogLimit = envelope.Code("AUDIT_LOG_LIMIT_EXCEEDED")

// downloadAuditLog answers GET /envelope/{envelopeId}/audit-log/download: the audit trail as a
// PDF, with the hash chain's final hash, for logs of at most MaxAuditPDFEntries entries.
func (s *Server) downloadAuditLog(w http.ResponseWriter, r *http.Request) {
	e, err := s.store.GetEnvelope(r.Context(), scope(r), chi.URLParam(r, "envelopeId"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	limit := s.auditPDFLimit
	if limit == 0 {
		limit = MaxAuditPDFEntries
	}
	entries, count, err := s.store.AuditPage(r.Context(), scope(r), e.ID, 1, limit, true, true)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if count > limit {
		s.writeError(w, r, envelope.Errorf(codeAuditLogLimit,
			"The audit log has %d entries; its PDF holds at most %d. Read the entries page by page with GET /api/v2/envelope/%s/audit-log",
			count, limit, e.ID))
		return
	}
	_, hash, err := s.store.VerifyAudit(r.Context(), e.ID)
	if err != nil {
		hash = "the chain does not verify: " + err.Error()
	}
	in := seal.Input{EnvelopeID: e.ID, Title: e.Title, Language: e.Meta.Language, Timezone: envelope.DefaultTimezone, AuditHash: hash}
	if e.Meta.Timezone != nil {
		in.Timezone = *e.Meta.Timezone
	}
	data, err := seal.AuditLogPDF(in, entries)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writePDF(w, pdfName(e.Title, "_audit_log.pdf"), data)
}

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
