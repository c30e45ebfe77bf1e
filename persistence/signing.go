package persistence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/keyring"
)

// Snapshot is an envelope as its workflow sees it: status, meta, owner and recipients.
type Snapshot struct {
	EnvelopeID string
	TeamID     int64
	Title      string
	Status     envelope.Status
	Meta       envelope.Meta
	OwnerName  string
	OwnerEmail string
	Recipients []envelope.Recipient
	// LinkVersions counts the replacements of each recipient's signing link, by recipient id
	// (envelope.Recipient.LinkVersion): the workflow mails a replaced link again.
	LinkVersions map[int64]int `json:",omitempty"`
	// CodeLocks are the recipients whose access-code entry is locked (the workflow mails the
	// owner once per lock).
	CodeLocks []CodeLock `json:",omitempty"`
	// IdentityMismatches are the recipients whose expected RUN was refused to a proof (the
	// workflow mails the owner once per RUN refused).
	IdentityMismatches []IdentityMismatch `json:",omitempty"`
}

// Participants returns the recipients as the signing-order rules read them.
func (s Snapshot) Participants() []envelope.Participant {
	return envelope.Participants(s.Recipients)
}

// Recipient returns the recipient with id, or nil.
func (s Snapshot) Recipient(id int64) *envelope.Recipient {
	for i := range s.Recipients {
		if s.Recipients[i].ID == id {
			return &s.Recipients[i]
		}
	}
	return nil
}

// LoadSnapshot reads envelope id for its workflow (no team scope: the workflow acts for Sobre).
func (s *Store) LoadSnapshot(ctx context.Context, id string) (Snapshot, error) {
	return loadSnapshot(ctx, s.pool, s.ring, id)
}

func loadSnapshot(ctx context.Context, q querier, ring *keyring.Ring, id string) (Snapshot, error) {
	e, err := scanEnvelope(q.QueryRow(ctx, `SELECT `+envelopeColumns+` FROM `+envelopeFrom+` WHERE e.id = $1`, id))
	if err != nil {
		return Snapshot{}, notFound(err, "Envelope")
	}
	if err := loadChildren(ctx, q, ring, []*envelope.Envelope{e}, false); err != nil {
		return Snapshot{}, err
	}
	locks, err := codeLocks(ctx, q, id)
	if err != nil {
		return Snapshot{}, err
	}
	mismatches, err := identityMismatches(ctx, q, id)
	if err != nil {
		return Snapshot{}, err
	}
	snap := Snapshot{EnvelopeID: e.ID, TeamID: e.TeamID, Title: e.Title, Status: e.Status, Meta: e.Meta,
		OwnerName: e.User.Name, OwnerEmail: e.User.Email, Recipients: e.Recipients, CodeLocks: locks, IdentityMismatches: mismatches,
		LinkVersions: map[int64]int{}}
	for _, r := range e.Recipients {
		if r.LinkVersion > 0 {
			snap.LinkVersions[r.ID] = r.LinkVersion
		}
	}
	return snap, nil
}

// lockSnapshot locks the envelope row and reads the snapshot in the transaction.
func (tx *Tx) lockSnapshot(ctx context.Context, id string) (Snapshot, error) {
	var status envelope.Status
	if err := tx.q.QueryRow(ctx, `SELECT status FROM envelopes WHERE id = $1 FOR UPDATE`, id).Scan(&status); err != nil {
		return Snapshot{}, notFound(err, "Envelope")
	}
	return loadSnapshot(ctx, tx.q, tx.ring, id)
}

// MarkPending moves a DRAFT envelope to PENDING (logging DOCUMENT_SENT once), gives every
// recipient who must still act and has no deadline the deadline expiresAt (nil: none), and
// returns the snapshot. On a PENDING envelope it only fills missing deadlines.
func (s *Store) MarkPending(ctx context.Context, id string, expiresAt *time.Time) (Snapshot, error) {
	var snap Snapshot
	err := s.InTx(ctx, func(tx *Tx) error {
		cur, err := tx.lockSnapshot(ctx, id)
		if err != nil {
			return err
		}
		switch {
		case cur.Status == envelope.StatusDraft:
			if _, err := tx.q.Exec(ctx, `UPDATE envelopes SET status = 'PENDING', updated_at = now() WHERE id = $1`, id); err != nil {
				return fmt.Errorf("mark %s pending: %w", id, err)
			}
			if err := tx.Record(ctx, envelope.SentEvent(id, time.Now()), envelope.SystemActor()); err != nil {
				return err
			}
			if err := tx.autoInsert(ctx, cur); err != nil {
				return err
			}
		case cur.Status != envelope.StatusPending:
			snap = cur
			return nil
		}
		if expiresAt != nil {
			if _, err := tx.q.Exec(ctx, `UPDATE recipients SET expires_at = $2, expiration_notified_at = NULL
				WHERE envelope_id = $1 AND role <> 'CC' AND signing_status = 'NOT_SIGNED' AND expires_at IS NULL`, id, *expiresAt); err != nil {
				return fmt.Errorf("set deadlines of %s: %w", id, err)
			}
		}
		snap, err = loadSnapshot(ctx, tx.q, tx.ring, id)
		return err
	})
	return snap, err
}

// MarkSent records that recipient rid was sent the envelope (emailType as Documenso's
// EMAIL_SENT entry names it), logging EMAIL_SENT when mailed, and gives it the deadline
// expiresAt when it has none (a recipient added while PENDING).
func (s *Store) MarkSent(ctx context.Context, envelopeID string, rid int64, emailType string, mailed, resending bool, expiresAt *time.Time) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockEnvelopeRow(ctx, envelopeID); err != nil {
			return err
		}
		r, err := scanRecipient(tx.q.QueryRow(ctx, `UPDATE recipients r SET send_status = 'SENT', sent_at = COALESCE(sent_at, now()),
			expires_at = COALESCE(expires_at, $3) WHERE r.id = $1 AND r.envelope_id = $2 RETURNING `+recipientColumns, rid, envelopeID, expiresAt), nil)
		if err != nil {
			return notFound(err, "Recipient")
		}
		if !mailed {
			return nil
		}
		return tx.Record(ctx, envelope.MailedEvent(r, emailType, resending, time.Now()), envelope.SystemActor())
	})
}

// RecipientByToken returns the recipient holding a signing token (found by its hash) and its
// envelope's id.
func (s *Store) RecipientByToken(ctx context.Context, token string) (envelope.Recipient, error) {
	r, err := scanRecipient(s.pool.QueryRow(ctx, `SELECT `+recipientColumns+` FROM recipients r WHERE r.token_hash = $1`, TokenHash(token)), nil)
	if err != nil {
		return r, notFound(err, "Recipient")
	}
	r.Token = token // the caller holds it: nothing to open
	return r, nil
}

// sameLink refuses (ErrLinkReplaced) when recipient r's signing link is no longer the one r was
// read with (its link version). The recipient's row is share-locked: a replacement in progress
// is waited for, then seen.
func (tx *Tx) sameLink(ctx context.Context, r envelope.Recipient) error {
	var version int
	if err := tx.q.QueryRow(ctx, `SELECT link_version FROM recipients WHERE id = $1 FOR SHARE`, r.ID).Scan(&version); err != nil {
		return notFound(err, "Recipient")
	}
	if version != r.LinkVersion {
		return ErrLinkReplaced
	}
	return nil
}

// LinkReplaced reports whether token was a signing link that a newer one replaced.
func (s *Store) LinkReplaced(ctx context.Context, token string) (bool, error) {
	var yes bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM replaced_links WHERE token_hash = $1)`, TokenHash(token)).Scan(&yes); err != nil {
		return false, fmt.Errorf("look up a replaced link: %w", err)
	}
	return yes, nil
}

// EnvelopeForRecipient returns the whole envelope of a recipient (no team scope: the recipient's
// token is the credential).
func (s *Store) EnvelopeForRecipient(ctx context.Context, envelopeID string) (*envelope.Envelope, error) {
	e, err := scanEnvelope(s.pool.QueryRow(ctx, `SELECT `+envelopeColumns+` FROM `+envelopeFrom+` WHERE e.id = $1`, envelopeID))
	if err != nil {
		return nil, notFound(err, "Envelope")
	}
	if err := loadChildren(ctx, s.pool, s.ring, []*envelope.Envelope{e}, true); err != nil {
		return nil, err
	}
	return e, nil
}

// ViewEvery is how often DOCUMENT_VIEWED is recorded at most for one signing session, and for
// one client of a recipient.
const ViewEvery = 10 * time.Minute

// MarkOpened records that the recipient opened the envelope: OPENED (and SENT, for envelopes
// shared by link) the first time, with DOCUMENT_OPENED; and DOCUMENT_VIEWED, unless a view of the
// recipient was recorded less than ViewEvery ago either in the same signing session (sessionID,
// its public id; a caller without one, "", counts as one session of the recipient) or from the
// same client (the actor's address and User-Agent). Reloading a link in a loop adds no rows, nor
// does loading it without the cookie each time (every such load begins a new session); another
// browser or device (another User-Agent or address) records its own view. Two people behind one
// address with the same browser within ViewEvery count as one view.
func (s *Store) MarkOpened(ctx context.Context, r envelope.Recipient, sessionID string, a envelope.Actor) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockEnvelopeRow(ctx, r.EnvelopeID); err != nil {
			return err
		}
		tag, err := tx.q.Exec(ctx, `UPDATE recipients SET read_status = 'OPENED', send_status = 'SENT', sent_at = COALESCE(sent_at, now())
			WHERE id = $1 AND read_status = 'NOT_OPENED'`, r.ID)
		if err != nil {
			return fmt.Errorf("mark recipient %d opened: %w", r.ID, err)
		}
		if tag.RowsAffected() == 1 {
			if err := tx.Record(ctx, envelope.OpenedEvent(r, time.Now()), a); err != nil {
				return err
			}
		}
		// The envelope's row is locked: no other view of its recipients runs between the check
		// and the upsert.
		keys := []string{sessionID, viewClientKey(a)}
		var recent bool
		if err := tx.q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM document_views WHERE recipient_id = $1 AND session_id = ANY($2)
			AND viewed_at > now() - $3::interval)`, r.ID, keys, ViewEvery.String()).Scan(&recent); err != nil {
			return fmt.Errorf("read the views of recipient %d: %w", r.ID, err)
		}
		if recent {
			return nil // viewed in this session, or from this client, less than ViewEvery ago
		}
		if _, err := tx.q.Exec(ctx, `INSERT INTO document_views (recipient_id, session_id, viewed_at) SELECT $1, k, now() FROM unnest($2::text[]) k
			ON CONFLICT (recipient_id, session_id) DO UPDATE SET viewed_at = EXCLUDED.viewed_at`, r.ID, keys); err != nil {
			return fmt.Errorf("record a view of recipient %d: %w", r.ID, err)
		}
		return tx.AppendAudit(ctx, r.EnvelopeID, envelope.ViewedAudit(r), a)
	})
}

// viewClientKey is the document_views key of the client a views from: a hash of its address and
// User-Agent (neither is kept in the clear there), apart from sessions' public ids.
func viewClientKey(a envelope.Actor) string {
	var ip, ua string
	if a.IPAddress != nil {
		ip = *a.IPAddress
	}
	if a.UserAgent != nil {
		ua = *a.UserAgent
	}
	sum := sha256.Sum256([]byte(ip + "\x00" + ua))
	return "client:" + hex.EncodeToString(sum[:])
}

// FieldValue is a value a recipient puts in a field: CustomText for the field's text, and for
// signatures either Typed or PNG.
type FieldValue struct {
	CustomText string
	Typed      *string
	PNG        []byte
}

// InsertFieldValue sets (or, with v nil, clears) the value of field fieldID of recipient r, while
// the envelope is PENDING and the recipient has not acted, as filled by ceremony session
// sessionID (its public id; "" for a caller without one). auditType is
// DOCUMENT_FIELD_INSERTED or DOCUMENT_FIELD_UNINSERTED.
func (s *Store) InsertFieldValue(ctx context.Context, r envelope.Recipient, fieldID int64, v *FieldValue, sessionID string, a envelope.Actor) (envelope.Field, error) {
	var f envelope.Field
	err := s.InTx(ctx, func(tx *Tx) error {
		snap, err := tx.lockSnapshot(ctx, r.EnvelopeID)
		if err != nil {
			return err
		}
		if err := tx.sameLink(ctx, r); err != nil {
			return err
		}
		if err := envelope.RequirePending(snap.Status); err != nil {
			return err
		}
		cur := snap.Recipient(r.ID)
		if cur == nil {
			return envelope.NotFound("Recipient")
		}
		if cur.SigningStatus != envelope.SigningStatusNotSigned {
			return envelope.Errorf(envelope.CodeRecipientAlreadySigned, "Recipient has already acted on this envelope")
		}
		if cur.ExpiresAt != nil && !time.Now().Before(*cur.ExpiresAt) {
			return envelope.Errorf(envelope.CodeRecipientExpired, "Recipient's signing link has expired")
		}
		f, err = scanField(tx.q.QueryRow(ctx, `SELECT `+fieldColumns+` FROM fields f WHERE f.id = $1 AND f.recipient_id = $2`, fieldID, r.ID))
		if err != nil {
			return notFound(err, "Field")
		}
		if f.FieldMeta != nil && f.FieldMeta.ReadOnly != nil && *f.FieldMeta.ReadOnly {
			return envelope.Errorf(envelope.CodeInvalidRequest, "Field %d is read-only", f.ID)
		}
		if _, err := tx.q.Exec(ctx, `DELETE FROM signatures WHERE field_id = $1`, f.ID); err != nil {
			return fmt.Errorf("clear signature of field %d: %w", f.ID, err)
		}
		if v == nil {
			f.CustomText, f.Inserted = "", false
		} else {
			f.CustomText, f.Inserted = v.CustomText, true
			if v.Typed != nil || v.PNG != nil {
				if _, err := tx.q.Exec(ctx, `INSERT INTO signatures (field_id, recipient_id, typed, image_png) VALUES ($1, $2, $3, $4)`,
					f.ID, r.ID, v.Typed, v.PNG); err != nil {
					return fmt.Errorf("store signature of field %d: %w", f.ID, err)
				}
			}
		}
		// Who touched the value last, filled or cleared: a session, or the link alone.
		if _, err := tx.q.Exec(ctx, `UPDATE fields SET custom_text = $2, inserted = $3, filled_by_session = COALESCE(NULLIF($4, ''), '`+FilledByLink+`'), updated_at = now() WHERE id = $1`,
			f.ID, f.CustomText, f.Inserted, sessionID); err != nil {
			return fmt.Errorf("insert value of field %d: %w", f.ID, err)
		}
		if v == nil {
			return tx.AppendAudit(ctx, r.EnvelopeID, envelope.FieldUninsertedAudit(f), a)
		}
		shown := f.CustomText
		if v.Typed != nil || v.PNG != nil {
			shown = "" // a signature's value is not logged
		}
		return tx.Record(ctx, envelope.FieldInsertedEvent(*cur, f, shown, time.Now()), a)
	})
	return f, err
}

// CompleteInput is a recipient's completion and how old its proofs may be.
type CompleteInput struct {
	envelope.RecipientCompletion
	// ProofMaxAge is how old an action proof may be (envelope.DefaultProofMaxAge when 0).
	ProofMaxAge time.Duration
}

// CompleteRecipient records that a recipient acted: the completing session must hold every proof
// the recipient owes (envelope.CheckCompletion, against the documents and values as this
// transaction sees them), its RUN fills the RUT_FIRMADO fields and its proofs become the
// recipient's identity; every required field must be filled (DATE, NAME and EMAIL fields are
// filled for them), then SIGNED with DOCUMENT_RECIPIENT_COMPLETED. A recipient already SIGNED is
// left as is (a retried activity). It returns the new snapshot.
func (s *Store) CompleteRecipient(ctx context.Context, in CompleteInput) (Snapshot, error) {
	var snap Snapshot
	err := s.InTx(ctx, func(tx *Tx) error {
		cur, err := tx.lockSnapshot(ctx, in.EnvelopeID)
		if err != nil {
			return err
		}
		r := cur.Recipient(in.RecipientID)
		if r == nil {
			return envelope.NotFound("Recipient")
		}
		if r.SigningStatus == envelope.SigningStatusSigned {
			snap = cur
			return nil
		}
		if err := envelope.RequirePending(cur.Status); err != nil {
			return err
		}
		if in.LinkVersion != nil {
			if err := tx.sameLink(ctx, envelope.Recipient{ID: r.ID, LinkVersion: *in.LinkVersion}); err != nil {
				return err
			}
		}
		fields, err := recipientFields(ctx, tx.q, r.ID)
		if err != nil {
			return err
		}
		if err := tx.checkProofs(ctx, cur, *r, fields, in); err != nil {
			return err
		}
		done, err := envelope.Complete(*r, cur.Meta, cur.Recipients, fields, in.Now)
		if err != nil {
			return err
		}
		var autoFilled []envelope.Field
		for _, f := range done.AutoFilled {
			if _, err := tx.q.Exec(ctx, `UPDATE fields SET custom_text = $2, inserted = true, updated_at = now() WHERE id = $1`, f.FieldID, f.Value); err != nil {
				return fmt.Errorf("fill field %d: %w", f.FieldID, err)
			}
			autoFilled = append(autoFilled, envelope.Field{ID: f.FieldID, Type: f.Type, RecipientID: r.ID})
		}
		if len(autoFilled) > 0 {
			if err := tx.AppendAudit(ctx, in.EnvelopeID, envelope.FieldsAutoInsertedAudit(autoFilled), envelope.SystemActor()); err != nil {
				return err
			}
		}
		if _, err := tx.q.Exec(ctx, `UPDATE recipients SET signing_status = 'SIGNED', signed_at = $2, updated_at = now() WHERE id = $1`, r.ID, in.Now); err != nil {
			return fmt.Errorf("mark recipient %d signed: %w", r.ID, err)
		}
		auth, err := tx.completionAuth(ctx, cur, *r)
		if err != nil {
			return err
		}
		if auth.Documents, err = tx.shownDocuments(ctx, in.EnvelopeID); err != nil {
			return err
		}
		if err := tx.Record(ctx, envelope.RecipientCompletedEvent(*r, auth, done.EnvelopeComplete, in.Now), in.Actor); err != nil {
			return err
		}
		if in.NextSigner != nil && in.NextID != 0 {
			next := cur.Recipient(in.NextID)
			if next != nil && next.SigningStatus == envelope.SigningStatusNotSigned && next.SendStatus == envelope.SendStatusNotSent {
				var changes []envelope.AuditChange
				if next.Email != in.NextSigner.Email {
					changes = append(changes, envelope.AuditChange{Type: "EMAIL", From: next.Email, To: in.NextSigner.Email})
				}
				if next.Name != in.NextSigner.Name {
					changes = append(changes, envelope.AuditChange{Type: "NAME", From: next.Name, To: in.NextSigner.Name})
				}
				if len(changes) > 0 {
					if _, err := tx.q.Exec(ctx, `UPDATE recipients SET email = $2, name = $3, updated_at = now() WHERE id = $1`, next.ID, in.NextSigner.Email, in.NextSigner.Name); err != nil {
						return fmt.Errorf("dictate next signer: %w", err)
					}
					updated := *next
					updated.Email, updated.Name = in.NextSigner.Email, in.NextSigner.Name
					replaced := envelope.ReplacesLink(*next, updated)
					if replaced {
						// Whoever had the old address's link must not sign for the new one.
						if err := tx.ReplaceLink(ctx, *next); err != nil {
							return err
						}
					}
					if err := tx.AppendAudit(ctx, in.EnvelopeID, envelope.RecipientUpdatedAudit(updated, changes, replaced), in.Actor); err != nil {
						return err
					}
				}
			}
		}
		snap, err = loadSnapshot(ctx, tx.q, tx.ring, in.EnvelopeID)
		return err
	})
	return snap, err
}

// RejectRecipient records a rejection. A recipient already REJECTED is left as is.
func (s *Store) RejectRecipient(ctx context.Context, in envelope.RecipientRejection) (Snapshot, error) {
	var snap Snapshot
	err := s.InTx(ctx, func(tx *Tx) error {
		cur, err := tx.lockSnapshot(ctx, in.EnvelopeID)
		if err != nil {
			return err
		}
		r := cur.Recipient(in.RecipientID)
		if r == nil {
			return envelope.NotFound("Recipient")
		}
		if r.SigningStatus == envelope.SigningStatusRejected {
			snap = cur
			return nil
		}
		if err := envelope.RequirePending(cur.Status); err != nil {
			return err
		}
		if err := envelope.MayReject(envelope.ParticipantOf(*r), in.External, in.Now); err != nil {
			return err
		}
		if !in.External && in.LinkVersion != nil {
			if err := tx.sameLink(ctx, envelope.Recipient{ID: r.ID, LinkVersion: *in.LinkVersion}); err != nil {
				return err
			}
		}
		if _, err := tx.q.Exec(ctx, `UPDATE recipients SET signing_status = 'REJECTED', signed_at = $2, rejection_reason = $3, updated_at = now() WHERE id = $1`,
			r.ID, in.Now, in.Reason); err != nil {
			return fmt.Errorf("mark recipient %d rejected: %w", r.ID, err)
		}
		how := envelope.Rejection{External: in.External}
		if in.OnBehalfOf != nil {
			how.OnBehalfOf = &envelope.Person{Name: deref(in.OnBehalfOf.Name), Email: deref(in.OnBehalfOf.Email)}
		}
		if err := tx.Record(ctx, envelope.RecipientRejectedEvent(*r, in.Reason, how, in.Now), in.Actor); err != nil {
			return err
		}
		snap, err = loadSnapshot(ctx, tx.q, tx.ring, in.EnvelopeID)
		return err
	})
	return snap, err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// FinishEnvelope ends a PENDING envelope as its ending event ev says (ev.Ending: COMPLETED,
// REJECTED or CANCELLED, at ev.At) and records ev, by a. An envelope already in that status is
// left as is.
func (s *Store) FinishEnvelope(ctx context.Context, ev envelope.Event, a envelope.Actor) error {
	id := ev.EnvelopeID
	status, ends := ev.Ending()
	if !ends {
		return fmt.Errorf("finish envelope %s with a %s event, which ends nothing", id, ev.Kind)
	}
	return s.InTx(ctx, func(tx *Tx) error {
		cur, err := tx.lockSnapshot(ctx, id)
		if err != nil {
			return err
		}
		if cur.Status == status {
			return nil
		}
		if cur.Status != envelope.StatusPending {
			return envelope.Errorf(envelope.CodeInvalidRequest, "Envelope %s is %s, not PENDING", id, cur.Status)
		}
		if _, err := tx.q.Exec(ctx, `UPDATE envelopes SET status = $2, completed_at = $3, updated_at = now() WHERE id = $1`, id, status, ev.At); err != nil {
			return fmt.Errorf("finish envelope %s as %s: %w", id, status, err)
		}
		return tx.Record(ctx, ev, a)
	})
}

// ExpireRecipients records, for each pending recipient whose deadline passed at now and who was
// not yet noted, DOCUMENT_RECIPIENT_EXPIRED, and returns them.
func (s *Store) ExpireRecipients(ctx context.Context, id string, now time.Time) ([]envelope.Recipient, error) {
	var expired []envelope.Recipient
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.lockEnvelopeRow(ctx, id); err != nil {
			return err
		}
		rows, err := tx.q.Query(ctx, `UPDATE recipients r SET expiration_notified_at = $2 WHERE r.envelope_id = $1
			AND r.role <> 'CC' AND r.signing_status = 'NOT_SIGNED' AND r.expires_at <= $2 AND r.expiration_notified_at IS NULL
			RETURNING `+recipientColumns, id, now)
		if err != nil {
			return fmt.Errorf("expire recipients of %s: %w", id, err)
		}
		expired, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (envelope.Recipient, error) { return scanRecipient(row, tx.ring) })
		if err != nil {
			return fmt.Errorf("read expired recipients: %w", err)
		}
		for _, r := range expired {
			if err := tx.Record(ctx, envelope.RecipientExpiredEvent(r, now), envelope.SystemActor()); err != nil {
				return err
			}
		}
		return nil
	})
	return expired, err
}

// MailState is where the sending of one mail got to.
type MailState string

// Mail states, in order. A mail in MailTransmitting was being handed to the relay when its
// attempt ended: it may have been delivered, so it is never sent again.
const (
	MailSending      = MailState("sending")
	MailTransmitting = MailState("transmitting")
	MailSent         = MailState("sent")
)

// ClaimMail records that the mail messageID is about to be sent and returns the state an
// earlier attempt left it in (MailSending when this is the first).
func (s *Store) ClaimMail(ctx context.Context, messageID, envelopeID, kind, to string) (MailState, error) {
	var state MailState
	err := s.pool.QueryRow(ctx, `INSERT INTO mail_log (message_id, envelope_id, kind, recipient, state, team_id)
		VALUES ($1, $2, $3, $4, 'sending', (SELECT team_id FROM envelopes WHERE id = $2))
		ON CONFLICT (message_id) DO UPDATE SET message_id = EXCLUDED.message_id RETURNING state`, messageID, envelopeID, kind, to).Scan(&state)
	if err != nil {
		return "", fmt.Errorf("claim mail %s: %w", messageID, err)
	}
	return state, nil
}

// MailTransmitting records that the mail messageID is being handed to the relay.
func (s *Store) MailTransmitting(ctx context.Context, messageID string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE mail_log SET state = 'transmitting' WHERE message_id = $1`, messageID); err != nil {
		return fmt.Errorf("record mail %s transmitting: %w", messageID, err)
	}
	return nil
}

// MailNotTransmitted puts a mail marked transmitting back to sending: the relay refused it before
// its content was handed over (MAIL FROM, RCPT TO or the DATA command), so it was not delivered
// and a retry may send it.
func (s *Store) MailNotTransmitted(ctx context.Context, messageID string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE mail_log SET state = 'sending' WHERE message_id = $1 AND state = 'transmitting'`, messageID); err != nil {
		return fmt.Errorf("record mail %s not transmitted: %w", messageID, err)
	}
	return nil
}

// MailSent records that the mail messageID was handed to the relay.
func (s *Store) MailSent(ctx context.Context, messageID string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE mail_log SET state = 'sent', sent_at = now() WHERE message_id = $1`, messageID); err != nil {
		return fmt.Errorf("record mail %s sent: %w", messageID, err)
	}
	return nil
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

// autoInsert fills, as the envelope is sent, the fields whose value is already known: preset
// TEXT, NUMBER and RUT values, ticked RADIO and CHECKBOX options, a DROPDOWN's default, and
// EMAIL fields with the recipient's address (Documenso's auto-insert). It logs
// DOCUMENT_FIELDS_AUTO_INSERTED.
func (tx *Tx) autoInsert(ctx context.Context, snap Snapshot) error {
	rows, err := tx.q.Query(ctx, `SELECT `+fieldColumns+` FROM fields f WHERE f.envelope_id = $1 AND NOT f.inserted ORDER BY f.id`, snap.EnvelopeID)
	if err != nil {
		return fmt.Errorf("load fields of %s: %w", snap.EnvelopeID, err)
	}
	fields, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (envelope.Field, error) { return scanField(row) })
	if err != nil {
		return fmt.Errorf("read fields of %s: %w", snap.EnvelopeID, err)
	}
	var done []envelope.Field
	for _, f := range fields {
		r := snap.Recipient(f.RecipientID)
		if r == nil {
			continue
		}
		value, ok := envelope.PresetValue(f, *r)
		if !ok {
			continue
		}
		// A preset value is the sender's.
		if _, err := tx.q.Exec(ctx, `UPDATE fields SET custom_text = $2, inserted = true, filled_by_session = '`+FilledBySender+`', updated_at = now() WHERE id = $1`,
			f.ID, value); err != nil {
			return fmt.Errorf("auto-insert field %d: %w", f.ID, err)
		}
		done = append(done, f)
	}
	if len(done) == 0 {
		return nil
	}
	return tx.AppendAudit(ctx, snap.EnvelopeID, envelope.FieldsAutoInsertedAudit(done), envelope.SystemActor())
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

// CheckMailQuota refuses (TOO_MANY_REQUESTS, with the wait) what would have Sobre send need more
// mails for team teamID when its mails of the last window, and need, pass quota.
func (s *Store) CheckMailQuota(ctx context.Context, teamID int64, quota, need int, window time.Duration) error {
	return checkMailQuota(ctx, s.pool, teamID, quota, need, window)
}

// CheckMailQuota is Store.CheckMailQuota inside the transaction: a request that holds a
// transaction never asks the pool for a second connection, which a few such requests at once
// would wait for each other to give back.
func (tx *Tx) CheckMailQuota(ctx context.Context, teamID int64, quota, need int, window time.Duration) error {
	return checkMailQuota(ctx, tx.q, teamID, quota, need, window)
}

func checkMailQuota(ctx context.Context, q querier, teamID int64, quota, need int, window time.Duration) error {
	var used int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM mail_log WHERE team_id = $1 AND created_at > now() - $2::interval`,
		teamID, window.String()).Scan(&used); err != nil {
		return fmt.Errorf("count the mails of team %d: %w", teamID, err)
	}
	if used+need <= quota {
		return nil
	}
	hours := int(window.Hours())
	if need > quota {
		return envelope.Errorf(envelope.CodeTooManyRequests,
			"This would send %d mails, more than this team's quota of %d in %d hours; send to fewer recipients at a time", need, quota, hours)
	}
	// The wait: until the oldest mails that must leave the window to make room have left it.
	var seconds float64
	if err := q.QueryRow(ctx, `SELECT extract(epoch FROM created_at + $3::interval - now())::float8 FROM mail_log
		WHERE team_id = $1 AND created_at > now() - $3::interval ORDER BY created_at OFFSET $2 - 1 LIMIT 1`,
		teamID, used+need-quota, window.String()).Scan(&seconds); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("read the mails of team %d: %w", teamID, err)
	}
	wait := time.Duration(math.Ceil(seconds)) * time.Second
	return &envelope.Error{Code: envelope.CodeTooManyRequests, RetryAfter: max(wait, time.Second),
		Message: fmt.Sprintf("This team's mail quota is used up: %d of %d mails in the last %d hours, and this would send %d more; nothing was sent, try again later",
			used, quota, hours, need)}
}
