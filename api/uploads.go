package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/pdf"
	"github.com/sobre-sign/sobre/persistence"
)

// uploadedFile is one file part of a multipart request.
type uploadedFile struct {
	Name string
	Data []byte
}

// readMultipart reads a multipart/form-data body: the JSON of the "payload" part into payload,
// and every "files" (or "files[]") part into memory. The body's size is capped by limitBodies.
func readMultipart(r *http.Request, payload any) ([]uploadedFile, error) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" {
		return nil, envelope.Errorf(envelope.CodeInvalidBody, "Content-Type must be multipart/form-data with a \"payload\" part (JSON) and \"files\" parts (PDF)")
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, envelope.Errorf(envelope.CodeInvalidBody, "Malformed multipart body: %v", err)
	}
	var files []uploadedFile
	sawPayload := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return nil, err
			}
			return nil, envelope.Errorf(envelope.CodeInvalidBody, "Malformed multipart body: %v", err)
		}
		name := part.FormName()
		if name == "" {
			if err := checkDisposition(part.Header.Get("Content-Disposition")); err != nil {
				part.Close()
				return nil, err
			}
		}
		data, err := io.ReadAll(part)
		part.Close()
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return nil, err
			}
			return nil, envelope.Errorf(envelope.CodeInvalidBody, "Malformed multipart part %q: %v", name, err)
		}
		switch {
		case name == "payload":
			if sawPayload {
				return nil, envelope.Errorf(envelope.CodeInvalidBody, "More than one \"payload\" part")
			}
			sawPayload = true
			if err := decodeJSONPart(bytes.NewReader(data), payload, "payload"); err != nil {
				return nil, err
			}
		case name == "files" || name == "files[]" || strings.HasPrefix(name, "files["):
			if len(files) == envelope.MaxItems {
				return nil, envelope.Errorf(envelope.CodeItemLimit, "An envelope holds at most %d documents", envelope.MaxItems)
			}
			files = append(files, uploadedFile{Name: path.Base(part.FileName()), Data: data})
		}
	}
	if !sawPayload {
		return nil, envelope.Invalid("payload", "is required: a JSON part named \"payload\"")
	}
	return files, nil
}

// partName finds the name parameter of a Content-Disposition that mime cannot read, to say
// which part is malformed.
var partName = regexp.MustCompile(`(?i)\bname="?([^";]*)`)

// checkDisposition refuses a part whose Content-Disposition header cannot be read (a file name
// with an unescaped quote, say): multipart.Part gives it no name, and the part, a file most
// often, would otherwise be dropped without a word. The problem names "payload" if that is the
// part, "files" otherwise. A part without the header has no name: it is ignored, like a part of
// an unknown name.
func checkDisposition(cd string) error {
	if cd == "" {
		return nil
	}
	_, _, err := mime.ParseMediaType(cd)
	if err == nil {
		return nil
	}
	path := "files"
	if m := partName.FindStringSubmatch(cd); m != nil && m[1] == "payload" {
		path = "payload"
	}
	return envelope.Invalid(path, "a part's Content-Disposition cannot be read (%v): a quote or backslash in a file name must be escaped", err)
}

// inspectFiles normalises each uploaded PDF (pdf.Normalize): the normalised document is what
// is stored, shown, digested and sealed, and the upload is kept as the item's original. A file
// that is not a readable PDF, or that is refused, is a problem named files[i] that says why; the
// error is for what is not the file's fault (the request ended, the reading process failed).
func (s *Server) inspectFiles(ctx context.Context, p *envelope.Problems, files []uploadedFile) ([]persistence.Document, error) {
	docs := make([]persistence.Document, len(files))
	for i, f := range files {
		title := envelope.FileTitle(f.Name)
		if title == "" || strings.Trim(title, ".") == "" {
			title = fmt.Sprintf("Document %d", i+1)
		}
		docs[i] = persistence.Document{Title: title}
		norm, err := pdf.Normalize(ctx, f.Data, s.pdfLimits())
		switch {
		case pdf.IsDocumentError(err):
			addFileProblem(p, envelope.Join("files", i), f.Name, err)
			continue
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", envelope.Join("files", i), err)
		}
		docs[i].Data, docs[i].Original = norm.Data, f.Data
		for _, pg := range norm.Pages {
			docs[i].Pages = append(docs[i].Pages, persistence.PageSize{Width: pg.Width, Height: pg.Height})
		}
	}
	return docs, nil
}

// addFileProblem explains why a file was not accepted.
func addFileProblem(p *envelope.Problems, path, name string, err error) {
	switch {
	case errors.Is(err, pdf.ErrEncrypted):
		p.Add(path, "%q is encrypted; upload a PDF without a password", name)
	case errors.Is(err, pdf.ErrLimit), errors.Is(err, pdf.ErrUnsupported):
		p.Add(path, "%q is refused: %s", name, pdfReason(err))
	default:
		p.Add(path, "%q is not a readable PDF", name)
	}
}

// pdfReason is the part of a pdf error that speaks to the sender: its last clause, without the
// package's prefixes.
func pdfReason(err error) string {
	msg := err.Error()
	for _, prefix := range []string{pdf.ErrLimit.Error() + ": ", pdf.ErrUnsupported.Error() + ": "} {
		if i := strings.LastIndex(msg, prefix); i >= 0 {
			msg = msg[i+len(prefix):]
		}
	}
	return msg
}

// pdfLimits are the configured limits on reading an upload.
func (s *Server) pdfLimits() pdf.Limits {
	return pdf.Limits{
		StreamBytes: int64(s.cfg.PDFMaxStreamMiB) << 20, DocumentBytes: int64(s.cfg.PDFMaxDocumentMiB) << 20,
		ImagePixels: int64(s.cfg.PDFMaxImagePixels), Pages: s.cfg.PDFMaxPages,
	}
}

// itemIndex resolves a field's identifier (a file name or a 0-based index) to an uploaded file.
func itemIndex(p *envelope.Problems, path string, identifier any, files []uploadedFile) int {
	switch id := identifier.(type) {
	case nil:
		return 0
	case float64:
		if id != float64(int(id)) || int(id) < 0 || int(id) >= len(files) {
			p.Add(path, "must be the name or the 0-based index of an uploaded file, got %v", id)
			return -1
		}
		return int(id)
	case string:
		for i, f := range files {
			if f.Name == id {
				return i
			}
		}
		if n, err := strconv.Atoi(id); err == nil && n >= 0 && n < len(files) {
			return n
		}
		p.Add(path, "names no uploaded file: %q", id)
		return -1
	default:
		p.Add(path, "must be a file name or index")
		return -1
	}
}
