package persistence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// PageSize is a page's width and height in PDF points.
type PageSize struct {
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Document is an uploaded PDF with what was read from it.
type Document struct {
	Title string
	Data  []byte // the normalised document: what is shown, digested and sealed
	Pages []PageSize
	// Original is the file as uploaded, kept for download?version=original; nil when Data is
	// the upload itself.
	Original []byte
}

// NewField is a field to create; Item is the index of its envelope item in NewEnvelope.Items
// (when ItemID is empty).
type NewField struct {
	envelope.Field
	Item int
}

// NewRecipient is a recipient to create with its fields.
type NewRecipient struct {
	envelope.Recipient
	Fields []NewField
}

// NewEnvelope is everything a create writes.
type NewEnvelope struct {
	Envelope    envelope.Envelope // scalar fields and Meta; ids and timestamps are assigned
	Items       []Document
	Recipients  []NewRecipient
	Attachments []envelope.Attachment
}

func merge(maps ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// PutDocumentData stores a PDF by the SHA-256 of its content and returns its id; storing the
// same content twice returns the first id.
func (tx *Tx) PutDocumentData(ctx context.Context, d Document) (string, error) {
	sum := sha256.Sum256(d.Data)
	pages, err := json.Marshal(d.Pages)
	if err != nil {
		return "", fmt.Errorf("encode page sizes: %w", err)
	}
	id := "docdata_" + hex.EncodeToString(sum[:12])
	_, err = tx.q.Exec(ctx, `INSERT INTO document_data (id, sha256, data, size_bytes, page_count, page_sizes)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (sha256) DO NOTHING`, id, sum[:], d.Data, len(d.Data), len(d.Pages), pages)
	if err != nil {
		return "", fmt.Errorf("store document data: %w", err)
	}
	if err := tx.q.QueryRow(ctx, `SELECT id FROM document_data WHERE sha256 = $1`, sum[:]).Scan(&id); err != nil {
		return "", fmt.Errorf("find document data: %w", err)
	}
	return id, nil
}

// CreateEnvelope writes a new envelope with its items, recipients, fields and attachments, and
// the audit entries of its creation, and returns its id.
func (tx *Tx) CreateEnvelope(ctx context.Context, m envelope.Member, in NewEnvelope, a envelope.Actor) (string, error) {
	e := in.Envelope
	e.ID = NewEnvelopeID()
	seq, prefix := "document_number_seq", "document_"
	if e.Type == envelope.TypeTemplate {
		seq, prefix = "template_number_seq", "template_"
	}
	if err := tx.q.QueryRow(ctx, `SELECT nextval('`+seq+`')`).Scan(&e.LegacyID); err != nil {
		return "", fmt.Errorf("number new envelope: %w", err)
	}
	e.SecondaryID = fmt.Sprintf("%s%d", prefix, e.LegacyID)
	e.Meta.ID = newCUID()
	meta, err := json.Marshal(e.Meta)
	if err != nil {
		return "", fmt.Errorf("encode document meta: %w", err)
	}
	var formValues []byte
	if e.FormValues != nil {
		if formValues, err = json.Marshal(e.FormValues); err != nil {
			return "", fmt.Errorf("encode form values: %w", err)
		}
	}
	_, err = tx.q.Exec(ctx, `INSERT INTO envelopes (id, secondary_id, legacy_id, internal_version, type, status, source,
		visibility, template_type, external_id, title, global_access_auth, global_action_auth, form_values,
		user_id, team_id, folder_id, template_id, document_meta)
		VALUES ($1, $2, $3, 2, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
		e.ID, e.SecondaryID, e.LegacyID, e.Type, envelope.StatusDraft, e.Source, e.Visibility, e.TemplateType,
		e.ExternalID, e.Title, fromEnums(e.AuthOptions.GlobalAccessAuth), fromEnums(e.AuthOptions.GlobalActionAuth),
		formValues, m.UserID, m.TeamID, e.FolderID, e.TemplateID, meta)
	if err != nil {
		return "", fmt.Errorf("insert envelope: %w", err)
	}
	if err := tx.AppendAudit(ctx, e.ID, envelope.DocumentCreatedAudit(e.Title, e.Source, e.TemplateID), a); err != nil {
		return "", err
	}
	itemIDs := make([]string, len(in.Items))
	for i, doc := range in.Items {
		item, err := tx.AddItem(ctx, e.ID, doc, i+1, a)
		if err != nil {
			return "", err
		}
		itemIDs[i] = item.ID
	}
	for _, nr := range in.Recipients {
		r, err := tx.AddRecipient(ctx, e.ID, nr.Recipient, a)
		if err != nil {
			return "", err
		}
		for _, nf := range nr.Fields {
			f := nf.Field
			if f.EnvelopeItemID == "" {
				f.EnvelopeItemID = itemIDs[nf.Item]
			}
			f.RecipientID = r.ID
			if _, err := tx.AddField(ctx, e.ID, f, r, a); err != nil {
				return "", err
			}
		}
	}
	for _, att := range in.Attachments {
		if _, err := tx.AddAttachment(ctx, e.ID, att); err != nil {
			return "", err
		}
	}
	return e.ID, nil
}

// AddItem stores doc and adds it to the envelope as item number order.
func (tx *Tx) AddItem(ctx context.Context, envelopeID string, doc Document, order int, a envelope.Actor) (envelope.Item, error) {
	dataID, err := tx.PutDocumentData(ctx, doc)
	if err != nil {
		return envelope.Item{}, err
	}
	initialID := dataID
	if doc.Original != nil {
		if initialID, err = tx.PutDocumentData(ctx, Document{Data: doc.Original, Pages: doc.Pages}); err != nil {
			return envelope.Item{}, err
		}
	}
	it := envelope.Item{ID: NewItemID(), EnvelopeID: envelopeID, DocumentDataID: dataID, Title: doc.Title, Order: order}
	_, err = tx.q.Exec(ctx, `INSERT INTO envelope_items (id, envelope_id, document_data_id, initial_data_id, title, item_order)
		VALUES ($1, $2, $3, $4, $5, $6)`, it.ID, envelopeID, dataID, initialID, it.Title, order)
	if err != nil {
		return it, fmt.Errorf("insert envelope item: %w", err)
	}
	err = tx.AppendAudit(ctx, envelopeID, envelope.ItemCreatedAudit(it), a)
	return it, err
}

// AddRecipient adds r (its id and token assigned) to the envelope.
func (tx *Tx) AddRecipient(ctx context.Context, envelopeID string, r envelope.Recipient, a envelope.Actor) (envelope.Recipient, error) {
	r.EnvelopeID = envelopeID
	if tx.ring == nil {
		return r, ErrNoKeyring
	}
	r.Token = NewRecipientToken()
	r.ReadStatus, r.SigningStatus, r.SendStatus = envelope.ReadStatusNotOpened, envelope.SigningStatusNotSigned, envelope.SendStatusNotSent
	// The hash goes in with the row; the sealed token once the row's id, which it is bound to, is
	// known.
	err := tx.q.QueryRow(ctx, `INSERT INTO recipients (envelope_id, email, name, role, token_hash, signing_order, access_auth, action_auth, expected_rut)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`, envelopeID, r.Email, r.Name, r.Role, TokenHash(r.Token), r.SigningOrder,
		fromEnums(r.AuthOptions.AccessAuth), fromEnums(r.AuthOptions.ActionAuth), r.ExpectedRUT).Scan(&r.ID)
	if err != nil {
		return r, fmt.Errorf("insert recipient: %w", err)
	}
	if err := tx.setToken(ctx, r.ID, r.Token); err != nil {
		return r, err
	}
	return r, tx.AppendAudit(ctx, envelopeID, envelope.RecipientCreatedAudit(r), a)
}

// AddField adds f for recipient r to the envelope.
func (tx *Tx) AddField(ctx context.Context, envelopeID string, f envelope.Field, r envelope.Recipient, a envelope.Actor) (envelope.Field, error) {
	f.EnvelopeID, f.RecipientID, f.SecondaryID = envelopeID, r.ID, newCUID()
	meta, err := encodeFieldMeta(f.FieldMeta)
	if err != nil {
		return f, err
	}
	// A value given at creation (a template's prefill) is the sender's.
	err = tx.q.QueryRow(ctx, `INSERT INTO fields (secondary_id, envelope_id, envelope_item_id, recipient_id, type, page,
		position_x, position_y, width, height, custom_text, inserted, field_meta, filled_by_session)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, CASE WHEN $12 THEN '`+FilledBySender+`' END) RETURNING id`,
		f.SecondaryID, envelopeID, f.EnvelopeItemID, r.ID, f.Type, f.Page, f.PositionX, f.PositionY, f.Width, f.Height,
		f.CustomText, f.Inserted, meta).Scan(&f.ID)
	if err != nil {
		return f, fmt.Errorf("insert field: %w", err)
	}
	return f, tx.AppendAudit(ctx, envelopeID, envelope.FieldCreatedAudit(f, r), a)
}

func encodeFieldMeta(m *envelope.FieldMeta) ([]byte, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode field meta: %w", err)
	}
	return b, nil
}

// AddAttachment adds a link attachment to the envelope.
func (tx *Tx) AddAttachment(ctx context.Context, envelopeID string, att envelope.Attachment) (envelope.Attachment, error) {
	att.ID = newCUID()
	if att.Type == "" {
		att.Type = envelope.AttachmentTypeLink
	}
	_, err := tx.q.Exec(ctx, `INSERT INTO attachments (id, envelope_id, type, label, data) VALUES ($1, $2, $3, $4, $5)`,
		att.ID, envelopeID, att.Type, att.Label, att.Data)
	if err != nil {
		return att, fmt.Errorf("insert attachment: %w", err)
	}
	return att, nil
}

// EnvelopeRef is the little that access checks need of an envelope.
type EnvelopeRef struct {
	ID         string
	Type       envelope.Type
	Status     envelope.Status
	UserID     int64
	TeamID     int64
	Visibility envelope.Visibility
}

// Owned is what envelope.MayManage needs of the envelope.
func (r EnvelopeRef) Owned() envelope.Owned {
	return envelope.Owned{TeamID: r.TeamID, OwnerID: r.UserID, Visibility: r.Visibility}
}

// EnvelopeRef returns the status and owner of envelope id as the scope sees it.
func (s *Store) EnvelopeRef(ctx context.Context, sc Scope, id string) (EnvelopeRef, error) {
	return envelopeRef(ctx, s.pool, sc, id, false)
}

// LockEnvelope returns the envelope's reference and locks its row until the transaction ends,
// so that changes to one envelope happen one after another.
func (tx *Tx) LockEnvelope(ctx context.Context, sc Scope, id string) (EnvelopeRef, error) {
	return envelopeRef(ctx, tx.q, sc, id, true)
}

func envelopeRef(ctx context.Context, q querier, sc Scope, id string, lock bool) (EnvelopeRef, error) {
	var r EnvelopeRef
	sql := `SELECT e.id, e.type, e.status, e.user_id, e.team_id, e.visibility FROM envelopes e WHERE e.id = $1 AND ` + visibleSQL(2)
	if lock {
		sql += " FOR UPDATE"
	}
	err := q.QueryRow(ctx, sql, id, sc.TeamID, sc.UserID, sc.visibilities()).Scan(&r.ID, &r.Type, &r.Status, &r.UserID, &r.TeamID, &r.Visibility)
	if err != nil {
		return r, notFound(err, "Envelope")
	}
	return r, nil
}

// Touch sets the envelope's updatedAt to now.
func (tx *Tx) Touch(ctx context.Context, envelopeID string) error {
	_, err := tx.q.Exec(ctx, `UPDATE envelopes SET updated_at = now() WHERE id = $1`, envelopeID)
	if err != nil {
		return fmt.Errorf("touch envelope %s: %w", envelopeID, err)
	}
	return nil
}

// ItemPages returns, for each item of the envelope, its page sizes, in item order.
func (tx *Tx) ItemPages(ctx context.Context, envelopeID string) ([]ItemPages, error) {
	rows, err := tx.q.Query(ctx, `SELECT i.id, i.item_order, i.title, d.page_sizes FROM envelope_items i
		JOIN document_data d ON d.id = i.document_data_id WHERE i.envelope_id = $1 ORDER BY i.item_order`, envelopeID)
	if err != nil {
		return nil, fmt.Errorf("load items of %s: %w", envelopeID, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (ItemPages, error) {
		var ip ItemPages
		var raw []byte
		if err := row.Scan(&ip.ID, &ip.Order, &ip.Title, &raw); err != nil {
			return ip, err
		}
		return ip, json.Unmarshal(raw, &ip.Pages)
	})
}

// ItemPages is an envelope item with the sizes of its pages.
type ItemPages struct {
	ID    string
	Order int
	Title string
	Pages []PageSize
}

// ItemData returns the current PDF of an envelope item.
func (tx *Tx) ItemData(ctx context.Context, itemID string) ([]byte, error) {
	var data []byte
	err := tx.q.QueryRow(ctx, `SELECT d.data FROM envelope_items i JOIN document_data d ON d.id = i.document_data_id WHERE i.id = $1`, itemID).Scan(&data)
	if err != nil {
		return nil, notFound(err, "Envelope item")
	}
	return data, nil
}

// ReplaceItemData points an item at new content (a placeholder whited out, say), keeping the
// upload as its initial data.
func (tx *Tx) ReplaceItemData(ctx context.Context, itemID string, doc Document) error {
	id, err := tx.PutDocumentData(ctx, doc)
	if err != nil {
		return err
	}
	if _, err := tx.q.Exec(ctx, `UPDATE envelope_items SET document_data_id = $2 WHERE id = $1`, itemID, id); err != nil {
		return fmt.Errorf("replace data of item %s: %w", itemID, err)
	}
	return nil
}

// SaveEnvelope writes the envelope's changeable scalar members and its meta, and sets updatedAt.
func (tx *Tx) SaveEnvelope(ctx context.Context, e *envelope.Envelope) error {
	meta, err := json.Marshal(e.Meta)
	if err != nil {
		return fmt.Errorf("encode document meta: %w", err)
	}
	_, err = tx.q.Exec(ctx, `UPDATE envelopes SET title = $2, external_id = $3, visibility = $4, template_type = $5,
		global_access_auth = $6, global_action_auth = $7, folder_id = $8, document_meta = $9, updated_at = now()
		WHERE id = $1`, e.ID, e.Title, e.ExternalID, e.Visibility, e.TemplateType,
		fromEnums(e.AuthOptions.GlobalAccessAuth), fromEnums(e.AuthOptions.GlobalActionAuth), e.FolderID, meta)
	if err != nil {
		return fmt.Errorf("save envelope %s: %w", e.ID, err)
	}
	return nil
}
