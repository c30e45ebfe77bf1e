package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

type recipientsRequest struct {
	EnvelopeID *string          `json:"envelopeId"`
	Data       []recipientInput `json:"data"`
}

// pathID reads a numeric id from the URL path.
func pathID(r *http.Request, name string) (int64, error) {
	raw := chi.URLParam(r, name)
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 {
		return 0, &envelope.Error{Code: envelope.CodeInvalidBody, Message: "Input validation failed",
			Issues: []envelope.Issue{{Path: name, Message: "must be a positive integer, got " + strconv.Quote(raw)}}}
	}
	return id, nil
}

// getRecipient answers GET /envelope/recipient/{recipientId}.
func (s *Server) getRecipient(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "recipientId")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	envelopeID, err := s.store.EnvelopeIDOfRecipient(r.Context(), scope(r), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	e, err := s.store.GetEnvelope(r.Context(), scope(r), envelopeID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	for _, rec := range e.Recipients {
		if rec.ID == id {
			writeJSON(w, http.StatusOK, newRecipientDetailView(e, rec, tokensHidden(r, e)))
			return
		}
	}
	s.writeError(w, r, envelope.NotFound("Recipient"))
}

// mutableEnvelope locks and loads the envelope for a change of it or its documents, recipients,
// fields or attachments, refusing a caller who may not manage it (envelope.MayManage) and a
// finished envelope.
func (s *Server) mutableEnvelope(r *http.Request, tx *persistence.Tx, id string) (*envelope.Envelope, error) {
	ref, err := tx.LockEnvelope(r.Context(), scope(r), id)
	if err != nil {
		return nil, err
	}
	if err := mayManage(r, ref.Owned()); err != nil {
		return nil, err
	}
	e, err := tx.GetEnvelope(r.Context(), scope(r), id)
	if err != nil {
		return nil, err
	}
	if err := envelope.RequireEditable(e.Status); err != nil {
		return nil, err
	}
	return e, nil
}

// recipientsView lists recipients ids of e with their tokens, for a caller who may manage e.
func recipientsView(e *envelope.Envelope, ids []int64) []recipientView {
	out := make([]recipientView, 0, len(ids))
	for _, id := range ids {
		for _, rec := range e.Recipients {
			if rec.ID == id {
				out = append(out, newRecipientDetailView(e, rec, false))
			}
		}
	}
	return out
}

// createRecipients answers POST /envelope/recipient/create-many.
func (s *Server) createRecipients(w http.ResponseWriter, r *http.Request) {
	var in recipientsRequest
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", deref(in.EnvelopeID))
	if len(in.Data) == 0 {
		p.Add("data", "must hold at least one recipient")
	}
	for i, rin := range in.Data {
		checkRecipient(&p, envelope.Join("data", i), rin, true)
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	var e *envelope.Envelope
	var ids []int64
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		var err error
		if e, err = s.mutableEnvelope(r, tx, *in.EnvelopeID); err != nil {
			return err
		}
		if len(e.Recipients)+len(in.Data) > maxRecipients {
			return envelope.Errorf(codeRecipientLimit, "An envelope has at most %d recipients", maxRecipients)
		}
		for i, rin := range in.Data {
			// A new recipient has no fields yet: only auth can ask for a proof of its RUN.
			envelope.CheckExpectedRUT(&p, envelope.Join(envelope.Join("data", i), "expectedRut"), recipientFrom(rin), e.AuthOptions, nil)
			if e.Status == envelope.StatusPending {
				s.checkRecipientSignable(&p, envelope.Join(envelope.Join("data", i), "authOptions"), recipientFrom(rin), e.AuthOptions, nil)
			}
		}
		if err := p.Err(); err != nil {
			return err
		}
		for _, rin := range in.Data {
			rec, err := tx.AddRecipient(r.Context(), e.ID, recipientFrom(rin), s.actor(r))
			if err != nil {
				return err
			}
			ids = append(ids, rec.ID)
		}
		if err := tx.Touch(r.Context(), e.ID); err != nil {
			return err
		}
		after, err := tx.GetEnvelope(r.Context(), scope(r), e.ID)
		if err != nil {
			return err
		}
		if err := s.checkMailQuota(r.Context(), tx, e.TeamID, mailsOnRecipientChange(e, after, nil, nil)); err != nil {
			return err
		}
		e = after
		return nil
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.refreshWorkflow(r, e.ID, e.Status)
	writeJSON(w, http.StatusOK, map[string]any{"data": recipientsView(e, ids)})
}

// refreshWorkflow tells a PENDING envelope's workflow that its recipients changed. The change is
// already committed; a failure to tell is logged, and the workflow reads the envelope again at
// its next event anyway.
func (s *Server) refreshWorkflow(r *http.Request, envelopeID string, status envelope.Status) {
	if status != envelope.StatusPending || s.flows == nil {
		return
	}
	// What changed is committed: the signal must not be lost because the client went away
	// (a replaced link's new mail waits for it), so it outlives the request, within a bound.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 30*time.Second)
	defer cancel()
	if err := s.flows.Refresh(ctx, envelopeID); err != nil {
		s.log.WarnContext(ctx, "refresh envelope workflow", "envelope", envelopeID, "err", err)
	}
}

// updateRecipients answers POST /envelope/recipient/update-many: while the envelope is not
// finished, for recipients who have not acted.
func (s *Server) updateRecipients(w http.ResponseWriter, r *http.Request) {
	var in recipientsRequest
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	checkEnvelopeID(&p, "envelopeId", deref(in.EnvelopeID))
	if len(in.Data) == 0 {
		p.Add("data", "must hold at least one recipient")
	}
	seen := map[int64]bool{}
	for i, rin := range in.Data {
		path := envelope.Join("data", i)
		if rin.ID == nil {
			p.Add(envelope.Join(path, "id"), "is required")
		} else if seen[*rin.ID] {
			p.Add(envelope.Join(path, "id"), "recipient %d appears twice", *rin.ID)
		} else {
			seen[*rin.ID] = true
		}
		checkRecipient(&p, path, rin, false)
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	var e *envelope.Envelope
	var ids []int64
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		var err error
		if e, err = s.mutableEnvelope(r, tx, *in.EnvelopeID); err != nil {
			return err
		}
		var relinked []envelope.Recipient // whose link was replaced, as they were: mailed the new one
		for i, rin := range in.Data {
			path := envelope.Join("data", i)
			var cur *envelope.Recipient
			for k := range e.Recipients {
				if e.Recipients[k].ID == *rin.ID {
					cur = &e.Recipients[k]
				}
			}
			if cur == nil {
				p.Add(envelope.Join(path, "id"), "recipient %d is not in envelope %s", *rin.ID, e.ID)
				continue
			}
			next := *cur
			var changes []envelope.AuditChange
			change := func(kind string, from, to any) {
				changes = append(changes, envelope.AuditChange{Type: kind, From: from, To: to})
			}
			if rin.Email != nil && *rin.Email != cur.Email {
				change("EMAIL", cur.Email, *rin.Email)
				next.Email = *rin.Email
			}
			if rin.Name != nil && *rin.Name != cur.Name {
				change("NAME", cur.Name, *rin.Name)
				next.Name = *rin.Name
			}
			if rin.Role != nil && envelope.Role(*rin.Role) != cur.Role {
				change("ROLE", cur.Role, *rin.Role)
				next.Role = envelope.Role(*rin.Role)
			}
			if rin.SigningOrder != nil {
				next.SigningOrder = rin.SigningOrder
			}
			if rin.AccessAuth != nil {
				v := dedupe(toType[envelope.AccessAuth](rin.AccessAuth))
				change("ACCESS_AUTH", cur.AuthOptions.AccessAuth, v)
				next.AuthOptions.AccessAuth = v
			}
			if rin.ActionAuth != nil {
				v := dedupe(toType[envelope.ActionAuth](rin.ActionAuth))
				change("ACTION_AUTH", cur.AuthOptions.ActionAuth, v)
				next.AuthOptions.ActionAuth = v
			}
			if rin.ExpectedRut.Set {
				v := expectedRUT(&envelope.Problems{}, "", rin.ExpectedRut) // checked by checkRecipient
				if deref(v) != deref(cur.ExpectedRUT) {
					change("EXPECTED_RUT", cur.ExpectedRUT, v)
					next.ExpectedRUT = v
				}
			}
			envelope.CheckExpectedRUT(&p, envelope.Join(path, "expectedRut"), next, e.AuthOptions, e.Fields)
			if e.Status == envelope.StatusPending && slices.Contains(envelope.ProofsLost(envelope.RequiredProofs(*cur, e.AuthOptions, e.Fields),
				envelope.RequiredProofs(next, e.AuthOptions, e.Fields)), "expectedRut") {
				p.Add(envelope.Join(path, "expectedRut"), "the envelope was sent: the RUN the recipient must prove may not be removed or changed (cancel the envelope and send a new one)")
			}
			if e.Status == envelope.StatusPending {
				checkNotWeakened(&p, path, "accessAuth", "actionAuth", envelope.RecipientAuth(cur.AuthOptions, e.AuthOptions),
					envelope.RecipientAuth(next.AuthOptions, e.AuthOptions))
				s.checkRecipientSignable(&p, envelope.Join(path, "authOptions"), next, e.AuthOptions, e.Fields)
			}
			if next.Email == "" && (len(next.AuthOptions.AccessAuth) > 0 || len(next.AuthOptions.ActionAuth) > 0) {
				p.Add(envelope.Join(path, "email"), "is required when the recipient has access or action authentication")
			}
			if len(changes) == 0 && equalOrder(next.SigningOrder, cur.SigningOrder) {
				ids = append(ids, cur.ID)
				continue
			}
			if err := tx.RequireUnacted(r.Context(), cur.ID, envelope.FrozenRecipient); err != nil {
				return err
			}
			if !next.Role.FillsFields() {
				for _, f := range e.Fields {
					if f.RecipientID == cur.ID {
						p.Add(envelope.Join(path, "role"), "a %s recipient fills no fields; delete recipient %d's fields first", next.Role, cur.ID)
						break
					}
				}
			}
			if err := p.Err(); err != nil {
				return err
			}
			replaced, err := tx.UpdateRecipient(r.Context(), next)
			if err != nil {
				return err
			}
			if replaced {
				relinked = append(relinked, *cur)
			}
			if len(changes) > 0 {
				if err := tx.AppendAudit(r.Context(), e.ID, envelope.RecipientUpdatedAudit(next, changes, replaced), s.actor(r)); err != nil {
					return err
				}
			}
			ids = append(ids, cur.ID)
		}
		if err := p.Err(); err != nil {
			return err
		}
		if err := tx.Touch(r.Context(), e.ID); err != nil {
			return err
		}
		after, err := tx.GetEnvelope(r.Context(), scope(r), e.ID)
		if err != nil {
			return err
		}
		if err := s.checkMailQuota(r.Context(), tx, e.TeamID, mailsOnRecipientChange(e, after, relinked, nil)); err != nil {
			return err
		}
		e = after
		return nil
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.refreshWorkflow(r, e.ID, e.Status)
	writeJSON(w, http.StatusOK, map[string]any{"data": recipientsView(e, ids)})
}

func equalOrder(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// deleteRecipient answers POST /envelope/recipient/delete {recipientId}.
func (s *Server) deleteRecipient(w http.ResponseWriter, r *http.Request) {
	var in struct {
		RecipientID *int64 `json:"recipientId"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if in.RecipientID == nil {
		s.writeError(w, r, &envelope.Error{Code: envelope.CodeInvalidBody, Message: "Input validation failed",
			Issues: []envelope.Issue{{Path: "recipientId", Message: "is required"}}})
		return
	}
	var ref persistence.EnvelopeRef
	err := s.store.InTx(r.Context(), func(tx *persistence.Tx) error {
		var rec envelope.Recipient
		var err error
		rec, ref, err = tx.LockRecipient(r.Context(), scope(r), *in.RecipientID)
		if err != nil {
			return err
		}
		if err := mayManage(r, ref.Owned()); err != nil {
			return err
		}
		if err := envelope.RequireEditable(ref.Status); err != nil {
			return err
		}
		if ref.Status == envelope.StatusPending {
			// Removed and added again, a recipient would come back without what they must prove.
			e, err := tx.GetEnvelope(r.Context(), scope(r), ref.ID)
			if err != nil {
				return err
			}
			if envelope.RequiredProofs(rec, e.AuthOptions, e.Fields).MustProve() {
				return &envelope.Error{Code: envelope.CodeInvalidBody, Message: "Input validation failed", Issues: []envelope.Issue{{Path: "recipientId",
					Message: fmt.Sprintf("recipient %d must prove their identity or access, and the envelope was sent: they cannot be removed (cancel the envelope and send a new one)", rec.ID)}}}
			}
		}
		if rec.Role != envelope.RoleCC {
			if err := tx.RequireUnacted(r.Context(), rec.ID, envelope.FrozenRemoval); err != nil {
				return err
			}
		}
		if err := tx.DeleteRecipient(r.Context(), rec.ID); err != nil {
			return err
		}
		if err := tx.Touch(r.Context(), ref.ID); err != nil {
			return err
		}
		if ref.Status == envelope.StatusPending {
			after, err := tx.GetEnvelope(r.Context(), scope(r), ref.ID)
			if err != nil {
				return err
			}
			if err := s.checkMailQuota(r.Context(), tx, after.TeamID, mailsOnRecipientChange(after, after, nil, &rec)); err != nil {
				return err
			}
		}
		return tx.AppendAudit(r.Context(), ref.ID, envelope.RecipientDeletedAudit(rec), s.actor(r))
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.refreshWorkflow(r, ref.ID, ref.Status)
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}
