// Webhooks: a team's subscriptions and their sealed signing secrets.

package persistence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// Webhook is one of a team's subscriptions, without its secret.
type Webhook struct {
	ID                  string
	TeamID              int64
	UserID              int64
	URL                 string
	EventTriggers       []envelope.WebhookEvent
	Enabled             bool
	DocumensoCompatible bool
	SecretRotatedAt     *time.Time
	// DisabledReason is why Sobre disabled it (WebhookGone), nil when it did not.
	DisabledReason *string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// WebhookGone is the DisabledReason of a webhook whose endpoint answered 410 Gone.
const WebhookGone = "GONE"

// NewWebhook is what creating a webhook stores. Secret is already checked.
type NewWebhook struct {
	URL                 string
	EventTriggers       []envelope.WebhookEvent
	Enabled             bool
	DocumensoCompatible bool
	Secret              string
}

// WebhookUpdate is a change of a webhook: nil members are left as they are.
type WebhookUpdate struct {
	URL                 *string
	EventTriggers       []envelope.WebhookEvent
	Enabled             *bool
	DocumensoCompatible *bool
}

const webhookColumns = `id, team_id, user_id, webhook_url, event_triggers, enabled, documenso_compatible,
	secret_rotated_at, disabled_reason, created_at, updated_at`

func scanWebhook(row pgx.Row) (Webhook, error) {
	var w Webhook
	var triggers []string
	err := row.Scan(&w.ID, &w.TeamID, &w.UserID, &w.URL, &triggers, &w.Enabled, &w.DocumensoCompatible,
		&w.SecretRotatedAt, &w.DisabledReason, &w.CreatedAt, &w.UpdatedAt)
	w.EventTriggers = toEnums[envelope.WebhookEvent](triggers)
	return w, err
}

// webhookSecretContext binds a sealed secret to its webhook, so that one webhook's secret never
// opens as another's.
func webhookSecretContext(id string) []byte { return []byte("webhook-secret:" + id) }

// sealSecret seals secret for webhook id.
func (s *Store) sealSecret(id, secret string) (keyID string, sealed []byte, err error) {
	if s.ring == nil {
		return "", nil, ErrNoKeyring
	}
	keyID, sealed = s.ring.Seal([]byte(secret), webhookSecretContext(id))
	return keyID, sealed, nil
}

// CreateWebhook stores a new webhook of member m's team, created by m. A team has at most
// envelope.MaxWebhooks.
func (s *Store) CreateWebhook(ctx context.Context, m envelope.Member, in NewWebhook) (Webhook, error) {
	id := "wh_" + randomString(idAlphabet, 20)
	keyID, sealed, err := s.sealSecret(id, in.Secret)
	if err != nil {
		return Webhook{}, err
	}
	var w Webhook
	err = s.InTx(ctx, func(tx *Tx) error {
		// The team's row is locked so that two creations cannot both pass the limit. The count
		// is a statement of its own: under READ COMMITTED a statement sees the rows committed
		// before it starts, so a count in the statement that waits for the lock would miss the
		// webhook its holder created.
		if _, err := tx.q.Exec(ctx, `SELECT 1 FROM teams WHERE id = $1 FOR UPDATE`, m.TeamID); err != nil {
			return fmt.Errorf("lock team %d: %w", m.TeamID, err)
		}
		var n int
		if err := tx.q.QueryRow(ctx, `SELECT count(*) FROM webhooks WHERE team_id = $1`, m.TeamID).Scan(&n); err != nil {
			return fmt.Errorf("count webhooks of team %d: %w", m.TeamID, err)
		}
		if n >= envelope.MaxWebhooks {
			return envelope.Errorf(envelope.CodeInvalidRequest, "A team may have at most %d webhooks", envelope.MaxWebhooks)
		}
		w, err = scanWebhook(tx.q.QueryRow(ctx, `INSERT INTO webhooks (id, team_id, user_id, webhook_url, event_triggers, enabled,
			documenso_compatible, secret_key, secret) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING `+webhookColumns,
			id, m.TeamID, m.UserID, in.URL, fromEnums(in.EventTriggers), in.Enabled, in.DocumensoCompatible, keyID, sealed))
		if err != nil {
			return fmt.Errorf("create webhook: %w", err)
		}
		return nil
	})
	return w, err
}

// Webhook returns webhook id of team teamID; another team's is NOT_FOUND.
func (s *Store) Webhook(ctx context.Context, teamID int64, id string) (Webhook, error) {
	w, err := scanWebhook(s.pool.QueryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = $1 AND team_id = $2`, id, teamID))
	if err != nil {
		return w, notFound(err, "Webhook")
	}
	return w, nil
}

// Webhooks returns page page (from 1) of team teamID's webhooks, oldest first, and their count.
func (s *Store) Webhooks(ctx context.Context, teamID int64, page, perPage int) ([]Webhook, int, error) {
	var count int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM webhooks WHERE team_id = $1`, teamID).Scan(&count); err != nil {
		return nil, 0, fmt.Errorf("count webhooks of team %d: %w", teamID, err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE team_id = $1 ORDER BY created_at, id
		LIMIT $2 OFFSET $3`, teamID, perPage, (page-1)*perPage)
	if err != nil {
		return nil, 0, fmt.Errorf("list webhooks of team %d: %w", teamID, err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Webhook, error) { return scanWebhook(row) })
	if err != nil {
		return nil, 0, fmt.Errorf("read webhooks of team %d: %w", teamID, err)
	}
	return list, count, nil
}

// UpdateWebhook changes webhook id of team teamID as in says. Enabling it clears why Sobre
// disabled it and hands its pending calls to the dispatcher again.
func (s *Store) UpdateWebhook(ctx context.Context, teamID int64, id string, in WebhookUpdate) (Webhook, error) {
	var triggers []string
	if in.EventTriggers != nil {
		triggers = fromEnums(in.EventTriggers)
	}
	var w Webhook
	err := s.InTx(ctx, func(tx *Tx) error {
		var compatible bool
		var url string
		if err := tx.q.QueryRow(ctx, `SELECT documenso_compatible, webhook_url FROM webhooks WHERE id = $1 AND team_id = $2 FOR UPDATE`,
			id, teamID).Scan(&compatible, &url); err != nil {
			return notFound(err, "Webhook")
		}
		var p envelope.Problems
		envelope.CheckWebhookUpdate(&p, compatible, in.DocumensoCompatible, in.URL != nil && *in.URL != url)
		if err := p.Err(); err != nil {
			return err
		}
		var err error
		w, err = scanWebhook(tx.q.QueryRow(ctx, `UPDATE webhooks SET
			webhook_url = coalesce($3, webhook_url),
			event_triggers = coalesce($4, event_triggers),
			enabled = coalesce($5, enabled),
			documenso_compatible = coalesce($6, documenso_compatible),
			disabled_reason = CASE WHEN $5 THEN NULL ELSE disabled_reason END,
			disabled_mailed_at = CASE WHEN $5 THEN NULL ELSE disabled_mailed_at END,
			updated_at = now()
			WHERE id = $1 AND team_id = $2 RETURNING `+webhookColumns, id, teamID, in.URL, triggers, in.Enabled, in.DocumensoCompatible))
		if err != nil {
			return notFound(err, "Webhook")
		}
		if in.Enabled != nil && *in.Enabled {
			return tx.redispatch(ctx, id)
		}
		return nil
	})
	return w, err
}

// DeleteWebhook deletes webhook id of team teamID with its calls and their attempts.
func (s *Store) DeleteWebhook(ctx context.Context, teamID int64, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM webhooks WHERE id = $1 AND team_id = $2`, id, teamID)
	if err != nil {
		return fmt.Errorf("delete webhook %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return envelope.NotFound("Webhook")
	}
	return nil
}

// RotateWebhookSecret makes secret the signing secret of webhook id of team teamID; the one it
// replaces keeps signing alongside it for keepOld.
func (s *Store) RotateWebhookSecret(ctx context.Context, teamID int64, id, secret string, keepOld time.Duration) (Webhook, error) {
	keyID, sealed, err := s.sealSecret(id, secret)
	if err != nil {
		return Webhook{}, err
	}
	w, err := scanWebhook(s.pool.QueryRow(ctx, `UPDATE webhooks SET previous_secret_key = secret_key, previous_secret = secret,
		previous_secret_until = now() + $5 * interval '1 millisecond', secret_key = $3, secret = $4, secret_rotated_at = now(),
		updated_at = now() WHERE id = $1 AND team_id = $2 RETURNING `+webhookColumns, id, teamID, keyID, sealed, keepOld.Milliseconds()))
	if err != nil {
		return w, notFound(err, "Webhook")
	}
	return w, nil
}

// WebhookSecrets returns the secrets that sign webhook id's requests at now: its secret, then the
// one it replaced while that one still signs. documensoSecret is the secret an
// X-Documenso-Secret header carries, empty unless the webhook is documensoCompatible.
func (s *Store) WebhookSecrets(ctx context.Context, id string, now time.Time) (secrets []string, documensoSecret string, err error) {
	if s.ring == nil {
		return nil, "", ErrNoKeyring
	}
	var keyID string
	var sealed []byte
	var prevKey *string
	var prev []byte
	var prevUntil *time.Time
	var compatible bool
	err = s.pool.QueryRow(ctx, `SELECT secret_key, secret, previous_secret_key, previous_secret, previous_secret_until, documenso_compatible
		FROM webhooks WHERE id = $1`, id).Scan(&keyID, &sealed, &prevKey, &prev, &prevUntil, &compatible)
	if err != nil {
		return nil, "", notFound(err, "Webhook")
	}
	cur, err := s.ring.Open(keyID, sealed, webhookSecretContext(id))
	if err != nil {
		return nil, "", fmt.Errorf("open the secret of webhook %s: %w", id, err)
	}
	secrets = []string{string(cur)}
	if prevKey != nil && prevUntil != nil && now.Before(*prevUntil) {
		old, err := s.ring.Open(*prevKey, prev, webhookSecretContext(id))
		if err != nil {
			return nil, "", fmt.Errorf("open the previous secret of webhook %s: %w", id, err)
		}
		secrets = append(secrets, string(old))
	}
	if compatible {
		documensoSecret = secrets[0]
	}
	return secrets, documensoSecret, nil
}

// DisableWebhook disables webhook id because of reason (WebhookGone) and returns the team's
// admins to tell, unless they were told already since it was last enabled (none then); once
// told, WebhookDisableMailed records it, so that a retry after a failed mail tells them again.
func (s *Store) DisableWebhook(ctx context.Context, id, reason string) (admins []envelope.Person, err error) {
	err = s.InTx(ctx, func(tx *Tx) error {
		var mailed *time.Time
		var teamID int64
		err := tx.q.QueryRow(ctx, `UPDATE webhooks SET enabled = false, disabled_reason = $2, updated_at = now()
			WHERE id = $1 RETURNING team_id, disabled_mailed_at`, id, reason).Scan(&teamID, &mailed)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // deleted meanwhile
		}
		if err != nil {
			return fmt.Errorf("disable webhook %s: %w", id, err)
		}
		if mailed != nil {
			return nil
		}
		rows, err := tx.q.Query(ctx, `SELECT u.name, u.email FROM team_members m JOIN users u ON u.id = m.user_id
			WHERE m.team_id = $1 AND m.role = 'ADMIN' AND NOT u.disabled ORDER BY u.id`, teamID)
		if err != nil {
			return fmt.Errorf("admins of team %d: %w", teamID, err)
		}
		admins, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (envelope.Person, error) {
			var p envelope.Person
			return p, row.Scan(&p.Name, &p.Email)
		})
		if err != nil {
			return fmt.Errorf("read admins of team %d: %w", teamID, err)
		}
		return nil
	})
	return admins, err
}

// WebhookDisableMailed records that the admins were told that webhook id was disabled.
func (s *Store) WebhookDisableMailed(ctx context.Context, id string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE webhooks SET disabled_mailed_at = now() WHERE id = $1 AND NOT enabled`, id); err != nil {
		return fmt.Errorf("webhook %s: record its admins told: %w", id, err)
	}
	return nil
}
