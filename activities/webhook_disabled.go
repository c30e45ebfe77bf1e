package activities

import (
	"context"
	"fmt"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
)

// DisableWebhook disables the route's webhook because its endpoint answered 410
// (persistence.WebhookGone) and mails the team's admins, once: the store gives the admins only
// until WebhookDisableMailed records them told, so a retry after a failed mail mails them again
// (with the same Message-IDs). The mail is in the language of the route's envelope (English when
// it is gone). A relay that refuses one admin for good is logged; the others are still mailed.
func (a *Activities) DisableWebhook(ctx context.Context, r envelope.WebhookRoute) error {
	admins, err := a.Store.DisableWebhook(ctx, r.WebhookID, persistence.WebhookGone)
	if err != nil {
		return domainError(err)
	}
	a.Log.WarnContext(ctx, "webhook disabled: its endpoint answered 410", "webhook", r.WebhookID, "team", r.TeamID, "admins", len(admins))
	if len(admins) == 0 {
		return nil
	}
	w, err := a.Store.Webhook(ctx, r.TeamID, r.WebhookID)
	if isNotFound(err) {
		return nil // deleted meanwhile: nothing to tell
	}
	if err != nil {
		return domainError(err)
	}
	lang := envelope.LanguageEnglish
	if snap, err := a.Store.LoadSnapshot(ctx, r.EnvelopeID); err == nil {
		lang = snap.Meta.Language
	}
	host := messageHost(a.MailHost)
	for i, admin := range admins {
		composed, err := mail.ComposeWebhookDisabled(lang, mail.WebhookDisabledData{AdminName: admin.Name, WebhookID: w.ID, URL: w.URL})
		if err != nil {
			return err
		}
		msg := mail.Message{ID: fmt.Sprintf("webhook-disabled.%s.%d@%s", w.ID, i, host), To: admin.Email, ToName: admin.Name, Composed: composed}
		if err := a.Mail.Send(ctx, msg, nil); err != nil {
			if refusal, ok := mail.Refused(err); ok && refusal.Permanent() {
				a.Log.ErrorContext(ctx, "webhook disabled mail refused", "webhook", w.ID, "answer", refusal.Answer)
				continue
			}
			return fmt.Errorf("mail the admins of team %d that webhook %s was disabled: %w", r.TeamID, w.ID, err)
		}
	}
	return domainError(a.Store.WebhookDisableMailed(ctx, r.WebhookID))
}
