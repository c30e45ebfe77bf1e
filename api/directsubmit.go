package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// Submits of one direct link: at most directPerLink a minute from everyone, and at most
// directPerClient a minute from one client address (IPv6: its /64), refused submits included,
// besides the per-address limit (SOBRE_RATE_LIMIT_IP) every request counts against.
var (
	directPerLink   = config.RateLimit{Requests: 30, Window: time.Minute}
	directPerClient = config.RateLimit{Requests: 5, Window: time.Minute}
)

const (
	policyDirectLink   = "direct-link"
	policyDirectClient = "direct-link-client"
)

type directFieldInput struct {
	FieldID *int64          `json:"fieldId"`
	Value   json.RawMessage `json:"value"`
}

type directSubmitInput struct {
	Name              *string            `json:"name"`
	Email             *string            `json:"email"`
	TemplateUpdatedAt *time.Time         `json:"templateUpdatedAt"`
	ExternalID        *string            `json:"externalId"`
	Fields            []directFieldInput `json:"fields"`
}

// directSubmitRoutes is the public page's action: no API key, the link's token is the
// credential.
func (s *Server) directSubmitRoutes(r chi.Router) {
	s.limitDirectLink = newLimiter(policyDirectLink, directPerLink)
	s.limitDirectClient = newLimiter(policyDirectClient, directPerClient)
	r.With(s.jsonBodies).Post("/direct/{token}", s.submitDirectLink)
}

// submitDirectLink answers POST /api/v2/direct/{token} {name, email, templateUpdatedAt,
// externalId?, fields: [{fieldId, value}]}: the visitor signs the direct recipient's fields of
// the link's template. A DOCUMENT is made from the template with the visitor in the direct
// recipient's place, their values in its fields and their signature recorded, all in one
// transaction (persistence.SubmitDirectLink); then its workflow starts, which sends it to the
// template's other recipients. It answers {success, envelopeId, documentId, redirectUrl}: the
// document's redirectUrl, else the visitor's signing page, which shows that they signed. An
// unknown link is 404 and a link not in use 410 before the body is read; the body is capped at
// SOBRE_MAX_BODY_BYTES (413) whatever its Content-Type.
func (s *Server) submitDirectLink(w http.ResponseWriter, r *http.Request) {
	token := chi.URLParam(r, "token")
	if !s.take(s.limitDirectLink, w, r, token) || !s.take(s.limitDirectClient, w, r, token+" "+httprate.CanonicalizeIP(s.clientIP(r))) {
		return
	}
	// The link first, so an unknown or disabled one costs no read of its body (jsonBodies caps
	// it as JSON whatever its Content-Type says).
	link, tpl, err := s.store.DirectLinkByToken(r.Context(), token)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := envelope.CheckDirectUse(tpl, link); err != nil {
		s.writeError(w, r, err)
		return
	}
	var in directSubmitInput
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	visitor := envelope.DirectVisitor{Name: deref(in.Name), Email: deref(in.Email)}
	var p envelope.Problems
	envelope.CheckDirectVisitor(&p, visitor)
	if in.TemplateUpdatedAt == nil {
		p.Add("templateUpdatedAt", "is required: the template's updatedAt the page showed")
	}
	if in.ExternalID != nil {
		envelope.CheckLength(&p, "externalId", *in.ExternalID, 0, envelope.MaxExternalID)
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	sub := persistence.DirectSubmission{Token: token, TemplateUpdatedAt: *in.TemplateUpdatedAt, Values: map[int64]*persistence.FieldValue{},
		Checks: s.editChecks(), Actor: envelope.RecipientActor(envelope.Recipient{Name: visitor.Name, Email: visitor.Email}, s.clientIP(r), r.UserAgent())}
	for i, rec := range tpl.Recipients {
		if rec.ID == link.RecipientID {
			sub.DirectIndex = i
		}
	}
	for _, f := range tpl.Fields {
		if f.RecipientID == link.RecipientID {
			sub.FieldIDs = append(sub.FieldIDs, f.ID)
		}
	}
	if err := directValues(tpl, link, in.Fields, sub.Values); err != nil {
		s.writeError(w, r, err)
		return
	}
	use := usePayload{ExternalID: in.ExternalID,
		Recipients: []useRecipientInput{{ID: &link.RecipientID, Email: &visitor.Email, Name: &visitor.Name}}}
	ne, err := s.documentFromTemplate(r, &p, tpl, &use, nil)
	if err == nil {
		err = p.Err()
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ne.Envelope.Source = envelope.SourceTemplateDirectLink
	created := envelope.DirectCreatedAudit(ne.Envelope.Title, tpl.LegacyID, visitor.Email)
	ne.Created = &created
	sub.Document = ne
	e, err := s.store.SubmitDirectLink(r.Context(), sub)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// The visitor's signature is recorded and the envelope PENDING: should the workflow not
	// start now, `sobre repair` starts it (a PENDING envelope without one).
	if err := s.flows.Distribute(r.Context(), e.ID, e.TeamID); err != nil {
		s.log.ErrorContext(r.Context(), "direct link: start the workflow", "envelope", e.ID, "err", err)
	}
	next := s.cfg.PublicURL + "/sign/" + e.Recipients[sub.DirectIndex].Token
	if e.Meta.RedirectURL != nil && *e.Meta.RedirectURL != "" {
		next = *e.Meta.RedirectURL
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "envelopeId": e.ID, "documentId": e.LegacyID, "redirectUrl": next})
}

// directValues reads the visitor's values into values, keyed by the template field's id: each
// names a field of the direct recipient, once, and is valid for it (fieldValue, as the signing
// API takes it).
func directValues(tpl *envelope.Envelope, link envelope.DirectLink, in []directFieldInput, values map[int64]*persistence.FieldValue) error {
	for i, fi := range in {
		path := envelope.Join("fields", i)
		if fi.FieldID == nil {
			return envelope.Invalid(envelope.Join(path, "fieldId"), "is required")
		}
		var field *envelope.Field
		for j := range tpl.Fields {
			if tpl.Fields[j].ID == *fi.FieldID && tpl.Fields[j].RecipientID == link.RecipientID {
				field = &tpl.Fields[j]
			}
		}
		if field == nil {
			return envelope.Invalid(envelope.Join(path, "fieldId"), "field %d is not one of the direct recipient's", *fi.FieldID)
		}
		if _, twice := values[field.ID]; twice {
			return envelope.Invalid(envelope.Join(path, "fieldId"), "field %d is given twice", field.ID)
		}
		v, err := fieldValue(*field, tpl.Meta, fi.Value)
		if err != nil {
			return underPath(err, path)
		}
		values[field.ID] = v
	}
	return nil
}

// underPath puts the issues of err, a value's refusal (issue paths such as "value"), under path
// ("fields[2].value"), its message naming its one issue again; any other error stays as it is.
func underPath(err error, path string) error {
	var e *envelope.Error
	if !errors.As(err, &e) || e.Code != envelope.CodeInvalidBody || len(e.Issues) == 0 {
		return err
	}
	var p envelope.Problems
	for _, is := range e.Issues {
		at := path
		if is.Path != "" {
			at = envelope.Join(path, is.Path)
		}
		p.Add(at, "%s", is.Message)
	}
	return p.Err()
}
