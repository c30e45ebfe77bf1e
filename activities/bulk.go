package activities

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/mail"
	"github.com/sobre-sign/sobre/persistence"
)

// BulkSend is what the bulk send's activities need beyond the store and the mail.
type BulkSend struct {
	// Distribute starts a row's envelope workflow as POST /envelope/distribute does (the
	// workflows client's Distribute: one Update-With-Start with workflow id = envelope id, so a
	// second call finds the running workflow). Nil: documents are made but never sent.
	Distribute func(ctx context.Context, envelopeID string, teamID int64) error
	// Signable refuses what a recipient must prove when this server cannot take it
	// (ceremony.CheckSignable), as for POST /envelope/use.
	Signable func(envelope.Proofs) error
	// MailQuota is SOBRE_MAIL_QUOTA (0: none): a row whose signing requests would pass the
	// team's quota fails, as a distribute would be refused.
	MailQuota int
}

// BulkSendRow makes row ref's document from the job's template, once, and sends it when the job
// says so; it returns where the row got to. The document's id was decided when the row was
// stored: an attempt that finds it made (an earlier attempt, or a worker that died after making
// it) does not make it again, and the send is an Update-With-Start that finds a running
// workflow. A row no retry would help (BulkRowProblem, a value a field refuses, the quota, a
// template gone: envelope.BulkRowFinal) is recorded FAILED with its reason and not retried.
func (a *Activities) BulkSendRow(ctx context.Context, ref envelope.BulkRowRef) (envelope.BulkRowStatus, error) {
	stop := heartbeat(ctx, BulkHeartbeat)
	defer stop()
	job, err := a.Store.BulkJob(ctx, ref.JobID)
	if err != nil {
		return "", err
	}
	row, err := a.Store.BulkRow(ctx, ref.JobID, ref.Index)
	if err != nil {
		return "", err
	}
	if row.Status == envelope.BulkRowSent || row.Status == envelope.BulkRowFailed {
		return row.Status, nil
	}
	if row.Status == envelope.BulkRowPending {
		if err := a.createBulkDocument(ctx, job, row); err != nil {
			return a.bulkRowFailed(ctx, ref, err)
		}
		if err := a.Store.MarkBulkRow(ctx, ref.JobID, ref.Index, envelope.BulkRowCreated, ""); err != nil {
			return "", err
		}
	}
	if !job.Distribute || a.Bulk.Distribute == nil {
		return envelope.BulkRowCreated, nil
	}
	if err := a.Bulk.Distribute(ctx, row.EnvelopeID, job.TeamID); err != nil {
		return a.bulkRowFailed(ctx, ref, err)
	}
	if err := a.Store.MarkBulkRow(ctx, ref.JobID, ref.Index, envelope.BulkRowSent, ""); err != nil {
		return "", err
	}
	return envelope.BulkRowSent, nil
}

// BulkHeartbeat is how often a row's attempt tells Temporal it is alive (well within the
// workflow's heartbeat timeout, 10 s).
const BulkHeartbeat = 2 * time.Second

// heartbeat records a heartbeat of the activity running in ctx every period until stop is
// called; outside an activity it does nothing.
func heartbeat(ctx context.Context, period time.Duration) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			activity.RecordHeartbeat(ctx)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done) }
}

// bulkRowFailed records the row FAILED when err is final for this attempt
// (envelope.BulkRowFinal), or returns err to be retried.
func (a *Activities) bulkRowFailed(ctx context.Context, ref envelope.BulkRowRef, err error) (envelope.BulkRowStatus, error) {
	attempt := int32(1)
	if activity.IsActivity(ctx) {
		attempt = activity.GetInfo(ctx).Attempt
	}
	if !envelope.BulkRowFinal(err, attempt) {
		return "", err
	}
	if err := a.Store.MarkBulkRow(ctx, ref.JobID, ref.Index, envelope.BulkRowFailed, err.Error()); err != nil {
		return "", err
	}
	return envelope.BulkRowFailed, nil
}

// createBulkDocument makes the row's document with its decided id, unless it exists, through
// the store operation of POST /envelope/use (Store.CreateFromTemplate) with the same checks.
func (a *Activities) createBulkDocument(ctx context.Context, job persistence.BulkJob, row persistence.BulkRowRecord) error {
	if made, err := a.Store.EnvelopeExists(ctx, row.EnvelopeID); err != nil || made {
		return err
	}
	tpl, err := a.Store.GetEnvelope(ctx, persistence.ScopeOf(job.Member), job.TemplateID)
	if err != nil {
		return err
	}
	if tpl.Type != envelope.TypeTemplate {
		return envelope.Errorf(envelope.CodeInvalidRequest, "Envelope %s is a %s, not a TEMPLATE", tpl.ID, tpl.Type)
	}
	if problem := envelope.BulkRowProblem(row.Input, tpl.Recipients); problem != "" {
		return envelope.Invalid("", "%s", problem)
	}
	items, err := a.Store.ItemDocuments(ctx, tpl.ID)
	if err != nil {
		return err
	}
	var p envelope.Problems
	ne := persistence.BulkDocument(&p, tpl, items, row.Input)
	if err := p.Err(); err != nil {
		return err
	}
	ne.ID = row.EnvelopeID
	checks := persistence.EditChecks{Signable: a.Bulk.Signable, SendQuota: a.bulkSendQuota}
	_, err = a.Store.CreateFromTemplate(ctx, persistence.Editor{Member: job.Member, Actor: job.Actor}, checks, ne, job.Distribute)
	if err != nil {
		if made, lookErr := a.Store.EnvelopeExists(ctx, row.EnvelopeID); lookErr == nil && made {
			return nil // an attempt running beside this one made it
		}
		return err // recorded on its row, which says which it is
	}
	return nil
}

// bulkSendQuota refuses sending e when its signing requests would pass the team's mail quota,
// and otherwise reserves them, as a distribute does.
func (a *Activities) bulkSendQuota(ctx context.Context, tx *persistence.Tx, e *envelope.Envelope) error {
	return tx.ReserveMailQuota(ctx, e, a.Bulk.MailQuota)
}

// bulkSummaryErrors is how many failed rows the summary mail lists.
const bulkSummaryErrors = 20

// FinishBulkSend records the job COMPLETED and mails its owner the summary, once: the mail is
// claimed in the mail log under a Message-ID of the job's own, as SendNotice claims a notice,
// so a retried activity never mails twice.
func (a *Activities) FinishBulkSend(ctx context.Context, jobID string) error {
	if err := a.Store.CompleteBulkJob(ctx, jobID); err != nil {
		return err
	}
	job, err := a.Store.BulkJob(ctx, jobID)
	if err != nil {
		return err
	}
	counts, err := a.Store.BulkCounts(ctx, jobID)
	if err != nil {
		return err
	}
	d := mail.BulkSummaryData{OwnerName: job.Member.UserName, Title: job.TemplateID, JobID: job.ID, Total: job.Total,
		Done: counts.Created + counts.Sent, Failed: counts.Failed, Sent: job.Distribute}
	lang := envelope.LanguageEnglish
	if tpl, err := a.Store.GetEnvelope(ctx, persistence.ScopeOf(job.Member), job.TemplateID); err == nil {
		d.Title, lang = tpl.Title, tpl.Meta.Language
	}
	if d.Failed > 0 {
		if d.Errors, err = a.bulkErrors(ctx, jobID); err != nil {
			return err
		}
	}
	composed, err := mail.ComposeBulkSummary(lang, d)
	if err != nil {
		return err
	}
	host := messageHost(a.MailHost)
	msg := mail.Message{ID: fmt.Sprintf("bulk-summary.%s@%s", job.ID, host), To: job.Member.UserEmail, ToName: job.Member.UserName, Composed: composed}
	return a.sendOnce(ctx, msg, job.ID, "BULK_SEND_SUMMARY")
}

// bulkErrors are the first failed rows of job jobID.
func (a *Activities) bulkErrors(ctx context.Context, jobID string) ([]mail.BulkRowError, error) {
	var out []mail.BulkRowError
	for offset := 0; len(out) < bulkSummaryErrors; offset += 200 {
		rows, err := a.Store.BulkRows(ctx, jobID, offset, 200)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if r.Status == envelope.BulkRowFailed && r.Error != nil && len(out) < bulkSummaryErrors {
				out = append(out, mail.BulkRowError{Row: r.Index + 1, Reason: *r.Error})
			}
		}
		if len(rows) < 200 {
			break
		}
	}
	return out, nil
}

// sendOnce sends msg once, under the mail log's claim (claim) as SendNotice sends, for a mail
// about no envelope (subject names what it is about, in the log's envelope column).
func (a *Activities) sendOnce(ctx context.Context, msg mail.Message, subject, kind string) error {
	owner, send, err := a.claim(ctx, persistence.MailClaim{MessageID: msg.ID, EnvelopeID: subject, Kind: kind, To: msg.To}, nil)
	if err != nil || !send {
		return err
	}
	if err := a.Mail.Send(ctx, msg, func() error { return a.Store.MailTransmitting(ctx, msg.ID, owner) }); err != nil {
		if ref, ok := mail.Refused(err); ok && ref.Permanent() {
			// Not retried: the activity ends here, so no attempt sends it again.
			a.Log.WarnContext(ctx, "mail refused by the relay; not sent again", "message_id", msg.ID, "answer", ref.Answer)
			return nil
		}
		if mail.Undelivered(err) {
			// Given back even when ctx has ended (the send failed for that): its next attempt
			// then need not wait for the claim to lapse.
			return fmt.Errorf("%w (given back: %v)", err, a.Store.MailNotTransmitted(context.WithoutCancel(ctx), msg.ID, owner))
		}
		return err
	}
	return a.Store.MailSent(ctx, msg.ID, nil, "")
}
