package api

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/view"
	"github.com/sobre-sign/sobre/workflows"
)

type distributeRecipientView struct {
	ID           int64         `json:"id"`
	Name         string        `json:"name"`
	Email        string        `json:"email"`
	Token        string        `json:"token"`
	Role         envelope.Role `json:"role"`
	SigningOrder *int          `json:"signingOrder"`
	SigningURL   string        `json:"signingUrl"`
}

func (s *Server) signingURL(token string) string { return s.cfg.PublicURL + "/sign/" + token }

// newDistributeRecipientView is a recipient with its signing link, as distribute, use and
// redistribute answer.
func (s *Server) newDistributeRecipientView(rec envelope.Recipient) distributeRecipientView {
	return distributeRecipientView{ID: rec.ID, Name: rec.Name, Email: rec.Email, Token: rec.Token,
		Role: rec.Role, SigningOrder: rec.SigningOrder, SigningURL: s.signingURL(rec.Token)}
}

// distributeRecipientsView lists every recipient of e with its signing link.
func (s *Server) distributeRecipientsView(e *envelope.Envelope) []distributeRecipientView {
	out := make([]distributeRecipientView, 0, len(e.Recipients))
	for _, rec := range e.Recipients {
		out = append(out, s.newDistributeRecipientView(rec))
	}
	return out
}

// distributeEnvelope answers POST /envelope/distribute: the meta is saved first, then the
// envelope's workflow starts (or, for a PENDING envelope, sends to whoever was not sent yet).
func (s *Server) distributeEnvelope(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EnvelopeID *string             `json:"envelopeId"`
		Meta       *envelope.MetaInput `json:"meta"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", deref(in.EnvelopeID))
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	e, err := s.store.PrepareDistribution(r.Context(), s.editor(r), s.editChecks(), *in.EnvelopeID, in.Meta)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.flows.Distribute(r.Context(), e.ID, e.TeamID); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "id": e.ID, "recipients": s.distributeRecipientsView(e)})
}

// cancelEnvelope answers POST /envelope/cancel {envelopeId, reason?}: a PENDING envelope ends
// CANCELLED. Its owner, a MANAGER or an ADMIN may cancel it.
func (s *Server) cancelEnvelope(w http.ResponseWriter, r *http.Request) {
	var in struct {
		EnvelopeID *string `json:"envelopeId"`
		Reason     *string `json:"reason"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", deref(in.EnvelopeID))
	if in.Reason != nil {
		envelope.CheckLength(&p, "reason", *in.Reason, 0, envelope.MaxReason)
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	ref, err := s.store.EnvelopeRef(r.Context(), scope(r), *in.EnvelopeID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := mayManage(r, ref.Owned()); err != nil {
		s.writeError(w, r, err)
		return
	}
	if ref.Status != envelope.StatusPending {
		s.writeError(w, r, envelope.Errorf(envelope.CodeInvalidRequest, "Only a PENDING envelope can be cancelled; this one is %s", ref.Status))
		return
	}
	if err := s.flows.Cancel(r.Context(), ref.ID, workflows.CancelRequest{Reason: deref(in.Reason), Actor: s.actor(r)}); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}

// rejectRecipient answers POST /envelope/recipient/{recipientId}/reject: a rejection recorded
// by the API on the recipient's behalf, flagged as external in the audit log.
func (s *Server) rejectRecipient(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(chi.URLParam(r, "recipientId"), 10, 64)
	if err != nil || id < 1 {
		s.writeError(w, r, envelope.Errorf(envelope.CodeInvalidBody, "recipientId must be a positive integer"))
		return
	}
	var in struct {
		EnvelopeID *string `json:"envelopeId"`
		Reason     *string `json:"reason"`
		ActAsEmail *string `json:"actAsEmail"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", deref(in.EnvelopeID))
	if in.Reason == nil {
		p.Add("reason", "is required")
	} else {
		envelope.CheckLength(&p, "reason", *in.Reason, 1, envelope.MaxReason)
	}
	if in.ActAsEmail != nil && !envelope.ValidEmail(*in.ActAsEmail) {
		p.Add("actAsEmail", "must be an email address, got %q", *in.ActAsEmail)
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	envelopeID, err := s.store.EnvelopeIDOfRecipient(r.Context(), scope(r), id)
	if err != nil || envelopeID != *in.EnvelopeID {
		s.writeError(w, r, envelope.NotFound("Recipient"))
		return
	}
	before, err := s.store.EnvelopeRef(r.Context(), scope(r), envelopeID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := mayManage(r, before.Owned()); err != nil {
		s.writeError(w, r, err)
		return
	}
	// The entry's actor is always the caller; the member it acts for (actAsEmail, else the
	// caller) is named beside it, in its data.
	actor := s.actor(r)
	onBehalfOf := actor
	if in.ActAsEmail != nil {
		m, err := s.actingFor(r, "actAsEmail", *in.ActAsEmail)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		onBehalfOf = envelope.MemberActor(m, "", "")
	}
	if err := envelope.RequirePending(before.Status); err != nil {
		s.writeError(w, r, err) // a DRAFT has no workflow yet; a finished envelope's has ended
		return
	}
	req := workflows.RejectRequest{RecipientID: id, Reason: *in.Reason, Actor: actor, External: true, OnBehalfOf: &onBehalfOf}
	if err := s.flows.Reject(r.Context(), envelopeID, req); err != nil {
		s.writeError(w, r, err)
		return
	}
	e, err := s.store.GetEnvelope(r.Context(), scope(r), envelopeID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rec := e.Recipient(id)
	if rec == nil {
		s.writeError(w, r, envelope.NotFound("Recipient"))
		return
	}
	writeJSON(w, http.StatusOK, view.NewRecipientDetail(e, *rec, false)) // the caller may manage e
}

// actingFor returns the team member named by email (the member at path in the request) for the
// caller to act in their name, if the caller may (envelope.MayActFor): a name outside the team
// is refused with 403, as is a MEMBER naming anyone but themself.
func (s *Server) actingFor(r *http.Request, path, email string) (envelope.Member, error) {
	caller := member(r)
	m, err := s.store.FindMemberByEmail(r.Context(), caller.TeamID, email)
	if envelope.IsNotFound(err) {
		return m, envelope.Errorf(envelope.CodeForbidden, "%s: %s is not a member of this team", path, email)
	}
	if err != nil {
		return m, err
	}
	return m, envelope.MayActFor(caller, m)
}
