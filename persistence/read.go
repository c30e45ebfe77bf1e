package persistence

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/keyring"
)

// Scope is who reads: the caller's team, user and role. An envelope is visible to the caller when
// it belongs to the team and the caller owns it or the caller's role sees its visibility.
// Objects outside the scope are reported as not found.
type Scope struct {
	TeamID int64
	UserID int64
	Role   envelope.TeamRole
}

// ScopeOf returns the scope of member m.
func ScopeOf(m envelope.Member) Scope { return Scope{TeamID: m.TeamID, UserID: m.UserID, Role: m.Role} }

func (s Scope) visibilities() []string {
	var out []string
	for _, v := range s.Role.VisibleTo() {
		out = append(out, string(v))
	}
	return out
}

// visibleSQL is the condition on alias e that keeps envelopes the scope sees; its three
// arguments are (teamID, userID, visibilities) at positions $n, $n+1, $n+2.
func visibleSQL(n int) string {
	return fmt.Sprintf("e.team_id = $%d AND (e.user_id = $%d OR e.visibility = ANY($%d))", n, n+1, n+2)
}

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

const recipientColumns = `r.id, r.envelope_id, r.email, r.name, r.role, r.token, r.token_sealed, r.token_key_id, r.read_status, r.signing_status,
	r.send_status, r.signing_order, r.sent_at, r.signed_at, r.expires_at, r.expiration_notified_at,
	r.document_deleted_at, r.rejection_reason, r.access_auth, r.action_auth, r.expected_rut, r.link_version`

// scanRecipient reads a row of recipientColumns, its signing token opened with ring (see
// storedToken.open).
func scanRecipient(row pgx.Row, ring *keyring.Ring) (envelope.Recipient, error) {
	var r envelope.Recipient
	var access, action []string
	var tok storedToken
	err := row.Scan(&r.ID, &r.EnvelopeID, &r.Email, &r.Name, &r.Role, &tok.plain, &tok.sealed, &tok.keyID, &r.ReadStatus, &r.SigningStatus,
		&r.SendStatus, &r.SigningOrder, &r.SentAt, &r.SignedAt, &r.ExpiresAt, &r.ExpirationNotifiedAt,
		&r.DocumentDeletedAt, &r.RejectionReason, &access, &action, &r.ExpectedRUT, &r.LinkVersion)
	if err != nil {
		return r, err
	}
	r.AuthOptions = envelope.RecipientAuthOptions{AccessAuth: toEnums[envelope.AccessAuth](access), ActionAuth: toEnums[envelope.ActionAuth](action)}
	r.Token, err = tok.open(ring, r.ID)
	return r, err
}

const fieldColumns = `f.id, f.secondary_id, f.envelope_id, f.envelope_item_id, f.type, f.recipient_id, f.page,
	f.position_x, f.position_y, f.width, f.height, f.custom_text, f.inserted, f.field_meta, coalesce(f.filled_by_session, '')`

// Who gave a field's value (Field.FilledBy), when not a signing session: the sender (at creation,
// or a preset filled at send), or a caller of the signing link without a session.
const (
	FilledBySender = "sender"
	FilledByLink   = "link"
)

func scanField(row pgx.Row) (envelope.Field, error) {
	var f envelope.Field
	var meta []byte
	err := row.Scan(&f.ID, &f.SecondaryID, &f.EnvelopeID, &f.EnvelopeItemID, &f.Type, &f.RecipientID, &f.Page,
		&f.PositionX, &f.PositionY, &f.Width, &f.Height, &f.CustomText, &f.Inserted, &meta, &f.FilledBy)
	if err != nil {
		return f, err
	}
	if len(meta) > 0 && string(meta) != "null" {
		f.FieldMeta = new(envelope.FieldMeta)
		if err := json.Unmarshal(meta, f.FieldMeta); err != nil {
			return f, fmt.Errorf("decode field meta of field %d: %w", f.ID, err)
		}
	}
	return f, nil
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
	return nil
}

// FindFilter selects and orders envelopes for the search endpoint.
type FindFilter struct {
	Query                string
	Type                 envelope.Type
	TemplateID           *int64
	Source               envelope.Source
	Status               envelope.Status
	HasExpiredRecipients *bool
	FolderID             *string // nil: only envelopes in no folder
	Ascending            bool
	Page, PerPage        int
	Now                  time.Time
}

// FindEnvelopes returns one page of the envelopes the scope sees that match f, with recipients
// but without fields, items or meta, and the number of matches over all pages.
func (s *Store) FindEnvelopes(ctx context.Context, sc Scope, f FindFilter) ([]*envelope.Envelope, int, error) {
	args := []any{sc.TeamID, sc.UserID, sc.visibilities()}
	where := []string{visibleSQL(1), "e.deleted_at IS NULL"}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	if q := strings.TrimSpace(f.Query); q != "" {
		p := arg("%" + escapeLike(q) + "%")
		where = append(where, fmt.Sprintf(`(e.title ILIKE %[1]s OR e.external_id ILIKE %[1]s OR e.id IN (
			SELECT r.envelope_id FROM recipients r WHERE r.email ILIKE %[1]s OR r.name ILIKE %[1]s))`, p))
	}
	if f.Type != "" {
		where = append(where, "e.type = "+arg(string(f.Type)))
	}
	if f.TemplateID != nil {
		where = append(where, "e.template_id = "+arg(*f.TemplateID))
	}
	if f.Source != "" {
		where = append(where, "e.source = "+arg(string(f.Source)))
	}
	if f.Status != "" {
		where = append(where, "e.status = "+arg(string(f.Status)))
	}
	if f.FolderID != nil {
		where = append(where, "e.folder_id = "+arg(*f.FolderID))
	} else {
		where = append(where, "e.folder_id IS NULL")
	}
	if f.HasExpiredRecipients != nil {
		expired := `EXISTS (SELECT 1 FROM recipients r WHERE r.envelope_id = e.id AND r.role <> 'CC'
			AND r.signing_status = 'NOT_SIGNED' AND r.expires_at <= ` + arg(f.Now) + `)`
		if !*f.HasExpiredRecipients {
			expired = "NOT " + expired
		}
		where = append(where, expired)
	}
	cond := strings.Join(where, " AND ")
	var count int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM envelopes e WHERE `+cond, args...).Scan(&count); err != nil {
		return nil, 0, fmt.Errorf("count envelopes: %w", err)
	}
	order := "DESC"
	if f.Ascending {
		order = "ASC"
	}
	limit, offset := arg(f.PerPage), arg((f.Page-1)*f.PerPage)
	rows, err := s.pool.Query(ctx, `SELECT `+envelopeColumns+` FROM `+envelopeFrom+` WHERE `+cond+
		` ORDER BY e.created_at `+order+`, e.id `+order+` LIMIT `+limit+` OFFSET `+offset, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("find envelopes: %w", err)
	}
	list, err := collectEnvelopes(ctx, s.pool, s.ring, rows, false)
	if err != nil {
		return nil, 0, err
	}
	return list, count, nil
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
