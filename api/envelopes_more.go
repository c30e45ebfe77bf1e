package api

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/seal"
	"github.com/sobre-sign/sobre/workflows"
)

// Documenso's envelope operations beyond the SPEC's list, with the SDK's shapes.

// maxItems is the most documents one envelope holds (Documenso's ENVELOPE_ITEM_LIMIT_EXCEEDED).
const maxItems = 20

// mayManage applies the one rule on who may change, send, end or delete an envelope
// (envelope.MayManage) to the caller of r.
func mayManage(r *http.Request, e envelope.Owned) error {
	return envelope.MayManage(member(r), e)
}

func decodeEnvelopeID(w http.ResponseWriter, r *http.Request, s *Server, in any, id func() *string) bool {
	if err := decodeJSON(r, in); err != nil {
		s.writeError(w, r, err)
		return false
	}
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", deref(id()))
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return false
	}
	return true
}

// duplicateEnvelope answers POST /envelope/duplicate: a new DRAFT copy.
func (s *Server) duplicateEnvelope(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EnvelopeID        *string `json:"envelopeId"`
		IncludeRecipients *bool   `json:"includeRecipients"`
		IncludeFields     *bool   `json:"includeFields"`
	}
	if !decodeEnvelopeID(w, r, s, &in, func() *string { return in.EnvelopeID }) {
		return
	}
	withRecipients := in.IncludeRecipients == nil || *in.IncludeRecipients
	withFields := withRecipients && (in.IncludeFields == nil || *in.IncludeFields)
	var id string
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		src, err := tx.GetEnvelope(r.Context(), scope(r), *in.EnvelopeID)
		if err != nil {
			return err
		}
		if err := mayManage(r, src.Owned()); err != nil {
			return err
		}
		id, err = tx.DuplicateEnvelope(r.Context(), member(r), src, withRecipients, withFields, s.actor(r))
		return err
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": id})
}

// deleteEnvelope answers POST /envelope/delete: a DRAFT is removed; a PENDING one is ended by its
// workflow, which tells the recipients who were sent it, and removed; a finished one is hidden
// from searches (soft delete).
func (s *Server) deleteEnvelope(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EnvelopeID *string `json:"envelopeId"`
	}
	if !decodeEnvelopeID(w, r, s, &in, func() *string { return in.EnvelopeID }) {
		return
	}
	ref, err := s.store.EnvelopeRef(r.Context(), scope(r), *in.EnvelopeID)
	if err == nil {
		err = mayManage(r, ref.Owned())
	}
	if err == nil {
		switch {
		case ref.Status == envelope.StatusPending:
			err = s.flows.Delete(r.Context(), ref.ID)
		default:
			err = s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
				cur, err := tx.LockEnvelope(r.Context(), scope(r), ref.ID)
				if err != nil {
					return err
				}
				switch cur.Status {
				case envelope.StatusDraft:
					return tx.HardDelete(r.Context(), cur.ID)
				case envelope.StatusPending:
					return envelope.Errorf(envelope.CodeInvalidRequest, "The envelope was just sent; try again")
				}
				return tx.SoftDelete(r.Context(), cur.ID, s.actor(r))
			})
		}
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}

// redistributeEnvelope answers POST /envelope/redistribute: the listed recipients who have not
// acted are sent the envelope again, with a new deadline and reminders counted from now.
func (s *Server) redistributeEnvelope(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EnvelopeID *string `json:"envelopeId"`
		Recipients []int64 `json:"recipients"`
	}
	if !decodeEnvelopeID(w, r, s, &in, func() *string { return in.EnvelopeID }) {
		return
	}
	var bad envelope.Problems
	ids := envelope.ResendIDs(&bad, "recipients", in.Recipients) // without repeats, at most MaxResendRecipients
	if err := bad.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	e, err := s.store.GetEnvelope(r.Context(), scope(r), *in.EnvelopeID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := mayManage(r, e.Owned()); err != nil {
		s.writeError(w, r, err)
		return
	}
	if e.Status != envelope.StatusPending {
		s.writeError(w, r, envelope.RequirePending(e.Status))
		return
	}
	var p envelope.Problems
	for i, id := range in.Recipients {
		if findRecipient(e, id) == nil {
			p.Add(envelope.Join("recipients", i), "recipient %d is not in envelope %s", id, e.ID)
		}
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.checkMailQuota(r.Context(), nil, e.TeamID, mailsOnRedistribute(e, ids)); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.flows.Resend(r.Context(), e.ID, workflows.ResendRequest{RecipientIDs: ids}); err != nil {
		s.writeError(w, r, err)
		return
	}
	recipients := []distributeRecipientView{}
	for _, id := range ids {
		recipients = append(recipients, s.newDistributeRecipientView(*findRecipient(e, id)))
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "id": e.ID, "recipients": recipients})
}

type itemView struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	EnvelopeID     string `json:"envelopeId"`
	Order          int    `json:"order"`
	DocumentDataID string `json:"documentDataId"`
}

// draftOnly refuses a change of e's documents unless e is a DRAFT.
func draftOnly(e *envelope.Envelope) error {
	return envelope.RequireDraft(e.Status, "Documents can only change")
}

// createItems answers POST /envelope/item/create-many (multipart: payload {envelopeId} and
// files): the PDFs are added after the envelope's documents.
func (s *Server) createItems(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EnvelopeID *string `json:"envelopeId"`
	}
	files, err := readMultipart(r, &in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", deref(in.EnvelopeID))
	if len(files) == 0 {
		p.Add("files", "at least one PDF file is required")
	}
	docs, err := s.inspectFiles(r.Context(), &p, files)
	if err == nil {
		err = p.Err()
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var created []envelope.Item
	err = s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		e, err := s.mutableEnvelope(r, tx, *in.EnvelopeID)
		if err != nil {
			return err
		}
		if err := draftOnly(e); err != nil {
			return err
		}
		if len(e.Items)+len(docs) > maxItems {
			return envelope.Errorf(codeItemLimit, "An envelope holds at most %d documents", maxItems)
		}
		next := 1
		for _, it := range e.Items {
			next = max(next, it.Order+1)
		}
		for i, d := range docs {
			it, err := tx.AddItem(r.Context(), e.ID, d, next+i, s.actor(r))
			if err != nil {
				return err
			}
			created = append(created, it)
		}
		return tx.Touch(r.Context(), e.ID)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := []itemView{}
	for _, it := range created {
		out = append(out, itemView{ID: it.ID, Title: it.Title, EnvelopeID: it.EnvelopeID, Order: it.Order, DocumentDataID: it.DocumentDataID})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// updateItems answers POST /envelope/item/update-many: titles and order of documents.
func (s *Server) updateItems(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EnvelopeID *string `json:"envelopeId"`
		Data       []struct {
			EnvelopeItemID *string `json:"envelopeItemId"`
			Order          *int    `json:"order"`
			Title          *string `json:"title"`
		} `json:"data"`
	}
	if !decodeEnvelopeID(w, r, s, &in, func() *string { return in.EnvelopeID }) {
		return
	}
	var updated []envelope.Item
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		e, err := s.mutableEnvelope(r, tx, *in.EnvelopeID)
		if err != nil {
			return err
		}
		if err := draftOnly(e); err != nil {
			return err
		}
		var p envelope.Problems
		items := append([]envelope.Item(nil), e.Items...)
		type change struct {
			idx     int
			changes []envelope.ItemChange
		}
		var changed []change
		for i, d := range in.Data {
			path := envelope.Join("data", i)
			idx := -1
			for k, it := range items {
				if d.EnvelopeItemID != nil && it.ID == *d.EnvelopeItemID {
					idx = k
				}
			}
			if idx < 0 {
				p.Add(envelope.Join(path, "envelopeItemId"), "names no document of envelope %s", e.ID)
				continue
			}
			var ch []envelope.ItemChange
			if d.Title != nil {
				envelope.CheckLength(&p, envelope.Join(path, "title"), *d.Title, 1, envelope.MaxTitle)
				if *d.Title != items[idx].Title {
					ch = append(ch, envelope.ItemChange{Field: "title", From: items[idx].Title, To: *d.Title})
					items[idx].Title = *d.Title
				}
			}
			if d.Order != nil {
				if *d.Order < 1 || *d.Order > 1000 {
					p.Add(envelope.Join(path, "order"), "must be between 1 and 1000, got %d", *d.Order)
				} else if *d.Order != items[idx].Order {
					ch = append(ch, envelope.ItemChange{Field: "order", From: strconv.Itoa(items[idx].Order), To: strconv.Itoa(*d.Order)})
					items[idx].Order = *d.Order
				}
			}
			changed = append(changed, change{idx, ch})
		}
		seen := map[int]bool{}
		for _, it := range items {
			if seen[it.Order] {
				p.Add("data", "two documents would share order %d", it.Order)
			}
			seen[it.Order] = true
		}
		if err := p.Err(); err != nil {
			return err
		}
		if err := tx.ParkItemOrders(r.Context(), e.ID); err != nil {
			return err
		}
		for _, it := range items {
			if err := tx.UpdateItem(r.Context(), it); err != nil {
				return err
			}
		}
		for _, c := range changed {
			updated = append(updated, items[c.idx])
			if len(c.changes) > 0 {
				if err := tx.AppendAudit(r.Context(), e.ID, envelope.ItemUpdatedAudit(items[c.idx].ID, c.changes), s.actor(r)); err != nil {
					return err
				}
			}
		}
		return tx.Touch(r.Context(), e.ID)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := []map[string]any{}
	for _, it := range updated {
		out = append(out, map[string]any{"id": it.ID, "order": it.Order, "title": it.Title, "envelopeId": it.EnvelopeID})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// deleteItem answers POST /envelope/item/delete: a document and its fields, while DRAFT.
func (s *Server) deleteItem(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EnvelopeID     *string `json:"envelopeId"`
		EnvelopeItemID *string `json:"envelopeItemId"`
	}
	if !decodeEnvelopeID(w, r, s, &in, func() *string { return in.EnvelopeID }) {
		return
	}
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		e, err := s.mutableEnvelope(r, tx, *in.EnvelopeID)
		if err != nil {
			return err
		}
		var item *envelope.Item
		for i := range e.Items {
			if e.Items[i].ID == deref(in.EnvelopeItemID) {
				item = &e.Items[i]
			}
		}
		if item == nil {
			return envelope.NotFound("Envelope item")
		}
		if err := draftOnly(e); err != nil {
			return err
		}
		if len(e.Items) == 1 {
			return envelope.Errorf(envelope.CodeInvalidRequest, "An envelope keeps at least one document")
		}
		if err := tx.DeleteItem(r.Context(), item.ID); err != nil {
			return err
		}
		if err := tx.AppendAudit(r.Context(), e.ID, envelope.ItemDeletedAudit(*item), s.actor(r)); err != nil {
			return err
		}
		return tx.Touch(r.Context(), e.ID)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}

// downloadItem answers GET /envelope/item/{envelopeItemId}/download?version=original|signed.
func (s *Server) downloadItem(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "envelopeItemId")
	version := r.URL.Query().Get("version")
	if version == "" {
		version = "signed"
	}
	if version != "original" && version != "signed" {
		s.writeError(w, r, &envelope.Error{Code: envelope.CodeInvalidBody, Message: "Input validation failed",
			Issues: []envelope.Issue{{Path: "version", Message: `must be "original" or "signed", got ` + strconv.Quote(version)}}})
		return
	}
	item, ref, err := s.store.ItemByID(r.Context(), scope(r), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if version == "signed" {
		if ref.Status != envelope.StatusCompleted {
			s.writeError(w, r, envelope.Errorf(envelope.CodeInvalidRequest, "The signed version exists once the envelope is COMPLETED; it is %s", ref.Status))
			return
		}
		data, err := s.store.SealedItemFile(r.Context(), item.ID)
		if err != nil {
			s.writeError(w, r, envelope.Errorf(envelope.CodeInvalidRequest, "This envelope was completed before Sobre sealed documents; download version=original"))
			return
		}
		writePDF(w, pdfName(item.Title, "_signed.pdf"), data)
		return
	}
	data, err := s.store.OriginalFile(r.Context(), item.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writePDF(w, pdfName(item.Title, ".pdf"), data)
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
	entries, count, err := s.store.AuditPage(r.Context(), scope(r), e.ID, 1, limit, true)
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

// updateAttachment answers POST /envelope/attachment/update {id, data:{label, data}}.
func (s *Server) updateAttachment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID   *string          `json:"id"`
		Data *attachmentInput `json:"data"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	if in.ID == nil || *in.ID == "" {
		p.Add("id", "is required")
	}
	var att envelope.Attachment
	if in.Data == nil {
		p.Add("data", "is required: {label, data}")
	} else {
		att = checkAttachment(&p, "data", *in.Data)
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		cur, ref, err := tx.LockAttachment(r.Context(), scope(r), *in.ID)
		if err != nil {
			return err
		}
		if err := mayManage(r, ref.Owned()); err != nil {
			return err
		}
		if err := envelope.RequireEditable(ref.Status); err != nil {
			return err
		}
		cur.Label, cur.Data = att.Label, att.Data
		if err := tx.SaveAttachment(r.Context(), cur); err != nil {
			return err
		}
		return tx.Touch(r.Context(), ref.ID)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}

// deleteAttachment answers POST /envelope/attachment/delete {id}.
func (s *Server) deleteAttachment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID *string `json:"id"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if in.ID == nil || *in.ID == "" {
		s.writeError(w, r, &envelope.Error{Code: envelope.CodeInvalidBody, Message: "Input validation failed", Issues: []envelope.Issue{{Path: "id", Message: "is required"}}})
		return
	}
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		_, ref, err := tx.LockAttachment(r.Context(), scope(r), *in.ID)
		if err != nil {
			return err
		}
		if err := mayManage(r, ref.Owned()); err != nil {
			return err
		}
		if err := envelope.RequireEditable(ref.Status); err != nil {
			return err
		}
		if err := tx.DeleteAttachment(r.Context(), *in.ID); err != nil {
			return err
		}
		return tx.Touch(r.Context(), ref.ID)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}
