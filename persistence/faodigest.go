package persistence

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/auth/fea"
	"github.com/sobre-sign/sobre/envelope"
)

// FAODigest is the FAO_HASH digest recipient recipientID of envelope envelopeID signs: the
// documents as stored and the recipient's values as they are now, its RUT_FIRMADO fields holding
// run (the RUN of the session that would complete, which fills them when it does).
func (s *Store) FAODigest(ctx context.Context, envelopeID string, recipientID int64, run string) (string, error) {
	in, err := faoDigestInput(ctx, s.pool, envelopeID, recipientID, run)
	if err != nil {
		return "", err
	}
	return fea.Digest(in), nil
}

// faoDigestInput is what FAODigest covers, read through q: in a transaction, what that
// transaction sees.
func faoDigestInput(ctx context.Context, q querier, envelopeID string, recipientID int64, run string) (fea.DigestInput, error) {
	in := fea.DigestInput{EnvelopeID: envelopeID, RecipientID: recipientID}
	rows, err := q.Query(ctx, `SELECT i.id, encode(d.sha256, 'hex') FROM envelope_items i JOIN document_data d ON d.id = i.document_data_id
		WHERE i.envelope_id = $1 ORDER BY i.item_order, i.id`, envelopeID)
	if err != nil {
		return in, fmt.Errorf("digest items of %s: %w", envelopeID, err)
	}
	if in.Items, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (fea.Item, error) {
		var it fea.Item
		return it, row.Scan(&it.ID, &it.SHA256)
	}); err != nil {
		return in, fmt.Errorf("digest items of %s: %w", envelopeID, err)
	}
	fields, err := recipientFields(ctx, q, recipientID)
	if err != nil {
		return in, err
	}
	sigs, err := recipientSignatures(ctx, q, recipientID)
	if err != nil {
		return in, err
	}
	for _, f := range fields {
		v := fea.Field{ID: f.ID, Type: string(f.Type), Value: f.CustomText}
		switch sig, ok := sigs[f.ID]; {
		case f.Type == envelope.FieldRUTFirmado:
			v.Value = run
		case ok && sig.PNG != nil:
			h := sha256.Sum256(sig.PNG)
			v.Value = hex.EncodeToString(h[:])
		case ok && sig.Typed != nil:
			v.Value = *sig.Typed
		}
		in.Fields = append(in.Fields, v)
	}
	slices.SortFunc(in.Fields, func(a, b fea.Field) int { return cmp.Compare(a.ID, b.ID) })
	return in, nil
}
