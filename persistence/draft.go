package persistence

import (
	"context"
	"errors"

	"github.com/sobre-sign/sobre/envelope"
)

// Editor is the team member who changes an envelope that is not finished (its settings,
// recipients, fields or documents): every read is scoped to what they may see, every change
// refused unless they may manage the envelope (envelope.MayManage), and every audit entry names
// Actor.
type Editor struct {
	Member envelope.Member
	Actor  envelope.Actor
}

func (ed Editor) scope() Scope { return ScopeOf(ed.Member) }

// EditChecks are the refusals of a change that the store cannot decide on its own, asked inside
// the change's transaction: an error rolls the change back. A nil check refuses nothing.
type EditChecks struct {
	// Signable refuses what a recipient must prove when this server cannot take it.
	Signable func(envelope.Proofs) error
	// Quota refuses a change of recipients whose mails would pass the team's mail quota.
	Quota func(ctx context.Context, tx *Tx, c RecipientsChange) error
	// SendQuota refuses sending e (its signing requests to whoever may act now) whose mails
	// would pass the team's mail quota.
	SendQuota func(ctx context.Context, tx *Tx, e *envelope.Envelope) error
}

// RecipientsChange is a committed-to-be change of an envelope's recipients, as the mail quota
// reads it: the envelope Before and After, the recipients whose link it Replaced (as they were)
// and the recipient it Removed.
type RecipientsChange struct {
	Before, After *envelope.Envelope
	Replaced      []envelope.Recipient
	Removed       *envelope.Recipient
}

// checkSignable records a problem at path (the recipient's authOptions) when rec, on an envelope
// with global options and fields, could never act on this server (EditChecks.Signable). A CC
// takes no action and is never refused.
func (c EditChecks) checkSignable(p *envelope.Problems, path string, rec envelope.Recipient, global envelope.AuthOptions, fields []envelope.Field) {
	if rec.Role == envelope.RoleCC || c.Signable == nil {
		return
	}
	if err := c.Signable(envelope.RequiredProofs(rec, global, fields)); err != nil {
		var de *envelope.Error
		if errors.As(err, &de) {
			p.Add(path, "%s", de.Message)
		}
	}
}

func (c EditChecks) quota(ctx context.Context, tx *Tx, ch RecipientsChange) error {
	if c.Quota == nil {
		return nil
	}
	return c.Quota(ctx, tx, ch)
}

// EditableEnvelope locks envelope id until the transaction ends and loads it for a change of it
// or its documents, recipients, fields or attachments: refused to an editor who may not manage
// it (envelope.MayManage) and for a finished envelope.
func (tx *Tx) EditableEnvelope(ctx context.Context, ed Editor, id string) (*envelope.Envelope, error) {
	ref, err := tx.LockEnvelope(ctx, ed.scope(), id)
	if err != nil {
		return nil, err
	}
	if err := envelope.MayManage(ed.Member, ref.Owned()); err != nil {
		return nil, err
	}
	e, err := tx.GetEnvelope(ctx, ed.scope(), id)
	if err != nil {
		return nil, err
	}
	if err := envelope.RequireEditable(e.Status); err != nil {
		return nil, err
	}
	return e, nil
}

// editEnvelope makes one change of envelope id by ed, in one transaction: change is given the
// envelope as ed may edit it (EditableEnvelope); the envelope is then marked changed and read
// again (touchedEnvelope), and check, when not nil, is given it before and after the change and
// may still refuse it. It returns the envelope after the change.
func (s *Store) editEnvelope(ctx context.Context, ed Editor, id string, change func(tx *Tx, e *envelope.Envelope) error,
	check func(tx *Tx, before, after *envelope.Envelope) error) (*envelope.Envelope, error) {
	var after *envelope.Envelope
	err := s.InTx(ctx, func(tx *Tx) error {
		before, err := tx.EditableEnvelope(ctx, ed, id)
		if err != nil {
			return err
		}
		if err := change(tx, before); err != nil {
			return err
		}
		if after, err = tx.touchedEnvelope(ctx, ed, before.ID); err != nil {
			return err
		}
		if err := envelope.CheckDirectLinkKept(after); err != nil {
			return err
		}
		if check == nil {
			return nil
		}
		return check(tx, before, after)
	})
	return after, err
}

// touchedEnvelope marks envelope id changed now (Tx.Touch) and reads it as it is after the
// change, as the editor sees it.
func (tx *Tx) touchedEnvelope(ctx context.Context, ed Editor, id string) (*envelope.Envelope, error) {
	if err := tx.Touch(ctx, id); err != nil {
		return nil, err
	}
	return tx.GetEnvelope(ctx, ed.scope(), id)
}

// mayChange refuses a change of the envelope ref (of one of its recipients or fields) to an
// editor who may not manage it (envelope.MayManage), and of a finished envelope.
func (ed Editor) mayChange(ref EnvelopeRef) error {
	if err := envelope.MayManage(ed.Member, ref.Owned()); err != nil {
		return err
	}
	return envelope.RequireEditable(ref.Status)
}

// checkNotWeakened records a problem for each of the access and action lists (members
// accessName and actionName of path) that would lose a method in force once the envelope is
// PENDING (envelope.Weakened).
func checkNotWeakened(p *envelope.Problems, path, accessName, actionName string, before, after envelope.AuthMethods) {
	access, action := envelope.Weakened(before, after)
	if len(access) > 0 {
		p.Add(envelope.Join(path, accessName), "the envelope was sent: its authentication may only be kept or strengthened, and this would drop %v", access)
	}
	if len(action) > 0 {
		p.Add(envelope.Join(path, actionName), "the envelope was sent: its authentication may only be kept or strengthened, and this would loosen it (any one method completes: %v)", action)
	}
}
