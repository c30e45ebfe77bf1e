package api

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/webhook"
)

// secretOverlap is how long a rotated-out secret keeps signing alongside the new one, so that
// a consumer can change its secret without refusing a delivery.
const secretOverlap = 24 * time.Hour

// webhookRoutes declares a team's webhook subscriptions (docs/webhooks.md, "Subscriptions").
// The paths are Sobre's: Documenso manages webhooks only in its web app. Every route is for a
// MANAGER or an ADMIN of the team (webhookCaller), and finds webhooks and calls in the caller's
// team only.
func (s *Server) webhookRoutes(r chi.Router) {
	r.Get("/webhook", s.findWebhooks)
	r.Post("/webhook/create", s.createWebhook)
	r.Post("/webhook/update", s.updateWebhook)
	r.Post("/webhook/delete", s.deleteWebhook)
	r.Post("/webhook/rotate-secret", s.rotateWebhookSecret)
	r.Post("/webhook/test", s.testWebhook)
	r.Post("/webhook/call/resend", s.resendWebhookCall)
	r.Get("/webhook/{id}/calls", s.findWebhookCalls)
	r.Get("/webhook/{id}", s.getWebhook)
}

// webhookInput is the body of create, update, delete and rotate-secret; each reads the
// members it takes. Pointers tell an absent member from a zero one.
type webhookInput struct {
	ID                  *string                 `json:"id"`
	WebhookURL          *string                 `json:"webhookUrl"`
	EventTriggers       []envelope.WebhookEvent `json:"eventTriggers"`
	Enabled             *bool                   `json:"enabled"`
	Secret              *string                 `json:"secret"`
	DocumensoCompatible *bool                   `json:"documensoCompatible"`
}

// webhookCaller is the caller of r when it may manage its team's webhooks
// (envelope.MayManageWebhooks); otherwise it answers the refusal and ok is false.
func (s *Server) webhookCaller(w http.ResponseWriter, r *http.Request) (m envelope.Member, ok bool) {
	m = member(r)
	if err := envelope.MayManageWebhooks(m); err != nil {
		s.writeError(w, r, err)
		return m, false
	}
	return m, true
}

// decodeWebhookBody reads r's body into in and records in p the problems check finds; it
// answers the first error itself and returns false then.
func (s *Server) decodeWebhookBody(w http.ResponseWriter, r *http.Request, in any, check func(p *envelope.Problems)) bool {
	if err := decodeJSON(r, in); err != nil {
		s.writeError(w, r, err)
		return false
	}
	var p envelope.Problems
	check(&p)
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return false
	}
	return true
}

// checkRequiredID records at path a problem when id is absent or empty.
func checkRequiredID(p *envelope.Problems, path string, id *string) {
	if id == nil || *id == "" {
		p.Add(path, "is required")
	}
}

// checkWebhookURL records at webhookUrl why raw may not be a webhook's URL under the server's
// policy (webhook.Policy.CheckURL), or that it is missing when required.
func (s *Server) checkWebhookURL(ctx context.Context, p *envelope.Problems, raw *string, required bool) {
	if raw == nil {
		if required {
			p.Add("webhookUrl", "is required: an https URL")
		}
		return
	}
	if err := s.webhooks.Policy.CheckURL(ctx, *raw, s.webhooks.Resolver); err != nil {
		p.Add("webhookUrl", "%v", err)
	}
}

// createWebhook answers POST /webhook/create: the new webhook, with its secret shown this once.
// Without a secret, a new one is made (webhook.NewSecret).
func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) {
	m, ok := s.webhookCaller(w, r)
	if !ok {
		return
	}
	var in webhookInput
	secret := webhook.NewSecret()
	if !s.decodeWebhookBody(w, r, &in, func(p *envelope.Problems) {
		s.checkWebhookURL(r.Context(), p, in.WebhookURL, true)
		envelope.CheckWebhookTriggers(p, "eventTriggers", in.EventTriggers)
		if in.Secret != nil {
			secret = *in.Secret
			if err := webhook.CheckSecret(secret, deref(in.DocumensoCompatible)); err != nil {
				p.Add("secret", "%v", err)
			}
		}
	}) {
		return
	}
	wh, err := s.store.CreateWebhook(r.Context(), m, persistence.NewWebhook{
		URL: *in.WebhookURL, EventTriggers: in.EventTriggers, Enabled: in.Enabled == nil || *in.Enabled,
		DocumensoCompatible: deref(in.DocumensoCompatible), Secret: secret,
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, newWebhookViewWithSecret(wh, secret))
}

// findWebhooks answers GET /webhook: a page of the team's webhooks, oldest first.
func (s *Server) findWebhooks(w http.ResponseWriter, r *http.Request) {
	m, ok := s.webhookCaller(w, r)
	if !ok {
		return
	}
	writeWebhookPage(s, w, r, nil, func(page, perPage int) ([]persistence.Webhook, int, error) {
		return s.store.Webhooks(r.Context(), m.TeamID, page, perPage)
	}, newWebhookView)
}

// writeWebhookPage answers a page of a webhook list: it reads ?page (from 1) and ?perPage (1
// to 100, 10 when absent), and what more reads of the query, answers their problems in one 400,
// or else the items find gives, each shown by show.
func writeWebhookPage[T, V any](s *Server, w http.ResponseWriter, r *http.Request, more func(q query),
	find func(page, perPage int) ([]T, int, error), show func(T) V) {
	var p envelope.Problems
	q := query{values: r.URL.Query(), problems: &p}
	page, perPage := q.int("page", 1, 1, 1<<30), q.int("perPage", 10, 1, 100)
	if more != nil {
		more(q)
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	list, count, err := find(page, perPage)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	views := make([]V, 0, len(list))
	for _, item := range list {
		views = append(views, show(item))
	}
	writeJSON(w, http.StatusOK, newPageView(views, count, page, perPage))
}

// getWebhook answers GET /webhook/{id}.
func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request) {
	m, ok := s.webhookCaller(w, r)
	if !ok {
		return
	}
	wh, err := s.store.Webhook(r.Context(), m.TeamID, chi.URLParam(r, "id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, newWebhookView(wh))
}

// updateWebhook answers POST /webhook/update: the members given change, the others stay.
// Enabling a webhook clears why Sobre disabled it. The secret changes only by rotate-secret.
func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request) {
	m, ok := s.webhookCaller(w, r)
	if !ok {
		return
	}
	var in webhookInput
	if !s.decodeWebhookBody(w, r, &in, func(p *envelope.Problems) {
		checkRequiredID(p, "id", in.ID)
		s.checkWebhookURL(r.Context(), p, in.WebhookURL, false)
		if in.EventTriggers != nil {
			envelope.CheckWebhookTriggers(p, "eventTriggers", in.EventTriggers)
		}
		if in.Secret != nil {
			p.Add("secret", "cannot be changed by update: POST /webhook/rotate-secret makes a new one")
		}
	}) {
		return
	}
	if in.DocumensoCompatible != nil && !*in.DocumensoCompatible {
		if err := s.checkStandardSecret(r.Context(), m.TeamID, *in.ID); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	wh, err := s.store.UpdateWebhook(r.Context(), m.TeamID, *in.ID, persistence.WebhookUpdate{
		URL: in.WebhookURL, EventTriggers: in.EventTriggers, Enabled: in.Enabled, DocumensoCompatible: in.DocumensoCompatible,
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, newWebhookView(wh))
}

// checkStandardSecret refuses to turn documensoCompatible off for webhook id of team teamID
// while its secret is one only a documensoCompatible webhook may have (webhook.CheckSecret):
// its secret must first be rotated to a Standard Webhooks one.
func (s *Server) checkStandardSecret(ctx context.Context, teamID int64, id string) error {
	if _, err := s.store.Webhook(ctx, teamID, id); err != nil {
		return err
	}
	secrets, _, err := s.store.WebhookSecrets(ctx, id, time.Now())
	if err != nil {
		return err
	}
	if webhook.CheckSecret(secrets[0], false) != nil {
		return envelope.Invalid("documensoCompatible", "may be false only with a %s secret: rotate the secret first (POST /webhook/rotate-secret)", webhook.SecretPrefix)
	}
	return nil
}

// webhookByID is the caller of r, when it may manage webhooks, and the webhook id its body
// names ({id}); otherwise it answers the refusal and ok is false.
func (s *Server) webhookByID(w http.ResponseWriter, r *http.Request) (m envelope.Member, id string, ok bool) {
	m, ok = s.webhookCaller(w, r)
	if !ok {
		return m, "", false
	}
	var in webhookInput
	if !s.decodeWebhookBody(w, r, &in, func(p *envelope.Problems) { checkRequiredID(p, "id", in.ID) }) {
		return m, "", false
	}
	return m, *in.ID, true
}

// deleteWebhook answers POST /webhook/delete: the webhook goes with its calls.
func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	m, id, ok := s.webhookByID(w, r)
	if !ok {
		return
	}
	if err := s.store.DeleteWebhook(r.Context(), m.TeamID, id); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}

// rotateWebhookSecret answers POST /webhook/rotate-secret: the webhook with its new secret,
// shown this once; the old one keeps signing alongside it for secretOverlap.
func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	m, id, ok := s.webhookByID(w, r)
	if !ok {
		return
	}
	secret := webhook.NewSecret()
	wh, err := s.store.RotateWebhookSecret(r.Context(), m.TeamID, id, secret, secretOverlap)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, newWebhookViewWithSecret(wh, secret))
}
