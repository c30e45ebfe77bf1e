package api

import (
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/view"
)

// webhookView is a webhook as the webhook routes answer it. Secret is shown only by create and
// rotate-secret, the two moments the caller is given it; every other answer leaves it out.
type webhookView struct {
	ID                  string                  `json:"id"`
	WebhookURL          string                  `json:"webhookUrl"`
	EventTriggers       []envelope.WebhookEvent `json:"eventTriggers"`
	Enabled             bool                    `json:"enabled"`
	DocumensoCompatible bool                    `json:"documensoCompatible"`
	TeamID              int64                   `json:"teamId"`
	UserID              int64                   `json:"userId"`
	CreatedAt           string                  `json:"createdAt"`
	UpdatedAt           string                  `json:"updatedAt"`
	SecretRotatedAt     *string                 `json:"secretRotatedAt"`
	DisabledReason      *string                 `json:"disabledReason"`
	Secret              string                  `json:"secret,omitempty"`
}

// newWebhookView is w without its secret.
func newWebhookView(w persistence.Webhook) webhookView {
	triggers := w.EventTriggers
	if triggers == nil {
		triggers = []envelope.WebhookEvent{}
	}
	return webhookView{
		ID: w.ID, WebhookURL: w.URL, EventTriggers: triggers, Enabled: w.Enabled, DocumensoCompatible: w.DocumensoCompatible,
		TeamID: w.TeamID, UserID: w.UserID, CreatedAt: view.ISOTime(w.CreatedAt), UpdatedAt: view.ISOTime(w.UpdatedAt),
		SecretRotatedAt: view.ISOTimePtr(w.SecretRotatedAt), DisabledReason: w.DisabledReason,
	}
}

// newWebhookViewWithSecret is w with secret, its signing secret just made or given.
func newWebhookViewWithSecret(w persistence.Webhook, secret string) webhookView {
	v := newWebhookView(w)
	v.Secret = secret
	return v
}

// webhookCallView is one delivery of an event to a webhook, with every attempt, oldest first.
type webhookCallView struct {
	ID             string                `json:"id"`
	WebhookID      string                `json:"webhookId"`
	EventID        string                `json:"eventId"`
	Event          envelope.WebhookEvent `json:"event"`
	EnvelopeID     string                `json:"envelopeId"`
	Status         string                `json:"status"`
	Attempts       int                   `json:"attempts"`
	ResponseCode   *int                  `json:"responseCode"`
	ResponseBody   *string               `json:"responseBody"`
	Error          *string               `json:"error"`
	CreatedAt      string                `json:"createdAt"`
	UpdatedAt      string                `json:"updatedAt"`
	AttemptHistory []webhookAttemptView  `json:"attemptHistory"`
}

// webhookAttemptView is one attempt of a call; finishedAt, outcome and what it got are null
// while it is being made.
type webhookAttemptView struct {
	Attempt      int     `json:"attempt"`
	StartedAt    string  `json:"startedAt"`
	FinishedAt   *string `json:"finishedAt"`
	Outcome      *string `json:"outcome"`
	ResponseCode *int    `json:"responseCode"`
	ResponseBody *string `json:"responseBody"`
	Error        *string `json:"error"`
	DurationMs   int64   `json:"durationMs"`
}

// newWebhookCallView is c with its attempts.
func newWebhookCallView(c persistence.WebhookCall) webhookCallView {
	v := webhookCallView{
		ID: c.ID, WebhookID: c.WebhookID, EventID: c.EventID, Event: c.Event, EnvelopeID: c.EnvelopeID, Status: c.Status,
		Attempts: c.Attempts, ResponseCode: c.ResponseCode, ResponseBody: c.ResponseBody, Error: c.Error,
		CreatedAt: view.ISOTime(c.CreatedAt), UpdatedAt: view.ISOTime(c.UpdatedAt),
		AttemptHistory: make([]webhookAttemptView, 0, len(c.History)),
	}
	for _, a := range c.History {
		v.AttemptHistory = append(v.AttemptHistory, webhookAttemptView{
			Attempt: a.Attempt, StartedAt: view.ISOTime(a.StartedAt), FinishedAt: view.ISOTimePtr(a.FinishedAt), Outcome: a.Outcome,
			ResponseCode: a.ResponseCode, ResponseBody: a.ResponseBody, Error: a.Error, DurationMs: a.Duration.Milliseconds(),
		})
	}
	return v
}
