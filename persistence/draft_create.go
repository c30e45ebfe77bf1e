package persistence

import (
	"context"

	"github.com/sobre-sign/sobre/envelope"
)

// CreateDraft creates ne, owned by owner, and returns its id. DOCUMENT_CREATED names the editor
// who created it; when that is not owner (a MANAGER or an ADMIN creating it for a colleague), a
// second entry names whom it was created for.
func (s *Store) CreateDraft(ctx context.Context, ed Editor, owner envelope.Member, ne NewEnvelope) (string, error) {
	var id string
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		if id, err = tx.CreateEnvelope(ctx, owner, ne, ed.Actor); err != nil || owner.UserID == ed.Member.UserID {
			return err
		}
		return tx.AppendAudit(ctx, id, envelope.DelegatedOwnerCreatedAudit(owner), ed.Actor)
	})
	return id, err
}
