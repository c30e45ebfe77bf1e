// Items: an envelope's documents, their order and their pages.

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

// UpdateItem sets an item's title and order.
func (tx *Tx) UpdateItem(ctx context.Context, it envelope.Item) error {
	if _, err := tx.q.Exec(ctx, `UPDATE envelope_items SET title = $2, item_order = $3 WHERE id = $1`, it.ID, it.Title, it.Order); err != nil {
		return fmt.Errorf("update item %s: %w", it.ID, err)
	}
	return nil
}

// ParkItemOrders moves every item of an envelope to a negative order, so that new orders can be
// assigned without tripping the uniqueness of (envelope, order).
func (tx *Tx) ParkItemOrders(ctx context.Context, envelopeID string) error {
	if _, err := tx.q.Exec(ctx, `UPDATE envelope_items SET item_order = -item_order WHERE envelope_id = $1`, envelopeID); err != nil {
		return fmt.Errorf("park item orders of %s: %w", envelopeID, err)
	}
	return nil
}

// DeleteItem removes an item and its fields.
func (tx *Tx) DeleteItem(ctx context.Context, id string) error {
	if _, err := tx.q.Exec(ctx, `DELETE FROM envelope_items WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete item %s: %w", id, err)
	}
	return nil
}

// ItemByID returns item id with its envelope's reference, as the scope sees them.
func (s *Store) ItemByID(ctx context.Context, sc Scope, id string) (envelope.Item, EnvelopeRef, error) {
	var it envelope.Item
	var ref EnvelopeRef
	err := s.pool.QueryRow(ctx, `SELECT i.id, i.envelope_id, i.document_data_id, i.title, i.item_order, e.type, e.status, e.user_id, e.team_id, e.visibility
		FROM envelope_items i JOIN envelopes e ON e.id = i.envelope_id WHERE i.id = $1 AND `+visibleSQL(2),
		id, sc.TeamID, sc.UserID, sc.visibilities()).Scan(&it.ID, &it.EnvelopeID, &it.DocumentDataID, &it.Title, &it.Order,
		&ref.Type, &ref.Status, &ref.UserID, &ref.TeamID, &ref.Visibility)
	if err != nil {
		return it, ref, notFound(err, "Envelope item")
	}
	ref.ID = it.EnvelopeID
	return it, ref, nil
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
