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

// maxFiles is the most PDFs one upload carries (and maxItems, the most an envelope holds).
const maxFiles = maxItems

// maxRecipients is the most recipients one envelope has (Documenso's RECIPIENT_LIMIT_EXCEEDED).
const maxRecipients = 100

// Codes of the limits, answered 400 as Documenso does.
const (
	codeItemLimit      = envelope.Code("ENVELOPE_ITEM_LIMIT_EXCEEDED")
	codeRecipientLimit = envelope.Code("RECIPIENT_LIMIT_EXCEEDED")
)

type createPayload struct {
	Title                  *string             `json:"title"`
	Type                   *string             `json:"type"`
	DelegatedDocumentOwner *string             `json:"delegatedDocumentOwner"`
	ExternalID             *string             `json:"externalId"`
	Visibility             *string             `json:"visibility"`
	GlobalAccessAuth       []string            `json:"globalAccessAuth"`
	GlobalActionAuth       []string            `json:"globalActionAuth"`
	FormValues             map[string]any      `json:"formValues"`
	FolderID               *string             `json:"folderId"`
	Recipients             []recipientInput    `json:"recipients"`
	Meta                   *envelope.MetaInput `json:"meta"`
	Attachments            []attachmentInput   `json:"attachments"`
}

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
			if err := decodeJSONFrom(bytes.NewReader(data), payload); err != nil {
				return nil, err
			}
		case name == "files" || name == "files[]" || strings.HasPrefix(name, "files["):
			if len(files) == maxFiles {
				return nil, envelope.Errorf(codeItemLimit, "An envelope holds at most %d documents", maxFiles)
			}
			files = append(files, uploadedFile{Name: path.Base(part.FileName()), Data: data})
		}
	}
	if !sawPayload {
		return nil, &envelope.Error{Code: envelope.CodeInvalidBody, Message: "Input validation failed",
			Issues: []envelope.Issue{{Path: "payload", Message: "is required: a JSON part named \"payload\""}}}
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
	return &envelope.Error{Code: envelope.CodeInvalidBody, Message: "Input validation failed", Issues: []envelope.Issue{{Path: path,
		Message: fmt.Sprintf("a part's Content-Disposition cannot be read (%v): a quote or backslash in a file name must be escaped", err)}}}
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

// createEnvelope answers POST /envelope/create.
func (s *Server) createEnvelope(w http.ResponseWriter, r *http.Request) {
	var in createPayload
	files, err := readMultipart(r, &in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(in.Recipients) > maxRecipients {
		s.writeError(w, r, envelope.Errorf(codeRecipientLimit, "An envelope has at most %d recipients, got %d", maxRecipients, len(in.Recipients)))
		return
	}
	var p envelope.Problems
	// Files are optional, as in Documenso: documents may be added later with item/create-many.
	docs, err := s.inspectFiles(r.Context(), &p, files)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ne := s.validateCreate(&p, in, files, docs)
	caller := member(r)
	owner := caller
	if email := deref(in.DelegatedDocumentOwner); email != "" && envelope.ValidEmail(email) {
		// The role first: a caller who may not act for a colleague learns nothing of who is one.
		if !strings.EqualFold(email, caller.UserEmail) {
			if err := envelope.MayActFor(caller, envelope.Member{TeamID: caller.TeamID}); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		m, err := s.store.FindMemberByEmail(r.Context(), caller.TeamID, email)
		switch {
		case envelope.IsNotFound(err):
			p.Add("delegatedDocumentOwner", "%q is not a member of this team", email)
		case err != nil:
			s.writeError(w, r, err)
			return
		default:
			owner = m
		}
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := envelope.MayActFor(caller, owner); err != nil {
		s.writeError(w, r, err) // only a MANAGER or an ADMIN creates envelopes for a colleague
		return
	}
	if !caller.Role.CanSee(ne.Envelope.Visibility) {
		s.writeError(w, r, envelope.Errorf(envelope.CodeForbidden, "Your team role %s may not create envelopes with visibility %s", caller.Role, ne.Envelope.Visibility))
		return
	}
	var id string
	err = s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		var err error
		if id, err = tx.CreateEnvelope(r.Context(), owner, ne, s.actor(r)); err != nil || owner.UserID == caller.UserID {
			return err
		}
		// The caller created it (DOCUMENT_CREATED names them); this entry names whom for.
		return tx.AppendAudit(r.Context(), id, envelope.DelegatedOwnerCreatedAudit(owner), s.actor(r))
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": id})
}

// validateCreate checks a create payload and its files, recording every problem, and returns
// what to write. It reads nothing from the store.
func (s *Server) validateCreate(p *envelope.Problems, in createPayload, files []uploadedFile, docs []persistence.Document) persistence.NewEnvelope {
	e := envelope.Envelope{
		Source:       envelope.SourceDocument,
		Visibility:   envelope.VisibilityEveryone,
		TemplateType: envelope.TemplateTypePrivate,
		FolderID:     in.FolderID,
		Meta:         envelope.DefaultMeta(""),
		FormValues:   in.FormValues,
	}
	if in.Title == nil {
		p.Add("title", "is required")
	} else {
		envelope.CheckLength(p, "title", *in.Title, 1, envelope.MaxTitle)
		e.Title = *in.Title
	}
	switch {
	case in.Type == nil:
		p.Add("type", "is required: DOCUMENT or TEMPLATE")
	case !envelope.OneOf(envelope.Type(*in.Type), envelope.Types()):
		p.Add("type", "must be one of %v, got %q", envelope.Types(), *in.Type)
	default:
		e.Type = envelope.Type(*in.Type)
	}
	if in.ExternalID != nil {
		envelope.CheckLength(p, "externalId", *in.ExternalID, 0, envelope.MaxExternalID)
		e.ExternalID = in.ExternalID
	}
	if in.Visibility != nil {
		v := envelope.Visibility(*in.Visibility)
		if !envelope.OneOf(v, envelope.Visibilities()) {
			p.Add("visibility", "must be one of %v, got %q", envelope.Visibilities(), *in.Visibility)
		} else {
			e.Visibility = v
		}
	}
	e.AuthOptions.GlobalAccessAuth = envelope.CheckEnums(p, "globalAccessAuth", toType[envelope.AccessAuth](in.GlobalAccessAuth), envelope.AccessAuths())
	e.AuthOptions.GlobalActionAuth = envelope.CheckEnums(p, "globalActionAuth", toType[envelope.ActionAuth](in.GlobalActionAuth), envelope.GlobalActionAuths())
	checkFormValues(p, "formValues", in.FormValues)
	if in.FolderID != nil {
		envelope.CheckLength(p, "folderId", *in.FolderID, 1, 255)
	}
	in.Meta.Apply(p, "meta", &e.Meta)
	if email := deref(in.DelegatedDocumentOwner); email != "" && !envelope.ValidEmail(email) {
		p.Add("delegatedDocumentOwner", "must be an email address, got %q", email)
	}

	recipients := make([]persistence.NewRecipient, 0, len(in.Recipients))
	for i, rin := range in.Recipients {
		rp := envelope.Join("recipients", i)
		checkRecipient(p, rp, rin, true)
		nr := persistence.NewRecipient{Recipient: recipientFrom(rin)}
		for j, fin := range rin.Fields {
			fp := envelope.Join(envelope.Join(rp, "fields"), j)
			item := itemIndex(p, envelope.Join(fp, "identifier"), fin.Identifier, files)
			if len(files) == 0 {
				p.Add(fp, "a field needs a document to sit on: upload a file with the envelope")
				item = -1
			}
			var pages []persistence.PageSize
			if item >= 0 && item < len(docs) {
				pages = docs[item].Pages
			}
			f, ok := checkFieldInput(p, fp, fin, pages, true)
			if ok && !nr.Role.FillsFields() {
				p.Add(envelope.Join(fp, "type"), "a %s recipient fills no fields", nr.Role)
			}
			nr.Fields = append(nr.Fields, persistence.NewField{Field: f, Item: max(item, 0)})
		}
		var fields []envelope.Field
		for _, nf := range nr.Fields {
			fields = append(fields, nf.Field)
		}
		envelope.CheckExpectedRUT(p, envelope.Join(rp, "expectedRut"), nr.Recipient, e.AuthOptions, fields)
		recipients = append(recipients, nr)
	}
	var attachments []envelope.Attachment
	for i, ain := range in.Attachments {
		attachments = append(attachments, checkAttachment(p, envelope.Join("attachments", i), ain))
	}
	return persistence.NewEnvelope{Envelope: e, Items: docs, Recipients: recipients, Attachments: attachments}
}

// checkFormValues checks that form values are strings, numbers or booleans under sane keys.
func checkFormValues(p *envelope.Problems, path string, values map[string]any) {
	if len(values) > envelope.MaxFormValues {
		p.Add(path, "may hold at most %d values, got %d", envelope.MaxFormValues, len(values))
		return
	}
	for k, v := range values {
		kp := envelope.Join(path, k)
		if k == "" || len(k) > 255 {
			p.Add(kp, "keys must be 1 to 255 characters")
		}
		switch v.(type) {
		case string, float64, bool:
		default:
			p.Add(kp, "must be a string, a number or a boolean")
		}
	}
}

// checkFieldInput validates the type, meta and (coordinates form) position of a field input.
func checkFieldInput(p *envelope.Problems, path string, in fieldInput, pages []persistence.PageSize, positionRequired bool) (envelope.Field, bool) {
	var f envelope.Field
	ok := true
	switch {
	case in.Type == nil:
		p.Add(envelope.Join(path, "type"), "is required: one of %v", envelope.FieldTypes())
		ok = false
	case !envelope.OneOf(envelope.FieldType(*in.Type), envelope.FieldTypes()):
		p.Add(envelope.Join(path, "type"), "must be one of %v, got %q", envelope.FieldTypes(), *in.Type)
		ok = false
	default:
		f.Type = envelope.FieldType(*in.Type)
		f.FieldMeta = envelope.ValidateFieldMeta(p, envelope.Join(path, "fieldMeta"), f.Type, in.FieldMeta)
	}
	checkPosition(p, path, in, pages, positionRequired)
	f.Page = deref(in.Page)
	f.PositionX, f.PositionY, f.Width, f.Height = deref(in.PositionX), deref(in.PositionY), deref(in.Width), deref(in.Height)
	return f, ok
}

// actor is the audit actor of the request's caller.
func (s *Server) actor(r *http.Request) envelope.Actor {
	return envelope.MemberActor(member(r), s.clientIP(r), r.UserAgent())
}
