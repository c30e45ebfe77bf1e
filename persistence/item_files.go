// Item files: the bytes of an envelope's documents and their digests.

package persistence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// OriginalFile returns the item's file exactly as it was uploaded.
func (s *Store) OriginalFile(ctx context.Context, itemID string) ([]byte, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT d.data FROM envelope_items i JOIN document_data d ON d.id = i.initial_data_id WHERE i.id = $1`, itemID).Scan(&data)
	if err != nil {
		return nil, notFound(err, "Envelope item")
	}
	return data, nil
}

// ItemFiles returns the current PDF of each item of an envelope, in order.
func (s *Store) ItemFiles(ctx context.Context, envelopeID string) ([]Document, error) {
	rows, err := s.pool.Query(ctx, `SELECT i.title, d.data FROM envelope_items i JOIN document_data d ON d.id = i.document_data_id
		WHERE i.envelope_id = $1 ORDER BY i.item_order`, envelopeID)
	if err != nil {
		return nil, fmt.Errorf("load files of %s: %w", envelopeID, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Document, error) {
		var d Document
		return d, row.Scan(&d.Title, &d.Data)
	})
}

// ItemFile returns the current PDF of item itemID of envelope envelopeID.
func (s *Store) ItemFile(ctx context.Context, envelopeID, itemID string) (Document, error) {
	var d Document
	err := s.pool.QueryRow(ctx, `SELECT i.title, d.data FROM envelope_items i JOIN document_data d ON d.id = i.document_data_id
		WHERE i.envelope_id = $1 AND i.id = $2`, envelopeID, itemID).Scan(&d.Title, &d.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, envelope.NotFound("Envelope item")
	}
	if err != nil {
		return d, fmt.Errorf("load item %s: %w", itemID, err)
	}
	return d, nil
}

// ItemDataID returns the id of the stored document data that item itemID of envelope envelopeID
// shows now. Stored document data never changes, so the id names the bytes.
func (s *Store) ItemDataID(ctx context.Context, envelopeID, itemID string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT document_data_id FROM envelope_items WHERE envelope_id = $1 AND id = $2`,
		envelopeID, itemID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", envelope.NotFound("Envelope item")
	}
	if err != nil {
		return "", fmt.Errorf("load the document of item %s: %w", itemID, err)
	}
	return id, nil
}

// DocumentData returns the bytes of stored document data id.
func (s *Store) DocumentData(ctx context.Context, id string) ([]byte, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT data FROM document_data WHERE id = $1`, id).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, envelope.NotFound("Document data")
	}
	if err != nil {
		return nil, fmt.Errorf("load document data %s: %w", id, err)
	}
	return data, nil
}

// ItemDocument is an envelope item with its current file and page sizes.
type ItemDocument struct {
	ID string
	Document
}

// ItemDocuments returns every item of an envelope with its file and page sizes, in order.
func (s *Store) ItemDocuments(ctx context.Context, envelopeID string) ([]ItemDocument, error) {
	rows, err := s.pool.Query(ctx, `SELECT i.id, i.title, d.data, d.page_sizes FROM envelope_items i
		JOIN document_data d ON d.id = i.document_data_id WHERE i.envelope_id = $1 ORDER BY i.item_order`, envelopeID)
	if err != nil {
		return nil, fmt.Errorf("load items of %s: %w", envelopeID, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (ItemDocument, error) {
		var it ItemDocument
		var pages []byte
		if err := row.Scan(&it.ID, &it.Title, &it.Data, &pages); err != nil {
			return it, err
		}
		return it, json.Unmarshal(pages, &it.Pages)
	})
}

// ItemDigest is an item's id and the hex SHA-256 of its document.
type ItemDigest struct {
	ItemID string
	SHA256 string
}

// ItemDigests returns the SHA-256 (hex) of each item's document as distributed, in item order.
func (s *Store) ItemDigests(ctx context.Context, envelopeID string) ([]ItemDigest, error) {
	rows, err := s.pool.Query(ctx, `SELECT i.id, encode(d.sha256, 'hex') FROM envelope_items i JOIN document_data d ON d.id = i.document_data_id
		WHERE i.envelope_id = $1 ORDER BY i.item_order, i.id`, envelopeID)
	if err != nil {
		return nil, fmt.Errorf("digest items of %s: %w", envelopeID, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (ItemDigest, error) {
		var d ItemDigest
		err := row.Scan(&d.ItemID, &d.SHA256)
		return d, err
	})
}

// shownDocuments lists the SHA-256 of each item's document as it stands (and as every recipient
// is shown it: documents are frozen once an envelope is sent), in item order.
func (tx *Tx) shownDocuments(ctx context.Context, envelopeID string) ([]ShownDocument, error) {
	rows, err := tx.q.Query(ctx, `SELECT i.id, encode(d.sha256, 'hex') FROM envelope_items i
		JOIN document_data d ON d.id = i.document_data_id WHERE i.envelope_id = $1 ORDER BY i.item_order`, envelopeID)
	if err != nil {
		return nil, fmt.Errorf("documents of %s: %w", envelopeID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ShownDocument, error) {
		var d ShownDocument
		return d, row.Scan(&d.EnvelopeItemID, &d.SHA256)
	})
	if err != nil {
		return nil, fmt.Errorf("documents of %s: %w", envelopeID, err)
	}
	return out, nil
}
