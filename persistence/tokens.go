package persistence

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/internal/keyring"
)

// Signing tokens at rest (migration 00011). A recipient's row holds the SHA-256 of its token,
// unique, by which every signing link is looked up, and the token sealed with the Store's keyring
// and bound to the recipient's id, opened only to build links (mails, the reads of those who
// manage the envelope). A row written before 00011 may still hold its token in the clear until
// SealPlainTokens has run.

// ErrNoKeyring is returned by a Store opened without WithKeyring when it must seal a token.
var ErrNoKeyring = errors.New("persistence: no keyring to seal signing tokens with (WithKeyring)")

// TokenHash is what the database keeps to find a signing token: its SHA-256.
func TokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// tokenContext binds a sealed token to its recipient: a sealed value copied to another row does
// not open there.
func tokenContext(recipientID int64) []byte {
	return []byte("sobre/recipient-token/" + strconv.FormatInt(recipientID, 10))
}

// setToken makes token recipient id's signing token: its hash and its sealed form, and no plain
// copy.
func (tx *Tx) setToken(ctx context.Context, recipientID int64, token string) error {
	if tx.ring == nil {
		return ErrNoKeyring
	}
	keyID, sealed := tx.ring.Seal([]byte(token), tokenContext(recipientID))
	_, err := tx.q.Exec(ctx, `UPDATE recipients SET token_hash = $2, token_sealed = $3, token_key_id = $4, token = NULL WHERE id = $1`,
		recipientID, TokenHash(token), sealed, keyID)
	if err != nil {
		return fmt.Errorf("store the signing token of recipient %d: %w", recipientID, err)
	}
	return nil
}

// storedToken is a recipient's token as its row holds it.
type storedToken struct {
	plain  *string // written before migration 00011 and not sealed yet
	sealed []byte
	keyID  *string
}

// open returns the token of recipient id: "" when the Store has no keyring (it reads recipients
// without their tokens), an error when the key that sealed it is not in the ring.
func (t storedToken) open(ring *keyring.Ring, recipientID int64) (string, error) {
	switch {
	case t.plain != nil:
		return *t.plain, nil
	case t.sealed == nil || ring == nil:
		return "", nil
	}
	plain, err := ring.Open(deref(t.keyID), t.sealed, tokenContext(recipientID))
	if err != nil {
		return "", fmt.Errorf("open the signing token of recipient %d: %w", recipientID, err)
	}
	return string(plain), nil
}

// sealBatch is how many plain tokens SealPlainTokens seals per transaction.
const sealBatch = 500

// SealPlainTokens seals every signing token still held in the clear (rows written before
// migration 00011) and clears the plain copy, in transactions of a few hundred rows, and returns
// how many it sealed. It is idempotent, and processes starting at once share the work (rows
// another holds are skipped, then found sealed). A Store without a keyring seals nothing.
func (s *Store) SealPlainTokens(ctx context.Context) (int, error) {
	if s.ring == nil {
		return 0, ErrNoKeyring
	}
	total := 0
	for {
		n := 0
		err := s.InTx(ctx, func(tx *Tx) error {
			rows, err := tx.q.Query(ctx, `SELECT id, token FROM recipients WHERE token IS NOT NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, sealBatch)
			if err != nil {
				return fmt.Errorf("find plain signing tokens: %w", err)
			}
			type plain struct {
				id    int64
				token string
			}
			list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (plain, error) {
				var p plain
				return p, row.Scan(&p.id, &p.token)
			})
			if err != nil {
				return fmt.Errorf("read plain signing tokens: %w", err)
			}
			ids, sealed, keys := make([]int64, len(list)), make([][]byte, len(list)), make([]string, len(list))
			for i, p := range list {
				ids[i] = p.id
				keys[i], sealed[i] = s.ring.Seal([]byte(p.token), tokenContext(p.id))
			}
			if _, err := tx.q.Exec(ctx, `UPDATE recipients r SET token_sealed = v.sealed, token_key_id = v.key_id,
				token_hash = sha256(convert_to(r.token, 'UTF8')), token = NULL
				FROM unnest($1::bigint[], $2::bytea[], $3::text[]) AS v(id, sealed, key_id) WHERE r.id = v.id`, ids, sealed, keys); err != nil {
				return fmt.Errorf("seal plain signing tokens: %w", err)
			}
			n = len(list)
			return nil
		})
		if err != nil {
			return total, err
		}
		total += n
		if n < sealBatch {
			return total, nil
		}
	}
}
