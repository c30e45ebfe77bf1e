package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// bulkSendRoutes are the bulk send's: a job made from a template and a list of rows, and its
// progress.
func (s *Server) bulkSendRoutes(r chi.Router) {
	r.Post("/template/bulk-send", s.bulkSend)
	r.Get("/template/bulk-send/{jobId}", s.getBulkSend)
}

// bulkSendInput is the JSON body of POST /template/bulk-send. templateId is the template's
// envelope id (envelope_…) or its number (Documenso's templateId).
type bulkSendInput struct {
	TemplateID         json.RawMessage    `json:"templateId"`
	Rows               []envelope.BulkRow `json:"rows"`
	DistributeDocument bool               `json:"distributeDocument"`
}

// bulkSend answers POST /template/bulk-send: JSON {templateId, rows, distributeDocument}, or
// multipart/form-data with templateId, distributeDocument and a CSV file (envelope.ParseBulkCSV).
// The caller must be allowed to use the template (as POST /envelope/use). The job and its rows
// are stored in one transaction, its workflow started (startBulkSend), and the answer is 200
// with the job's id at once (200, as every Documenso v2 answer, though the work goes on);
// GET /template/bulk-send/{jobId} shows its progress. A malformed request is a 400 naming the
// row and the column; a row that is only bad is taken and recorded FAILED.
func (s *Server) bulkSend(w http.ResponseWriter, r *http.Request) {
	in, csvFile, err := readBulkSend(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var p envelope.Problems
	tpl, err := s.bulkTemplate(r, &p, in.TemplateID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if csvFile != nil {
		in.Rows = envelope.ParseBulkCSV(&p, "file", bytes.NewReader(csvFile), tpl.Recipients, tpl.Fields)
	} else {
		envelope.CheckBulkRowCount(&p, "rows", len(in.Rows))
		for i, row := range in.Rows {
			envelope.CheckBulkRowShape(&p, envelope.Join("rows", i), row, tpl.Recipients, tpl.Fields)
		}
	}
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	m := member(r)
	id, err := s.store.CreateBulkJob(r.Context(), persistence.NewBulkJob{Member: m, Actor: s.actor(r), TemplateID: tpl.ID,
		Distribute: in.DistributeDocument, Rows: in.Rows})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// The job is stored: the caller gets its id even when its workflow could not start now
	// (answering an error would have it sent twice); reading its progress starts it.
	s.startBulkSend(r, id, m.TeamID, len(in.Rows))
	writeJSON(w, http.StatusOK, map[string]any{"jobId": id, "id": id, "templateId": tpl.ID,
		"status": envelope.BulkJobProcessing, "total": len(in.Rows)})
}

// readBulkSend reads the body: JSON, or multipart with a CSV file (at most
// envelope.MaxBulkCSVBytes) returned beside the input.
func readBulkSend(r *http.Request) (bulkSendInput, []byte, error) {
	var in bulkSendInput
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mediaType != "multipart/form-data" {
		if err := checkJSONMedia(r, "application/json or multipart/form-data"); err != nil {
			return in, nil, err
		}
		return in, nil, decodeJSONFrom(r.Body, &in)
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return in, nil, envelope.Errorf(envelope.CodeInvalidBody, "Malformed multipart body: %v", err)
	}
	var file []byte
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return in, nil, multipartError(err)
		}
		data, err := io.ReadAll(io.LimitReader(part, envelope.MaxBulkCSVBytes+1))
		name := part.FormName()
		part.Close()
		if err != nil {
			return in, nil, multipartError(err)
		}
		switch name {
		case "file", "csv":
			if len(data) > envelope.MaxBulkCSVBytes {
				return in, nil, envelope.Invalid("file", "is larger than %d MB", envelope.MaxBulkCSVBytes>>20)
			}
			file = data
		case "templateId":
			in.TemplateID = bulkTemplateIDValue(string(data))
		case "distributeDocument":
			v := strings.TrimSpace(string(data))
			if v != "true" && v != "false" {
				return in, nil, envelope.Invalid("distributeDocument", `must be "true" or "false", got %q`, v)
			}
			in.DistributeDocument = v == "true"
		}
	}
	if file == nil {
		return in, nil, envelope.Invalid("file", "is required: a CSV file with a column %s for each template recipient", envelope.BulkEmailColumn(0))
	}
	return in, file, nil
}

// bulkTemplateIDValue is a form's templateId as JSON: a number when it is one, else a string.
func bulkTemplateIDValue(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return json.RawMessage(s)
	}
	v, _ := json.Marshal(s) // a string always encodes
	return v
}

// multipartError is a body that could not be read: too large (413) or malformed.
func multipartError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return err
	}
	return envelope.Errorf(envelope.CodeInvalidBody, "Malformed multipart body: %v", err)
}

// bulkTemplate is the TEMPLATE templateId names (an envelope id or a template number) that the
// caller may see, as POST /envelope/use finds it.
func (s *Server) bulkTemplate(r *http.Request, p *envelope.Problems, raw json.RawMessage) (*envelope.Envelope, error) {
	var id string
	var number int64
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, envelope.Invalid("templateId", "is required: the template's envelope id or number")
	case json.Unmarshal(raw, &number) == nil:
		found, err := s.store.GetEnvelopesByLegacyIDs(r.Context(), scope(r), envelope.TypeTemplate, []int64{number})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, envelope.NotFound("Template")
		}
		return found[0], nil
	case json.Unmarshal(raw, &id) == nil:
		checkEnvelopeID(p, "templateId", id)
		if err := p.Err(); err != nil {
			return nil, err
		}
	default:
		return nil, envelope.Invalid("templateId", "must be the template's envelope id or number")
	}
	tpl, err := s.store.GetEnvelope(r.Context(), scope(r), id)
	if err != nil {
		return nil, err
	}
	if tpl.Type != envelope.TypeTemplate {
		return nil, envelope.Errorf(envelope.CodeInvalidRequest, "Envelope %s is a %s, not a TEMPLATE", tpl.ID, tpl.Type)
	}
	return tpl, nil
}

// startBulkSend starts job id's workflow unless it runs or ran (workflows.Client.StartBulkSend);
// a failure is logged, and the next read of the job's progress tries again.
func (s *Server) startBulkSend(r *http.Request, id string, teamID int64, total int) {
	if err := s.flows.StartBulkSend(r.Context(), id, teamID, total); err != nil {
		s.log.WarnContext(r.Context(), "bulk send not started; the next read of its progress starts it", "job", id, "err", err)
	}
}

// bulkRowView is one row as GET /template/bulk-send/{jobId} shows it: its number (1-based, as
// in the CSV), status, document (once made) and error.
type bulkRowView struct {
	Row        int                    `json:"row"`
	Status     envelope.BulkRowStatus `json:"status"`
	EnvelopeID *string                `json:"envelopeId"`
	Error      *string                `json:"error"`
}

// getBulkSend answers GET /template/bulk-send/{jobId}?page=&perPage=: the job's counts and a
// page of its rows (perPage at most 1000, 100 by default). Another team's job is 404.
func (s *Server) getBulkSend(w http.ResponseWriter, r *http.Request) {
	var p envelope.Problems
	q := query{values: r.URL.Query(), problems: &p}
	page, perPage := q.int("page", 1, 1, envelope.MaxBulkRows), q.int("perPage", 100, 1, envelope.MaxBulkRows)
	if err := p.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	job, err := s.store.TeamBulkJob(r.Context(), member(r).TeamID, chi.URLParam(r, "jobId"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	templateSeen := false
	if job.Visibility == nil {
		_, err = s.store.EnvelopeRef(r.Context(), scope(r), job.TemplateID)
		if err != nil && !envelope.IsNotFound(err) {
			s.writeError(w, r, err)
			return
		}
		templateSeen = err == nil
	}
	if !envelope.MaySeeBulkJob(member(r), job.Member, job.Visibility, templateSeen) {
		s.writeError(w, r, envelope.NotFound("Bulk send"))
		return
	}
	if job.Status == envelope.BulkJobProcessing {
		s.startBulkSend(r, job.ID, job.TeamID, job.Total)
	}
	counts, err := s.store.BulkCounts(r.Context(), job.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rows, err := s.store.BulkRows(r.Context(), job.ID, (page-1)*perPage, perPage)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	views := make([]bulkRowView, 0, len(rows))
	for _, row := range rows {
		v := bulkRowView{Row: row.Index + 1, Status: row.Status, Error: row.Error}
		if row.Made {
			v.EnvelopeID = &row.EnvelopeID
		}
		views = append(views, v)
	}
	var completed *string
	if job.CompletedAt != nil {
		at := job.CompletedAt.UTC().Format(time.RFC3339Nano)
		completed = &at
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": job.ID, "templateId": job.TemplateID, "status": job.Status,
		"distributeDocument": job.Distribute, "total": job.Total, "pending": counts.Pending,
		"created": counts.Created + counts.Sent, "sent": counts.Sent, "failed": counts.Failed,
		"createdAt": job.CreatedAt.UTC().Format(time.RFC3339Nano), "completedAt": completed,
		"rows": views, "page": page, "perPage": perPage})
}
