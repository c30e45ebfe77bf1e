package api

import (
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/workflows"
)

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
	id, err := s.store.CopyEnvelope(r.Context(), s.editor(r), *in.EnvelopeID, withRecipients, withFields)
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
			err = s.store.DeleteUnsent(r.Context(), s.editor(r), ref.ID)
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
		if e.Recipient(id) == nil {
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
		recipients = append(recipients, s.newDistributeRecipientView(*e.Recipient(id)))
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "id": e.ID, "recipients": recipients})
}
