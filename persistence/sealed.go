package persistence

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// SealedItem is an item's sealed PDF.
type SealedItem struct {
	ItemID string
	Title  string
	Data   []byte
}

// SaveSealed stores the sealed PDFs of an envelope's items and its certificate, in one
// transaction, replacing what an earlier attempt stored.
func (s *Store) SaveSealed(ctx context.Context, envelopeID string, items []SealedItem, certificate []byte) error {
	return s.InTx(ctx, func(tx *Tx) error {
		for _, it := range items {
			sum := sha256.Sum256(it.Data)
			if _, err := tx.q.Exec(ctx, `INSERT INTO sealed_items (item_id, envelope_id, data, sha256) VALUES ($1, $2, $3, $4)
				ON CONFLICT (item_id) DO UPDATE SET data = EXCLUDED.data, sha256 = EXCLUDED.sha256, created_at = now()`,
				it.ItemID, envelopeID, it.Data, sum[:]); err != nil {
				return fmt.Errorf("store sealed item %s: %w", it.ItemID, err)
			}
		}
		if _, err := tx.q.Exec(ctx, `INSERT INTO sealed_certificates (envelope_id, data) VALUES ($1, $2)
			ON CONFLICT (envelope_id) DO UPDATE SET data = EXCLUDED.data, created_at = now()`, envelopeID, certificate); err != nil {
			return fmt.Errorf("store the certificate of %s: %w", envelopeID, err)
		}
		return nil
	})
}

// Sealed reports whether every item of the envelope has its sealed PDF and the certificate exists.
func (s *Store) Sealed(ctx context.Context, envelopeID string) (bool, error) {
	var missing int
	var cert bool
	err := s.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM envelope_items i WHERE i.envelope_id = $1 AND NOT EXISTS (SELECT 1 FROM sealed_items s WHERE s.item_id = i.id)),
		EXISTS (SELECT 1 FROM sealed_certificates WHERE envelope_id = $1)`, envelopeID).Scan(&missing, &cert)
	if err != nil {
		return false, fmt.Errorf("check the seal of %s: %w", envelopeID, err)
	}
	return missing == 0 && cert, nil
}

// SealedFiles returns the sealed PDF of each item, in item order (none before the seal).
func (s *Store) SealedFiles(ctx context.Context, envelopeID string) ([]Document, error) {
	rows, err := s.pool.Query(ctx, `SELECT i.title, s.data FROM envelope_items i JOIN sealed_items s ON s.item_id = i.id
		WHERE i.envelope_id = $1 ORDER BY i.item_order`, envelopeID)
	if err != nil {
		return nil, fmt.Errorf("load sealed files of %s: %w", envelopeID, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Document, error) {
		var d Document
		err := row.Scan(&d.Title, &d.Data)
		return d, err
	})
}

// SealedItemFile returns an item's sealed PDF, or NOT_FOUND before the seal.
func (s *Store) SealedItemFile(ctx context.Context, itemID string) ([]byte, error) {
	var data []byte
	if err := s.pool.QueryRow(ctx, `SELECT data FROM sealed_items WHERE item_id = $1`, itemID).Scan(&data); err != nil {
		return nil, notFound(err, "Sealed document")
	}
	return data, nil
}

// SealedCertificate returns the certificate of completion of an envelope, or NOT_FOUND.
func (s *Store) SealedCertificate(ctx context.Context, envelopeID string) ([]byte, error) {
	var data []byte
	if err := s.pool.QueryRow(ctx, `SELECT data FROM sealed_certificates WHERE envelope_id = $1`, envelopeID).Scan(&data); err != nil {
		return nil, notFound(err, "Certificate")
	}
	return data, nil
}

// SealSource is what a seal is made of, read from PostgreSQL: the envelope, each item's file
// as distributed with its page sizes and the SHA-256 of the original upload, every inserted
// field with its signature, each recipient with what the audit log and their identity tell.
type SealSource struct {
	Envelope   *envelope.Envelope
	Items      []SealSourceItem
	Signatures map[int64]FieldSignature // by field id
	Recipients []SealSourceRecipient
	AuditHash  string
}

// SealSourceItem is an item's file as distributed.
type SealSourceItem struct {
	ID, Title      string
	Data           []byte
	Pages          []PageSize
	OriginalSHA256 string
	// ShownSHA256 is the SHA-256 of the item that the recipients' completion entries record
	// (empty when none records one: entries written before they did).
	ShownSHA256 string
}

// ShownDocument is one document as a recipient was shown it when they completed: the
// DOCUMENT_RECIPIENT_COMPLETED audit entry lists one per item.
type ShownDocument = envelope.ShownDocument

// SealSourceRecipient is a recipient with the facts the certificate prints.
type SealSourceRecipient struct {
	Recipient envelope.Recipient
	Opened    *time.Time
	Completed *time.Time
	IP, Agent string
	Identity  Identity
}

// LoadSealSource reads what the seal of envelopeID needs. The audit chain must verify: a seal
// never certifies a log that was tampered with.
func (s *Store) LoadSealSource(ctx context.Context, envelopeID string) (SealSource, error) {
	var src SealSource
	e, err := s.EnvelopeForRecipient(ctx, envelopeID)
	if err != nil {
		return src, err
	}
	src.Envelope = e
	rows, err := s.pool.Query(ctx, `SELECT i.id, i.title, d.data, d.page_sizes, encode(o.sha256, 'hex') FROM envelope_items i
		JOIN document_data d ON d.id = i.document_data_id JOIN document_data o ON o.id = i.initial_data_id
		WHERE i.envelope_id = $1 ORDER BY i.item_order`, envelopeID)
	if err != nil {
		return src, fmt.Errorf("load items of %s: %w", envelopeID, err)
	}
	src.Items, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (SealSourceItem, error) {
		var it SealSourceItem
		var pages []byte
		if err := row.Scan(&it.ID, &it.Title, &it.Data, &pages, &it.OriginalSHA256); err != nil {
			return it, err
		}
		return it, json.Unmarshal(pages, &it.Pages)
	})
	if err != nil {
		return src, fmt.Errorf("load items of %s: %w", envelopeID, err)
	}
	src.Signatures = map[int64]FieldSignature{}
	for _, r := range e.Recipients {
		sigs, err := s.RecipientSignatures(ctx, r.ID)
		if err != nil {
			return src, err
		}
		for id, sig := range sigs {
			src.Signatures[id] = sig
		}
		rec := SealSourceRecipient{Recipient: r}
		if rec.Identity, err = s.RecipientIdentity(ctx, r.ID); err != nil {
			return src, err
		}
		src.Recipients = append(src.Recipients, rec)
	}
	// When each recipient opened and completed, and from where: the audit log's entries.
	arows, err := s.pool.Query(ctx, `SELECT type, created_at, data, coalesce(ip_address, ''), coalesce(user_agent, '') FROM audit_logs
		WHERE envelope_id = $1 AND type IN ('DOCUMENT_OPENED', 'DOCUMENT_RECIPIENT_COMPLETED', 'DOCUMENT_RECIPIENT_REJECTED') ORDER BY seq`, envelopeID)
	if err != nil {
		return src, fmt.Errorf("load audit facts of %s: %w", envelopeID, err)
	}
	defer arows.Close()
	for arows.Next() {
		var typ, ip, agent string
		var at time.Time
		var raw []byte
		if err := arows.Scan(&typ, &at, &raw, &ip, &agent); err != nil {
			return src, fmt.Errorf("read audit facts of %s: %w", envelopeID, err)
		}
		var data struct {
			RecipientID int64           `json:"recipientId"`
			Documents   []ShownDocument `json:"documents"`
		}
		_ = json.Unmarshal(raw, &data)
		if typ == "DOCUMENT_RECIPIENT_COMPLETED" {
			for _, d := range data.Documents {
				for i := range src.Items {
					it := &src.Items[i]
					if it.ID != d.EnvelopeItemID {
						continue
					}
					switch {
					case it.ShownSHA256 == "":
						it.ShownSHA256 = d.SHA256
					case it.ShownSHA256 != d.SHA256:
						// Two recipients were shown different documents: nothing can match.
						it.ShownSHA256 = "differs between recipients"
					}
				}
			}
		}
		for i := range src.Recipients {
			r := &src.Recipients[i]
			if r.Recipient.ID != data.RecipientID {
				continue
			}
			switch typ {
			case "DOCUMENT_OPENED":
				if r.Opened == nil {
					t := at
					r.Opened = &t
				}
			default:
				t := at
				r.Completed, r.IP, r.Agent = &t, ip, agent
			}
		}
	}
	if err := arows.Err(); err != nil {
		return src, err
	}
	_, hash, err := s.VerifyAudit(ctx, envelopeID)
	var br *ChainBreak
	if errors.As(err, &br) {
		return src, fmt.Errorf("the audit log of %s does not verify, so it is not sealed: %w", envelopeID, err)
	}
	if err != nil {
		return src, err
	}
	src.AuditHash = hash
	return src, nil
}
