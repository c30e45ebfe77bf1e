package persistence

import (
	"context"
	"slices"

	"github.com/sobre-sign/sobre/envelope"
)

// The changes of an envelope's recipients while it is not finished. A problem with one of the
// listed recipients is reported at data[i], the i-th of the list.

// AddRecipients adds recs (checked inputs, without ids) to envelope envelopeID and returns the
// envelope after the change with the new recipients' ids, in the order of recs. Refused past
// envelope.MaxRecipients, for an expected RUN no proof asks for, and, once the envelope is
// PENDING, for a recipient who could never act on this server or whose mails pass the quota.
func (s *Store) AddRecipients(ctx context.Context, ed Editor, checks EditChecks, envelopeID string, recs []envelope.Recipient) (*envelope.Envelope, []int64, error) {
	var ids []int64
	e, err := s.editEnvelope(ctx, ed, envelopeID, func(tx *Tx, e *envelope.Envelope) error {
		if len(e.Recipients)+len(recs) > envelope.MaxRecipients {
			return envelope.Errorf(envelope.CodeRecipientLimit, "An envelope has at most %d recipients", envelope.MaxRecipients)
		}
		var p envelope.Problems
		for i, rec := range recs {
			// A new recipient has no fields yet: only auth can ask for a proof of its RUN.
			envelope.CheckExpectedRUT(&p, envelope.Join(envelope.Join("data", i), "expectedRut"), rec, e.AuthOptions, nil)
			if e.Status == envelope.StatusPending {
				checks.checkSignable(&p, envelope.Join(envelope.Join("data", i), "authOptions"), rec, e.AuthOptions, nil)
			}
		}
		if err := p.Err(); err != nil {
			return err
		}
		for _, rec := range recs {
			added, err := tx.AddRecipient(ctx, e.ID, rec, ed.Actor)
			if err != nil {
				return err
			}
			ids = append(ids, added.ID)
		}
		return nil
	}, func(tx *Tx, before, after *envelope.Envelope) error {
		return checks.quota(ctx, tx, RecipientsChange{Before: before, After: after})
	})
	return e, ids, err
}

// RecipientPatch is a checked change of one recipient: a nil member is left as it is.
type RecipientPatch struct {
	ID           int64
	Email        *string
	Name         *string
	Role         *envelope.Role
	SigningOrder *int
	AccessAuth   *[]envelope.AccessAuth
	ActionAuth   *[]envelope.ActionAuth
	// ExpectedRUT, when set, is the RUN in its normal form, or null to remove it.
	ExpectedRUT envelope.Optional[string]
}

// UpdateRecipients applies patches to the recipients of envelope envelopeID and returns the
// envelope after the change with the patched recipients' ids. A recipient who has acted cannot
// change; a CC or VIEWER fills no fields; once the envelope is PENDING, what a recipient must
// prove may only be kept or strengthened, and a change whose mails pass the quota is refused.
// Each recipient that changed gets its RECIPIENT_UPDATED audit entry; a change of email or
// authentication replaces the signing link.
func (s *Store) UpdateRecipients(ctx context.Context, ed Editor, checks EditChecks, envelopeID string, patches []RecipientPatch) (*envelope.Envelope, []int64, error) {
	var ids []int64
	var relinked []envelope.Recipient // whose link was replaced, as they were: mailed the new one
	e, err := s.editEnvelope(ctx, ed, envelopeID, func(tx *Tx, e *envelope.Envelope) error {
		var p envelope.Problems
		for i, in := range patches {
			path := envelope.Join("data", i)
			cur := e.Recipient(in.ID)
			if cur == nil {
				p.Add(envelope.Join(path, "id"), "recipient %d is not in envelope %s", in.ID, e.ID)
				continue
			}
			next := *cur
			var changes []envelope.AuditChange
			change := func(kind string, from, to any) {
				changes = append(changes, envelope.AuditChange{Type: kind, From: from, To: to})
			}
			if in.Email != nil && *in.Email != cur.Email {
				change("EMAIL", cur.Email, *in.Email)
				next.Email = *in.Email
			}
			if in.Name != nil && *in.Name != cur.Name {
				change("NAME", cur.Name, *in.Name)
				next.Name = *in.Name
			}
			if in.Role != nil && *in.Role != cur.Role {
				change("ROLE", cur.Role, *in.Role)
				next.Role = *in.Role
			}
			if in.SigningOrder != nil {
				next.SigningOrder = in.SigningOrder
			}
			if in.AccessAuth != nil {
				change("ACCESS_AUTH", cur.AuthOptions.AccessAuth, *in.AccessAuth)
				next.AuthOptions.AccessAuth = *in.AccessAuth
			}
			if in.ActionAuth != nil {
				change("ACTION_AUTH", cur.AuthOptions.ActionAuth, *in.ActionAuth)
				next.AuthOptions.ActionAuth = *in.ActionAuth
			}
			if in.ExpectedRUT.Set {
				v := in.ExpectedRUT.Ptr()
				if deref(v) != deref(cur.ExpectedRUT) {
					change("EXPECTED_RUT", cur.ExpectedRUT, v)
					next.ExpectedRUT = v
				}
			}
			envelope.CheckExpectedRUT(&p, envelope.Join(path, "expectedRut"), next, e.AuthOptions, e.Fields)
			if e.Status == envelope.StatusPending && slices.Contains(envelope.ProofsLost(envelope.RequiredProofs(*cur, e.AuthOptions, e.Fields),
				envelope.RequiredProofs(next, e.AuthOptions, e.Fields)), "expectedRut") {
				p.Add(envelope.Join(path, "expectedRut"), "the envelope was sent: the RUN the recipient must prove may not be removed or changed (cancel the envelope and send a new one)")
			}
			if e.Status == envelope.StatusPending {
				checkNotWeakened(&p, path, "accessAuth", "actionAuth", envelope.RecipientAuth(cur.AuthOptions, e.AuthOptions),
					envelope.RecipientAuth(next.AuthOptions, e.AuthOptions))
				checks.checkSignable(&p, envelope.Join(path, "authOptions"), next, e.AuthOptions, e.Fields)
			}
			if next.Email == "" && (len(next.AuthOptions.AccessAuth) > 0 || len(next.AuthOptions.ActionAuth) > 0) {
				p.Add(envelope.Join(path, "email"), "is required when the recipient has access or action authentication")
			}
			if len(changes) == 0 && equalOrder(next.SigningOrder, cur.SigningOrder) {
				ids = append(ids, cur.ID)
				continue
			}
			if err := tx.RequireUnacted(ctx, cur.ID, envelope.FrozenRecipient); err != nil {
				return err
			}
			if !next.Role.FillsFields() {
				for _, f := range e.Fields {
					if f.RecipientID == cur.ID {
						p.Add(envelope.Join(path, "role"), "a %s recipient fills no fields; delete recipient %d's fields first", next.Role, cur.ID)
						break
					}
				}
			}
			if err := p.Err(); err != nil {
				return err
			}
			replaced, err := tx.UpdateRecipient(ctx, next)
			if err != nil {
				return err
			}
			if replaced {
				relinked = append(relinked, *cur)
			}
			if len(changes) > 0 {
				if err := tx.AppendAudit(ctx, e.ID, envelope.RecipientUpdatedAudit(next, changes, replaced), ed.Actor); err != nil {
					return err
				}
			}
			ids = append(ids, cur.ID)
		}
		if err := p.Err(); err != nil {
			return err
		}
		return nil
	}, func(tx *Tx, before, after *envelope.Envelope) error {
		return checks.quota(ctx, tx, RecipientsChange{Before: before, After: after, Replaced: relinked})
	})
	return e, ids, err
}

func equalOrder(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// RemoveRecipient removes recipient id from its envelope and returns the envelope as it was
// (its id and status). Refused for a recipient who has acted (but a CC), and, once the envelope
// is PENDING, for a recipient who must prove something (removed and added again, they would come
// back without it) or whose "removed" mail passes the quota. It records RECIPIENT_DELETED.
func (s *Store) RemoveRecipient(ctx context.Context, ed Editor, checks EditChecks, id int64) (EnvelopeRef, error) {
	var ref EnvelopeRef
	err := s.InTx(ctx, func(tx *Tx) error {
		var rec envelope.Recipient
		var err error
		rec, ref, err = tx.LockRecipient(ctx, ed.scope(), id)
		if err != nil {
			return err
		}
		if err := ed.mayChange(ref); err != nil {
			return err
		}
		if ref.Status == envelope.StatusPending {
			// Removed and added again, a recipient would come back without what they must prove.
			e, err := tx.GetEnvelope(ctx, ed.scope(), ref.ID)
			if err != nil {
				return err
			}
			if envelope.RequiredProofs(rec, e.AuthOptions, e.Fields).MustProve() {
				return envelope.Invalid("recipientId", "recipient %d must prove their identity or access, and the envelope was sent: they cannot be removed (cancel the envelope and send a new one)", rec.ID)
			}
		}
		if rec.Role != envelope.RoleCC {
			if err := tx.RequireUnacted(ctx, rec.ID, envelope.FrozenRemoval); err != nil {
				return err
			}
		}
		if err := tx.DeleteRecipient(ctx, rec.ID); err != nil {
			return err
		}
		if err := tx.Touch(ctx, ref.ID); err != nil {
			return err
		}
		if ref.Status == envelope.StatusPending {
			after, err := tx.GetEnvelope(ctx, ed.scope(), ref.ID)
			if err != nil {
				return err
			}
			if err := checks.quota(ctx, tx, RecipientsChange{Before: after, After: after, Removed: &rec}); err != nil {
				return err
			}
		}
		return tx.AppendAudit(ctx, ref.ID, envelope.RecipientDeletedAudit(rec), ed.Actor)
	})
	return ref, err
}
