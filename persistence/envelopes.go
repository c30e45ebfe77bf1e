// Envelopes: reading whole envelopes with their children.

package persistence

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/keyring"
)

const envelopeColumns = `e.id, e.secondary_id, e.legacy_id, e.internal_version, e.type, e.status, e.source,
	e.visibility, e.template_type, e.external_id, e.created_at, e.updated_at, e.completed_at, e.deleted_at,
	e.title, e.global_access_auth, e.global_action_auth, e.form_values, e.public_title, e.public_description,
	e.user_id, e.team_id, e.folder_id, e.template_id, e.document_meta, t.url, u.name, u.email`

const envelopeFrom = `envelopes e JOIN teams t ON t.id = e.team_id JOIN users u ON u.id = e.user_id`

func scanEnvelope(row pgx.Row) (*envelope.Envelope, error) {
	var e envelope.Envelope
	var accessAuth, actionAuth []string
	var formValues, meta []byte
	err := row.Scan(&e.ID, &e.SecondaryID, &e.LegacyID, &e.InternalVersion, &e.Type, &e.Status, &e.Source,
		&e.Visibility, &e.TemplateType, &e.ExternalID, &e.CreatedAt, &e.UpdatedAt, &e.CompletedAt, &e.DeletedAt,
		&e.Title, &accessAuth, &actionAuth, &formValues, &e.PublicTitle, &e.PublicDescription,
		&e.UserID, &e.TeamID, &e.FolderID, &e.TemplateID, &meta, &e.Team.URL, &e.User.Name, &e.User.Email)
	if err != nil {
		return nil, err
	}
	e.Team.ID, e.User.ID = e.TeamID, e.UserID
	e.AuthOptions = envelope.AuthOptions{GlobalAccessAuth: toEnums[envelope.AccessAuth](accessAuth), GlobalActionAuth: toEnums[envelope.ActionAuth](actionAuth)}
	if len(formValues) > 0 && string(formValues) != "null" {
		if err := json.Unmarshal(formValues, &e.FormValues); err != nil {
			return nil, fmt.Errorf("decode form values of %s: %w", e.ID, err)
		}
	}
	if err := json.Unmarshal(meta, &e.Meta); err != nil {
		return nil, fmt.Errorf("decode document meta of %s: %w", e.ID, err)
	}
	return &e, nil
}

func toEnums[T ~string](in []string) []T {
	out := make([]T, 0, len(in))
	for _, s := range in {
		out = append(out, T(s))
	}
	return out
}

func fromEnums[T ~string](in []T) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		out = append(out, string(s))
	}
	return out
}

// GetEnvelope returns the whole envelope id as the scope sees it.
func (s *Store) GetEnvelope(ctx context.Context, sc Scope, id string) (*envelope.Envelope, error) {
	return getEnvelope(ctx, s.pool, s.ring, sc, id)
}

// GetEnvelope returns the whole envelope id within the transaction.
func (tx *Tx) GetEnvelope(ctx context.Context, sc Scope, id string) (*envelope.Envelope, error) {
	return getEnvelope(ctx, tx.q, tx.ring, sc, id)
}

func getEnvelope(ctx context.Context, q querier, ring *keyring.Ring, sc Scope, id string) (*envelope.Envelope, error) {
	e, err := scanEnvelope(q.QueryRow(ctx, `SELECT `+envelopeColumns+` FROM `+envelopeFrom+
		` WHERE e.id = $1 AND `+visibleSQL(2), id, sc.TeamID, sc.UserID, sc.visibilities()))
	if err != nil {
		return nil, notFound(err, "Envelope")
	}
	if err := loadChildren(ctx, q, ring, []*envelope.Envelope{e}, true); err != nil {
		return nil, err
	}
	return e, nil
}

// GetEnvelopesByIDs returns the visible envelopes among ids, in the order of ids, whole.
func (s *Store) GetEnvelopesByIDs(ctx context.Context, sc Scope, ids []string) ([]*envelope.Envelope, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+envelopeColumns+` FROM `+envelopeFrom+
		` WHERE e.id = ANY($1) AND `+visibleSQL(2)+` ORDER BY array_position($1, e.id)`, ids, sc.TeamID, sc.UserID, sc.visibilities())
	if err != nil {
		return nil, fmt.Errorf("load envelopes: %w", err)
	}
	return collectEnvelopes(ctx, s.pool, s.ring, rows, true)
}

// GetEnvelopesByLegacyIDs returns the visible envelopes of type typ among the legacy ids (the
// numbers of document_<n> / template_<n>), whole.
func (s *Store) GetEnvelopesByLegacyIDs(ctx context.Context, sc Scope, typ envelope.Type, ids []int64) ([]*envelope.Envelope, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+envelopeColumns+` FROM `+envelopeFrom+
		` WHERE e.type = $1 AND e.legacy_id = ANY($2) AND `+visibleSQL(3)+` ORDER BY array_position($2, e.legacy_id)`,
		typ, ids, sc.TeamID, sc.UserID, sc.visibilities())
	if err != nil {
		return nil, fmt.Errorf("load envelopes: %w", err)
	}
	return collectEnvelopes(ctx, s.pool, s.ring, rows, true)
}

// EnvelopeForRecipient returns the whole envelope of a recipient (no team scope: the recipient's
// token is the credential).
func (s *Store) EnvelopeForRecipient(ctx context.Context, envelopeID string) (*envelope.Envelope, error) {
	e, err := scanEnvelope(s.pool.QueryRow(ctx, `SELECT `+envelopeColumns+` FROM `+envelopeFrom+` WHERE e.id = $1`, envelopeID))
	if err != nil {
		return nil, notFound(err, "Envelope")
	}
	if err := loadChildren(ctx, s.pool, s.ring, []*envelope.Envelope{e}, true); err != nil {
		return nil, err
	}
	return e, nil
}

func collectEnvelopes(ctx context.Context, q querier, ring *keyring.Ring, rows pgx.Rows, whole bool) ([]*envelope.Envelope, error) {
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*envelope.Envelope, error) { return scanEnvelope(row) })
	if err != nil {
		return nil, fmt.Errorf("read envelopes: %w", err)
	}
	if err := loadChildren(ctx, q, ring, list, whole); err != nil {
		return nil, err
	}
	return list, nil
}

// loadChildren fills the recipients of each envelope and, when whole, its fields, items and
// attachments: one query per kind for the whole list.
func loadChildren(ctx context.Context, q querier, ring *keyring.Ring, list []*envelope.Envelope, whole bool) error {
	if len(list) == 0 {
		return nil
	}
	byID := make(map[string]*envelope.Envelope, len(list))
	ids := make([]string, 0, len(list))
	for _, e := range list {
		byID[e.ID] = e
		ids = append(ids, e.ID)
		e.Recipients, e.Fields, e.Items, e.Attachments = []envelope.Recipient{}, []envelope.Field{}, []envelope.Item{}, []envelope.Attachment{}
	}
	rows, err := q.Query(ctx, `SELECT `+recipientColumns+` FROM recipients r WHERE r.envelope_id = ANY($1) ORDER BY r.id`, ids)
	if err != nil {
		return fmt.Errorf("load recipients: %w", err)
	}
	recipients, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (envelope.Recipient, error) { return scanRecipient(row, ring) })
	if err != nil {
		return fmt.Errorf("read recipients: %w", err)
	}
	for _, r := range recipients {
		byID[r.EnvelopeID].Recipients = append(byID[r.EnvelopeID].Recipients, r)
	}
	if !whole {
		return nil
	}
	rows, err = q.Query(ctx, `SELECT `+fieldColumns+` FROM fields f WHERE f.envelope_id = ANY($1) ORDER BY f.id`, ids)
	if err != nil {
		return fmt.Errorf("load fields: %w", err)
	}
	fields, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (envelope.Field, error) { return scanField(row) })
	if err != nil {
		return fmt.Errorf("read fields: %w", err)
	}
	for _, f := range fields {
		byID[f.EnvelopeID].Fields = append(byID[f.EnvelopeID].Fields, f)
	}
	rows, err = q.Query(ctx, `SELECT id, envelope_id, document_data_id, title, item_order FROM envelope_items
		WHERE envelope_id = ANY($1) ORDER BY envelope_id, item_order`, ids)
	if err != nil {
		return fmt.Errorf("load envelope items: %w", err)
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (envelope.Item, error) {
		var it envelope.Item
		return it, row.Scan(&it.ID, &it.EnvelopeID, &it.DocumentDataID, &it.Title, &it.Order)
	})
	if err != nil {
		return fmt.Errorf("read envelope items: %w", err)
	}
	for _, it := range items {
		byID[it.EnvelopeID].Items = append(byID[it.EnvelopeID].Items, it)
	}
	rows, err = q.Query(ctx, `SELECT id, envelope_id, type, label, data FROM attachments
		WHERE envelope_id = ANY($1) ORDER BY created_at, id`, ids)
	if err != nil {
		return fmt.Errorf("load attachments: %w", err)
	}
	type attachmentRow struct {
		envelopeID string
		a          envelope.Attachment
	}
	atts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (attachmentRow, error) {
		var ar attachmentRow
		return ar, row.Scan(&ar.a.ID, &ar.envelopeID, &ar.a.Type, &ar.a.Label, &ar.a.Data)
	})
	if err != nil {
		return fmt.Errorf("read attachments: %w", err)
	}
	for _, ar := range atts {
		byID[ar.envelopeID].Attachments = append(byID[ar.envelopeID].Attachments, ar.a)
	}
	return loadDirectLinks(ctx, q, byID, ids)
}
