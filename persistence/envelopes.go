// Envelopes: reading whole envelopes with their children.

package persistence

import (
	"context"
	"encoding/json"
	"errors"
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

// getEnvelope reads envelope id as sc sees it with its children, in one round trip: the
// children of an envelope sc cannot see are read too, and dropped.
func getEnvelope(ctx context.Context, q querier, ring *keyring.Ring, sc Scope, id string) (*envelope.Envelope, error) {
	var one oneEnvelope
	b := &pgx.Batch{}
	one.queue(b, ring, id, true, ` AND `+visibleSQL(2), sc.TeamID, sc.UserID, sc.visibilities())
	if err := q.SendBatch(ctx, b).Close(); err != nil {
		if one.absent {
			// A failure reading the children of an envelope sc cannot see (a token that does
			// not decrypt, say) must not tell it apart from one that does not exist.
			return nil, envelope.NotFound("Envelope")
		}
		return nil, fmt.Errorf("load envelope %s: %w", id, err)
	}
	return one.result()
}

// oneEnvelope is an envelope and its children read by the queries queue adds to a batch.
type oneEnvelope struct {
	e      *envelope.Envelope
	absent bool // the envelope's query answered no row
	c      children
}

// queue adds to b the reads of envelope id, when it also meets and (SQL appended to "WHERE e.id
// = $1", its parameters from $2 on: args), and of its children, whole or its recipients only.
// The children are read whatever and finds, and dropped by result when the envelope is not.
func (o *oneEnvelope) queue(b *pgx.Batch, ring *keyring.Ring, id string, whole bool, and string, args ...any) {
	b.Queue(`SELECT `+envelopeColumns+` FROM `+envelopeFrom+` WHERE e.id = $1`+and, append([]any{id}, args...)...).QueryRow(func(row pgx.Row) error {
		e, err := scanEnvelope(row)
		if errors.Is(err, pgx.ErrNoRows) {
			// Not the batch's error: that would drop its statements from pgx's cache.
			o.absent = true
			return nil
		}
		o.e = e
		return err
	})
	o.c.queue(b, ring, []string{id}, whole)
}

// result is the envelope read, with its children, once the batch has run; an error meeting
// envelope.IsNotFound when there was none.
func (o *oneEnvelope) result() (*envelope.Envelope, error) {
	if o.e == nil {
		return nil, envelope.NotFound("Envelope")
	}
	o.c.attach([]*envelope.Envelope{o.e})
	return o.e, nil
}

// GetEnvelopesByIDs returns the visible envelopes among ids, in the order of ids, whole.
// The visible envelopes are read first, then their children: the children of an id the caller
// cannot see are never read.
func (s *Store) GetEnvelopesByIDs(ctx context.Context, sc Scope, ids []string) ([]*envelope.Envelope, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+envelopeColumns+` FROM `+envelopeFrom+
		` WHERE e.id = ANY($1) AND `+visibleSQL(2)+` ORDER BY array_position($1, e.id)`, ids, sc.TeamID, sc.UserID, sc.visibilities())
	if err != nil {
		return nil, fmt.Errorf("load envelopes: %w", err)
	}
	return collectEnvelopes(ctx, s.pool, s.ring, rows, true)
}

// envelopesRead is a list of envelopes and their children read by the queries queue adds to a
// batch.
type envelopesRead struct {
	list []*envelope.Envelope
	c    children
}

// queue adds to b the reads of envelopes ids, in their order, and of their children, whole or
// their recipients only. ids are envelopes the caller may read (found by a scoped query).
func (r *envelopesRead) queue(b *pgx.Batch, ring *keyring.Ring, ids []string, whole bool) {
	queueRows(b, &r.list, "envelopes", func(row pgx.CollectableRow) (*envelope.Envelope, error) { return scanEnvelope(row) },
		`SELECT `+envelopeColumns+` FROM `+envelopeFrom+` WHERE e.id = ANY($1) ORDER BY array_position($1, e.id)`, ids)
	r.c.queue(b, ring, ids, whole)
}

// result is the envelopes read, with their children, once the batch has run.
func (r *envelopesRead) result() []*envelope.Envelope {
	r.c.attach(r.list)
	return r.list
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
	var one oneEnvelope
	b := &pgx.Batch{}
	one.queue(b, s.ring, envelopeID, true, "")
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("load envelope %s: %w", envelopeID, err)
	}
	return one.result()
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

// loadChildren fills the recipients of each envelope and, when whole, its fields, items,
// attachments and direct link: one query per kind for the whole list, all sent in one round trip.
func loadChildren(ctx context.Context, q querier, ring *keyring.Ring, list []*envelope.Envelope, whole bool) error {
	if len(list) == 0 {
		return nil
	}
	ids := make([]string, 0, len(list))
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	var c children
	b := &pgx.Batch{}
	c.queue(b, ring, ids, whole)
	if err := q.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("load the children of %d envelopes: %w", len(list), err)
	}
	c.attach(list)
	return nil
}

// children are the child rows of some envelopes, as read by the queries queue adds to a batch.
type children struct {
	recipients  []envelope.Recipient
	fields      []envelope.Field
	items       []envelope.Item
	attachments []attachmentRow
	links       []envelope.DirectLink
}

type attachmentRow struct {
	envelopeID string
	a          envelope.Attachment
}

// queue adds to b the reads of the children of envelopes ids: their recipients and, when whole,
// their fields, items, attachments and direct links. Each is a statement of its own, as before
// they were batched: outside a transaction each sees what was committed when it ran.
func (c *children) queue(b *pgx.Batch, ring *keyring.Ring, ids []string, whole bool) {
	queueRows(b, &c.recipients, "recipients", func(row pgx.CollectableRow) (envelope.Recipient, error) { return scanRecipient(row, ring) },
		`SELECT `+recipientColumns+` FROM recipients r WHERE r.envelope_id = ANY($1) ORDER BY r.id`, ids)
	if !whole {
		return
	}
	queueRows(b, &c.fields, "fields", func(row pgx.CollectableRow) (envelope.Field, error) { return scanField(row) },
		`SELECT `+fieldColumns+` FROM fields f WHERE f.envelope_id = ANY($1) ORDER BY f.id`, ids)
	queueRows(b, &c.items, "envelope items", func(row pgx.CollectableRow) (envelope.Item, error) {
		var it envelope.Item
		return it, row.Scan(&it.ID, &it.EnvelopeID, &it.DocumentDataID, &it.Title, &it.Order)
	}, `SELECT id, envelope_id, document_data_id, title, item_order FROM envelope_items
		WHERE envelope_id = ANY($1) ORDER BY envelope_id, item_order`, ids)
	queueRows(b, &c.attachments, "attachments", func(row pgx.CollectableRow) (attachmentRow, error) {
		var ar attachmentRow
		return ar, row.Scan(&ar.a.ID, &ar.envelopeID, &ar.a.Type, &ar.a.Label, &ar.a.Data)
	}, `SELECT id, envelope_id, type, label, data FROM attachments
		WHERE envelope_id = ANY($1) ORDER BY created_at, id`, ids)
	queueRows(b, &c.links, "direct links", func(row pgx.CollectableRow) (envelope.DirectLink, error) { return scanDirectLink(row) },
		`SELECT `+directLinkColumns+` FROM template_direct_links l WHERE l.envelope_id = ANY($1)`, ids)
}

// attach gives each envelope of list its children, in the order read; an envelope without a kind
// of child gets an empty list of it.
func (c *children) attach(list []*envelope.Envelope) {
	byID := make(map[string]*envelope.Envelope, len(list))
	for _, e := range list {
		byID[e.ID] = e
		e.Recipients, e.Fields, e.Items, e.Attachments = []envelope.Recipient{}, []envelope.Field{}, []envelope.Item{}, []envelope.Attachment{}
	}
	for _, r := range c.recipients {
		if e := byID[r.EnvelopeID]; e != nil {
			e.Recipients = append(e.Recipients, r)
		}
	}
	for _, f := range c.fields {
		if e := byID[f.EnvelopeID]; e != nil {
			e.Fields = append(e.Fields, f)
		}
	}
	for _, it := range c.items {
		if e := byID[it.EnvelopeID]; e != nil {
			e.Items = append(e.Items, it)
		}
	}
	for _, ar := range c.attachments {
		if e := byID[ar.envelopeID]; e != nil {
			e.Attachments = append(e.Attachments, ar.a)
		}
	}
	for _, l := range c.links {
		if e := byID[l.EnvelopeID]; e != nil {
			e.DirectLink = &l
		}
	}
}
