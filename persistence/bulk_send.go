// Bulk sends: a job and its rows, stored together; each row's document id decided with it.

package persistence

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// NewBulkJob is a bulk send as the API takes it: who asks, the template, whether each document
// is sent, and the rows.
type NewBulkJob struct {
	Member     envelope.Member
	Actor      envelope.Actor
	TemplateID string
	Distribute bool
	Rows       []envelope.BulkRow
}

// BulkJob is a stored bulk send.
type BulkJob struct {
	ID          string
	TeamID      int64
	TemplateID  string
	Distribute  bool
	Member      envelope.Member
	Actor       envelope.Actor
	Total       int
	Status      envelope.BulkJobStatus
	CreatedAt   time.Time
	CompletedAt *time.Time
	// Visibility is the template's when the job was made, which its documents take; nil for a
	// job made before it was kept.
	Visibility *envelope.Visibility
}

// BulkRowRecord is one stored row: its input, the id its document has (or will have), where it
// got to and, when FAILED, why.
type BulkRowRecord struct {
	Index      int
	Input      envelope.BulkRow
	EnvelopeID string
	Status     envelope.BulkRowStatus
	Error      *string
	Made       bool // the document exists
}

// BulkCounts are how many rows of a job are in each state.
type BulkCounts struct {
	Pending, Created, Sent, Failed int
}

// NewBulkJobID returns "bulk_" and 16 random letters.
func NewBulkJobID() string { return "bulk_" + randomString(idAlphabet, 16) }

// CreateBulkJob stores the job and all its rows PENDING in one transaction, each row with the
// id its document will get, and returns the job's id.
func (s *Store) CreateBulkJob(ctx context.Context, j NewBulkJob) (string, error) {
	id := NewBulkJobID()
	member, err := json.Marshal(j.Member)
	if err != nil {
		return "", fmt.Errorf("encode bulk job member: %w", err)
	}
	actor, err := json.Marshal(j.Actor)
	if err != nil {
		return "", fmt.Errorf("encode bulk job actor: %w", err)
	}
	indexes := make([]int32, len(j.Rows))
	inputs := make([]string, len(j.Rows))
	envelopeIDs := make([]string, len(j.Rows))
	for i, r := range j.Rows {
		in, err := json.Marshal(r)
		if err != nil {
			return "", fmt.Errorf("encode bulk row %d: %w", i, err)
		}
		indexes[i], inputs[i], envelopeIDs[i] = int32(i), string(in), NewEnvelopeID()
	}
	err = s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.q.Exec(ctx, `INSERT INTO bulk_send_jobs (id, team_id, user_id, template_id, distribute, member, actor, total, visibility)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, (SELECT visibility FROM envelopes WHERE id = $4))`,
			id, j.Member.TeamID, j.Member.UserID, j.TemplateID, j.Distribute, member, actor, len(j.Rows)); err != nil {
			return fmt.Errorf("insert bulk job: %w", err)
		}
		if _, err := tx.q.Exec(ctx, `INSERT INTO bulk_send_rows (job_id, row_index, input, envelope_id)
			SELECT $1, i, in_::jsonb, e FROM unnest($2::int[], $3::text[], $4::text[]) AS t(i, in_, e)`, id, indexes, inputs, envelopeIDs); err != nil {
			return fmt.Errorf("insert bulk rows: %w", err)
		}
		return nil
	})
	return id, err
}

const bulkJobColumns = `id, team_id, template_id, distribute, member, actor, total, status, created_at, completed_at, visibility`

func scanBulkJob(row pgx.Row) (BulkJob, error) {
	var j BulkJob
	var member, actor []byte
	if err := row.Scan(&j.ID, &j.TeamID, &j.TemplateID, &j.Distribute, &member, &actor, &j.Total, &j.Status, &j.CreatedAt, &j.CompletedAt, &j.Visibility); err != nil {
		return j, err
	}
	if err := json.Unmarshal(member, &j.Member); err != nil {
		return j, fmt.Errorf("decode bulk job member: %w", err)
	}
	if err := json.Unmarshal(actor, &j.Actor); err != nil {
		return j, fmt.Errorf("decode bulk job actor: %w", err)
	}
	return j, nil
}

// TeamBulkJob returns team teamID's job id; another team's is NOT_FOUND.
func (s *Store) TeamBulkJob(ctx context.Context, teamID int64, id string) (BulkJob, error) {
	j, err := scanBulkJob(s.pool.QueryRow(ctx, `SELECT `+bulkJobColumns+` FROM bulk_send_jobs WHERE id = $1 AND team_id = $2`, id, teamID))
	if err != nil {
		return j, notFound(err, "Bulk send")
	}
	return j, nil
}

// BulkJob returns the job id, whoever's it is (for the workflow's activities).
func (s *Store) BulkJob(ctx context.Context, id string) (BulkJob, error) {
	j, err := scanBulkJob(s.pool.QueryRow(ctx, `SELECT `+bulkJobColumns+` FROM bulk_send_jobs WHERE id = $1`, id))
	if err != nil {
		return j, notFound(err, "Bulk send")
	}
	return j, nil
}

const bulkRowColumns = `row_index, input, envelope_id, status, error, EXISTS (SELECT 1 FROM envelopes e WHERE e.id = envelope_id)`

func scanBulkRow(row pgx.Row) (BulkRowRecord, error) {
	var r BulkRowRecord
	var in []byte
	if err := row.Scan(&r.Index, &in, &r.EnvelopeID, &r.Status, &r.Error, &r.Made); err != nil {
		return r, err
	}
	return r, json.Unmarshal(in, &r.Input)
}

// BulkRow returns row index of job jobID.
func (s *Store) BulkRow(ctx context.Context, jobID string, index int) (BulkRowRecord, error) {
	r, err := scanBulkRow(s.pool.QueryRow(ctx, `SELECT `+bulkRowColumns+` FROM bulk_send_rows WHERE job_id = $1 AND row_index = $2`, jobID, index))
	if err != nil {
		return r, notFound(err, "Bulk send row")
	}
	return r, nil
}

// BulkRows returns up to limit rows of job jobID from offset, in order.
func (s *Store) BulkRows(ctx context.Context, jobID string, offset, limit int) ([]BulkRowRecord, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+bulkRowColumns+` FROM bulk_send_rows WHERE job_id = $1
		ORDER BY row_index OFFSET $2 LIMIT $3`, jobID, offset, limit)
	if err != nil {
		return nil, fmt.Errorf("list rows of bulk job %s: %w", jobID, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (BulkRowRecord, error) { return scanBulkRow(row) })
}

// BulkCounts counts job jobID's rows by status.
func (s *Store) BulkCounts(ctx context.Context, jobID string) (BulkCounts, error) {
	var c BulkCounts
	err := s.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'PENDING'), count(*) FILTER (WHERE status = 'CREATED'),
		count(*) FILTER (WHERE status = 'SENT'), count(*) FILTER (WHERE status = 'FAILED') FROM bulk_send_rows WHERE job_id = $1`,
		jobID).Scan(&c.Pending, &c.Created, &c.Sent, &c.Failed)
	if err != nil {
		return c, fmt.Errorf("count rows of bulk job %s: %w", jobID, err)
	}
	return c, nil
}

// MarkBulkRow moves row index of job jobID to status, with errMsg when FAILED (cut by
// envelope.BulkError). A row SENT or FAILED stays as it is: a repeated attempt never undoes
// what an earlier one recorded.
func (s *Store) MarkBulkRow(ctx context.Context, jobID string, index int, status envelope.BulkRowStatus, errMsg string) error {
	var e *string
	if status == envelope.BulkRowFailed {
		msg := envelope.BulkError(errMsg)
		e = &msg
	}
	_, err := s.pool.Exec(ctx, `UPDATE bulk_send_rows SET status = $3, error = $4, updated_at = now()
		WHERE job_id = $1 AND row_index = $2 AND status NOT IN ('SENT', 'FAILED')`, jobID, index, status, e)
	if err != nil {
		return fmt.Errorf("mark row %d of bulk job %s %s: %w", index, jobID, status, err)
	}
	return nil
}

// CompleteBulkJob records job jobID COMPLETED (once: a second call keeps the first time).
func (s *Store) CompleteBulkJob(ctx context.Context, jobID string) error {
	_, err := s.pool.Exec(ctx, `UPDATE bulk_send_jobs SET status = 'COMPLETED', completed_at = coalesce(completed_at, now()) WHERE id = $1`, jobID)
	if err != nil {
		return fmt.Errorf("complete bulk job %s: %w", jobID, err)
	}
	return nil
}

// EnvelopeExists reports whether an envelope with id exists (a bulk row's document made by an
// earlier attempt).
func (s *Store) EnvelopeExists(ctx context.Context, id string) (bool, error) {
	var ok bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM envelopes WHERE id = $1)`, id).Scan(&ok); err != nil {
		return false, fmt.Errorf("look for envelope %s: %w", id, err)
	}
	return ok, nil
}
