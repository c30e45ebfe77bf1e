package envelope

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Bulk send: one document made from a template for each row of a job, and sent when asked.

const (
	// MaxBulkRows is the most rows one bulk send takes (DocuSign's limit per request).
	MaxBulkRows = 1000
	// MaxBulkCSVBytes is the largest CSV file a bulk send takes.
	MaxBulkCSVBytes = 4 << 20
	// MaxBulkError is the longest error kept on a failed row.
	MaxBulkError = 1000
)

// BulkRowStatus is where one row of a bulk send got to.
type BulkRowStatus string

// Row statuses. A row is PENDING until its document exists (CREATED), then SENT once its
// workflow took it (when the job distributes), or FAILED with the reason no retry would help.
const (
	BulkRowPending BulkRowStatus = "PENDING"
	BulkRowCreated BulkRowStatus = "CREATED"
	BulkRowSent    BulkRowStatus = "SENT"
	BulkRowFailed  BulkRowStatus = "FAILED"
)

// BulkJobStatus is where a bulk send got to: PROCESSING until every row is done, then COMPLETED.
type BulkJobStatus string

// Job statuses.
const (
	BulkJobProcessing BulkJobStatus = "PROCESSING"
	BulkJobCompleted  BulkJobStatus = "COMPLETED"
)

// BulkRecipient is what a row sets on one template recipient (by its id); an empty email or
// name keeps the template's, as Documenso's CSV upload does.
type BulkRecipient struct {
	ID    int64  `json:"id"`
	Email string `json:"email"`
	Name  string `json:"name"`
}

// BulkRow is one document of a bulk send: its recipients, prefilled fields and external id.
type BulkRow struct {
	Recipients    []BulkRecipient `json:"recipients"`
	PrefillFields []Prefill       `json:"prefillFields,omitempty"`
	ExternalID    *string         `json:"externalId,omitempty"`
}

// BulkRowRef names one row of a bulk send: its job and its index (0-based).
type BulkRowRef struct {
	JobID string
	Index int
}

// MaySeeBulkJob decides whether member m may read a bulk send that maker made, whose documents
// take visibility (the template's when the job was made): whoever may see those documents
// (MaySee, maker their owner), as the job shows them, its template and its rows' addresses. A
// job made before its visibility was kept (nil) is its maker's, and readable by whoever may see
// its template now (templateSeen: found under m's scope). Anyone else gets the 404 of no job.
func MaySeeBulkJob(m, maker Member, visibility *Visibility, templateSeen bool) bool {
	if visibility != nil {
		return MaySee(m, Owned{TeamID: maker.TeamID, OwnerID: maker.UserID, Visibility: *visibility})
	}
	return m.TeamID == maker.TeamID && (m.UserID == maker.UserID || templateSeen)
}

// CheckBulkRowCount records a problem at path when a bulk send has no rows or more than
// MaxBulkRows.
func CheckBulkRowCount(p *Problems, path string, n int) {
	switch {
	case n == 0:
		p.Add(path, "must hold at least one row")
	case n > MaxBulkRows:
		p.Add(path, "holds %d rows; a bulk send takes at most %d (send the rest in another)", n, MaxBulkRows)
	}
}

// CheckBulkRowShape records, under path (the row's), what makes a row malformed for template
// recipients tpl and fields: a recipient id or prefill field id not in the template, or a
// recipient named twice. Such a request is refused whole; a row that is only bad (an invalid
// email, a value a field refuses: BulkRowProblem) is taken and recorded FAILED.
func CheckBulkRowShape(p *Problems, path string, row BulkRow, tpl []Recipient, fields []Field) {
	seen := map[int64]bool{}
	for j, r := range row.Recipients {
		at := Join(Join(path, "recipients"), j)
		switch {
		case !hasRecipient(tpl, r.ID):
			p.Add(Join(at, "id"), "recipient %d is not in the template", r.ID)
		case seen[r.ID]:
			p.Add(Join(at, "id"), "recipient %d appears twice", r.ID)
		}
		seen[r.ID] = true
	}
	for j, f := range row.PrefillFields {
		at := Join(Join(Join(path, "prefillFields"), j), "id")
		if f.ID == nil {
			p.Add(at, "is required: the template field's id")
		} else if !hasField(fields, *f.ID) {
			p.Add(at, "field %d is not in the template", *f.ID)
		}
	}
	if row.ExternalID != nil {
		CheckLength(p, Join(path, "externalId"), *row.ExternalID, 0, MaxExternalID)
	}
}

// BulkRowProblem is why a well-formed row cannot become a document, or "" when it can: each
// template recipient's email (the row's, else the template's) must be an address, or empty
// for a recipient sent by link (CC and those the template leaves without one), and each name
// at most MaxRecipientName characters. Values the template's fields refuse are found when the
// document is made.
func BulkRowProblem(row BulkRow, tpl []Recipient) string {
	for i, tr := range tpl {
		email, name := tr.Email, tr.Name
		if r, ok := BulkRecipientOf(row, tr.ID); ok {
			if r.Email != "" {
				email = r.Email
			}
			if r.Name != "" {
				name = r.Name
			}
		}
		if email != "" && !ValidEmail(email) {
			return fmt.Sprintf("recipient %d (%s): %q is not an email address", i+1, BulkEmailColumn(i), email)
		}
		if len([]rune(name)) > MaxRecipientName {
			return fmt.Sprintf("recipient %d (%s): the name is longer than %d characters", i+1, BulkNameColumn(i), MaxRecipientName)
		}
	}
	return ""
}

// BulkRecipientOf is what row sets on template recipient id, if anything.
func BulkRecipientOf(row BulkRow, id int64) (BulkRecipient, bool) {
	for _, r := range row.Recipients {
		if r.ID == id {
			return r, true
		}
	}
	return BulkRecipient{}, false
}

// BulkError cuts a row's error to MaxBulkError characters.
func BulkError(msg string) string {
	if r := []rune(msg); len(r) > MaxBulkError {
		return string(r[:MaxBulkError-1]) + "…"
	}
	return msg
}

// BulkEmailColumn is the CSV column of the email of the i-th (0-based) template recipient:
// recipient_{i+1}_email, as Documenso's CSV template names it.
func BulkEmailColumn(i int) string { return fmt.Sprintf("recipient_%d_email", i+1) }

// BulkNameColumn is the CSV column of the name of the i-th (0-based) template recipient.
func BulkNameColumn(i int) string { return fmt.Sprintf("recipient_%d_name", i+1) }

// BulkFieldColumn is the CSV column that prefills the template field id: field_{id}.
func BulkFieldColumn(id int64) string { return fmt.Sprintf("field_%d", id) }

// bulkPrefillTypes are the field types a CSV cell may prefill, with the prefill type it gives.
var bulkPrefillTypes = map[FieldType]string{
	FieldText: "text", FieldNumber: "number", FieldDate: "date", FieldDropdown: "dropdown", FieldRadio: "radio",
}

// bulkPrefill is the prefill of field f with the text of a CSV cell.
func bulkPrefill(f Field, cell string) Prefill {
	id, typ := f.ID, bulkPrefillTypes[f.Type]
	value, _ := json.Marshal(cell) // a string always encodes
	return Prefill{ID: &id, Type: &typ, Value: value}
}

// bulkFieldByColumn is the template field a CSV column prefills: field_{id}, or the label of
// exactly one field; ok is false when the column names none.
func bulkFieldByColumn(fields []Field, column string) (Field, bool) {
	for _, f := range fields {
		if BulkFieldColumn(f.ID) == column {
			return f, true
		}
	}
	var found []Field
	for _, f := range fields {
		if f.FieldMeta != nil && f.FieldMeta.Label != nil && strings.TrimSpace(*f.FieldMeta.Label) == column {
			found = append(found, f)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return Field{}, false
}

func hasRecipient(rs []Recipient, id int64) bool {
	for _, r := range rs {
		if r.ID == id {
			return true
		}
	}
	return false
}

func hasField(fs []Field, id int64) bool {
	for _, f := range fs {
		if f.ID == id {
			return true
		}
	}
	return false
}

// BulkRowAttempts is how many attempts a row gets against failures that are not its own (the
// database, Temporal away): about 25 minutes with the row's backoff (1 s doubling to 1 min).
const BulkRowAttempts = 30

// BulkRowFinal reports whether err, met by a row's attempt-th attempt (from 1), ends the row
// FAILED rather than being tried again: a domain error (bad input, the mail quota, a template
// that changed or is gone) other than SERVICE_UNAVAILABLE and INTERNAL, which a later attempt
// may pass; and any error once the row has had BulkRowAttempts, so that no row, and no job,
// waits for ever on a failure that does not pass.
func BulkRowFinal(err error, attempt int32) bool {
	if attempt >= BulkRowAttempts {
		return true
	}
	var de *Error
	return errors.As(err, &de) && de.Code != CodeUnavailable && de.Code != CodeInternal
}
