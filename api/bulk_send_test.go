package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/workflows"
)

// newBulkTestAPI is newTestAPIWithWorkflows, and its worker's activities.
func newBulkTestAPI(tb testing.TB) (*testAPI, *activities.Activities) {
	a := newTestAPIWithWorkflows(tb)
	return a, a.acts
}

// bulkTemplate makes a TEMPLATE with one signer (a signature and a text field labelled
// Company) and returns its id.
func (a *testAPI) bulkTemplate(key string) string {
	a.t.Helper()
	payload := map[string]any{"title": "Contrato masivo", "type": "TEMPLATE", "recipients": []any{map[string]any{
		"email": "placeholder@bulk.test", "name": "Firmante", "role": "SIGNER", "fields": []any{
			map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 10, "height": 5},
			map[string]any{"type": "TEXT", "page": 1, "positionX": 10, "positionY": 30, "width": 10, "height": 5,
				"fieldMeta": map[string]any{"type": "text", "label": "Company"}},
		}}}}
	status, body := a.createRaw(key, payload, map[string][]byte{"a.pdf": minimalPDF("bulk")})
	if status != 200 {
		a.t.Fatalf("template: %d %v", status, body)
	}
	return body["id"].(string)
}

// bulkCSV posts a CSV bulk send.
func (a *testAPI) bulkCSV(key, templateID, csv string, distribute bool) (int, map[string]any) {
	a.t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.WriteField("templateId", templateID)
	w.WriteField("distributeDocument", fmt.Sprint(distribute))
	fw, _ := w.CreateFormFile("file", "rows.csv")
	io.WriteString(fw, csv)
	w.Close()
	return a.postMultipart("/api/v2/template/bulk-send", key, &b, w.FormDataContentType())
}

// waitBulk polls the job until it is COMPLETED and returns its last read.
func (a *testAPI) waitBulk(key, jobID string) map[string]any {
	a.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		status, body := a.do("GET", "/api/v2/template/bulk-send/"+jobID+"?perPage=1000", key, "")
		if status != 200 {
			a.t.Fatalf("progress: %d %v", status, body)
		}
		if body["status"] == string(envelope.BulkJobCompleted) {
			return body
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("job not completed: %v", body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A CSV with bad rows among good ones: every good row becomes one PENDING document with the
// row's recipient and prefill, each bad one is FAILED with its reason, the progress says so,
// another team sees no job, and the owner gets one summary mail.
func TestBulkSendCSV(t *testing.T) {
	a, _ := newBulkTestAPI(t)
	key := a.key("Bulk", "owner@bulk.test", envelope.TeamRoleAdmin)
	tpl := a.bulkTemplate(key)
	csv := "recipient_1_email,recipient_1_name,Company\n" +
		"uno@bulk.test,Uno,Acme\n" +
		"not-an-email,Mala,\n" +
		"dos@bulk.test,,\n" +
		"tres@,Mala,\n" +
		"cuatro@bulk.test,Cuatro,\n" +
		"x@bulk.test," + strings.Repeat("n", 256) + ",\n"
	status, body := a.bulkCSV(key, tpl, csv, true)
	if status != http.StatusOK || body["jobId"] == nil {
		t.Fatalf("bulk send: %d %v", status, body)
	}
	jobID := body["jobId"].(string)
	got := a.waitBulk(key, jobID)
	if got["total"] != 6.0 || got["sent"] != 3.0 || got["created"] != 3.0 || got["failed"] != 3.0 || got["pending"] != 0.0 {
		t.Fatalf("progress: %v", got)
	}
	rows := got["rows"].([]any)
	for i, want := range []string{"SENT", "FAILED", "SENT", "FAILED", "SENT", "FAILED"} {
		row := rows[i].(map[string]any)
		if row["status"] != want || row["row"] != float64(i+1) {
			t.Errorf("row %d: %v, want %s", i+1, row, want)
		}
		if want == "FAILED" && (row["error"] == nil || row["envelopeId"] != nil) {
			t.Errorf("row %d: a failed row names its error and no document: %v", i+1, row)
		}
	}
	if e := rows[1].(map[string]any)["error"].(string); !strings.Contains(e, `"not-an-email" is not an email address`) {
		t.Errorf("row 2's error: %q", e)
	}
	first := rows[0].(map[string]any)["envelopeId"].(string)
	status, env := a.do("GET", "/api/v2/envelope/"+first, key, "")
	if status != 200 || env["status"] != "PENDING" || env["source"] != "TEMPLATE" {
		t.Fatalf("row 1's document: %d %v", status, env)
	}
	r0 := env["recipients"].([]any)[0].(map[string]any)
	if r0["email"] != "uno@bulk.test" || r0["name"] != "Uno" {
		t.Errorf("row 1's recipient: %v", r0)
	}
	var text string
	for _, f := range r0["fields"].([]any) {
		if m := f.(map[string]any); m["type"] == "TEXT" {
			text, _ = m["fieldMeta"].(map[string]any)["text"].(string)
		}
	}
	if text != "Acme" {
		t.Errorf("row 1's Company field: %q, want Acme", text)
	}
	// The job's workflow is findable in the Temporal Web UI by its id and TeamId.
	desc, err := temporaltest.Client(t, nil).DescribeWorkflow(context.Background(), workflows.BulkSendWorkflowID(jobID), "")
	if err != nil {
		t.Fatal(err)
	}
	if team, _ := desc.TypedSearchAttributes.GetKeyword(workflows.AttrTeamID); team == "" {
		t.Errorf("workflow %s has no TeamId", workflows.BulkSendWorkflowID(jobID))
	}
	other := a.key("Other", "other@bulk.test", envelope.TeamRoleAdmin)
	if status, body := a.do("GET", "/api/v2/template/bulk-send/"+jobID, other, ""); status != 404 {
		t.Errorf("another team's read: %d %v", status, body)
	}
	if summaries := a.count(`SELECT count(*) FROM mail_log WHERE envelope_id = $1 AND kind = 'BULK_SEND_SUMMARY' AND state = 'sent'`, jobID); summaries != 1 {
		t.Errorf("%d summary mails, want 1", summaries)
	}
}

// A row's document is made once: the row's activity run again after the job ended, or after a
// worker died between making the document and recording it (the row still PENDING), finds
// the document and makes no second one; the summary is not mailed again.
func TestBulkSendRowIsMadeOnce(t *testing.T) {
	a, acts := newBulkTestAPI(t)
	key := a.key("Bulk", "owner@bulk.test", envelope.TeamRoleAdmin)
	tpl := a.bulkTemplate(key)
	body := fmt.Sprintf(`{"templateId": %q, "distributeDocument": true, "rows": [
		{"recipients": [{"id": %d, "email": "a@bulk.test", "name": "A"}], "externalId": "ext-1"},
		{"recipients": [{"id": %[2]d, "email": "b@bulk.test"}]}]}`, tpl, a.templateRecipient(key, tpl))
	status, out := a.do("POST", "/api/v2/template/bulk-send", key, body)
	if status != http.StatusOK {
		t.Fatalf("bulk send: %d %v", status, out)
	}
	jobID := out["jobId"].(string)
	a.waitBulk(key, jobID)
	ctx := context.Background()
	documents := func() int { return a.count(`SELECT count(*) FROM envelopes WHERE type = 'DOCUMENT'`) }
	if n := documents(); n != 2 {
		t.Fatalf("%d documents, want 2", n)
	}
	a.exec(`UPDATE bulk_send_rows SET status = 'PENDING' WHERE job_id = $1`, jobID)
	for i := range 2 {
		for range 2 {
			st, err := acts.BulkSendRow(ctx, envelope.BulkRowRef{JobID: jobID, Index: i})
			if err != nil || st != envelope.BulkRowSent {
				t.Fatalf("row %d again: %s %v", i, st, err)
			}
		}
	}
	if err := acts.FinishBulkSend(ctx, jobID); err != nil {
		t.Fatal(err)
	}
	if n := documents(); n != 2 {
		t.Errorf("%d documents after the rows ran again, want 2", n)
	}
	if mails := a.count(`SELECT count(*) FROM mail_log WHERE envelope_id = $1`, jobID); mails != 1 {
		t.Errorf("%d summary mails, want 1", mails)
	}
	if n := a.count(`SELECT count(*) FROM envelopes e JOIN bulk_send_rows r ON r.envelope_id = e.id
		WHERE r.job_id = $1 AND r.row_index = 0 AND e.external_id = 'ext-1'`, jobID); n != 1 {
		t.Errorf("row 1's document does not carry its externalId")
	}
}

// templateRecipient is the id of the template's first recipient.
func (a *testAPI) templateRecipient(key, tpl string) int64 {
	a.t.Helper()
	status, body := a.do("GET", "/api/v2/envelope/"+tpl, key, "")
	if status != 200 {
		a.t.Fatalf("template: %d %v", status, body)
	}
	return int64(body["recipients"].([]any)[0].(map[string]any)["id"].(float64))
}

// Malformed requests are refused whole, naming the row and the column; nothing is stored.
func TestBulkSendMalformed(t *testing.T) {
	a, _ := newBulkTestAPI(t)
	key := a.key("Bulk", "owner@bulk.test", envelope.TeamRoleAdmin)
	tpl := a.bulkTemplate(key)
	for _, tt := range []struct {
		name, csv, want string
	}{
		{"missing email column", "recipient_1_name\nAna\n", `column "recipient_1_email" is missing`},
		{"unknown column", "recipient_1_email,phone\na@x.cl,1\n", `column "phone" is neither`},
		{"short row", "recipient_1_email,recipient_1_name\na@x.cl,Ana\nb@x.cl\n", "row 2 has 1 values"},
		{"too many rows", "recipient_1_email\n" + strings.Repeat("a@x.cl\n", envelope.MaxBulkRows+1), "more than 1000 rows"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := a.bulkCSV(key, tpl, tt.csv, false)
			wantError(t, status, body, 400, envelope.CodeInvalidBody)
			if !strings.Contains(fmt.Sprint(body), tt.want) {
				t.Errorf("answer %v does not say %q", body, tt.want)
			}
		})
	}
	status, body := a.do("POST", "/api/v2/template/bulk-send", key, fmt.Sprintf(`{"templateId": %q, "rows": [{"recipients": [{"id": 999999}]}]}`, tpl))
	wantError(t, status, body, 400, envelope.CodeInvalidBody)
	if raw, _ := json.Marshal(body); !strings.Contains(string(raw), "rows[0].recipients[0].id") {
		t.Errorf("answer %s does not name rows[0].recipients[0].id", raw)
	}
	other := a.key("Other", "other@bulk.test", envelope.TeamRoleAdmin)
	status, body = a.bulkCSV(other, tpl, "recipient_1_email\na@x.cl\n", false)
	wantError(t, status, body, 404, envelope.CodeNotFound)
	if jobs := a.count(`SELECT count(*) FROM bulk_send_jobs`); jobs != 0 {
		t.Errorf("%d jobs stored, want none", jobs)
	}
}

// count runs a count query on the test's database.
func (a *testAPI) count(sql string, args ...any) int {
	a.t.Helper()
	conn, err := pgx.Connect(context.Background(), a.dbURL)
	if err != nil {
		a.t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// A job stored whose workflow never started (the API died between the two) is started by the
// first read of its progress, and completes.
func TestBulkSendStartedByItsProgress(t *testing.T) {
	a, _ := newBulkTestAPI(t)
	key := a.key("Bulk", "owner@bulk.test", envelope.TeamRoleAdmin)
	tpl := a.bulkTemplate(key)
	m, err := a.store.EnsureMember(context.Background(), "Bulk", "owner@bulk.test", "", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	id, err := a.store.CreateBulkJob(context.Background(), persistence.NewBulkJob{Member: m, Actor: envelope.MemberActor(m, "", ""),
		TemplateID: tpl, Rows: []envelope.BulkRow{{Recipients: []envelope.BulkRecipient{{ID: a.templateRecipient(key, tpl), Email: "a@bulk.test"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.waitBulk(key, id); got["created"] != 1.0 || got["sent"] != 0.0 {
		t.Errorf("progress: %v", got)
	}
}

// The mail quota applies to each row as to a distribute: once the team's mails of the last 24
// hours reach it, the next rows are FAILED with the quota's reason.
func TestBulkSendRowsPastTheMailQuota(t *testing.T) {
	a := newTestAPIWithWorkflowsConfig(t, func(c *config.Config) {
		*c = unlimited(*c)
		c.MailQuota = 1
	})
	key := a.key("Bulk", "owner@bulk.test", envelope.TeamRoleAdmin)
	tpl := a.bulkTemplate(key)
	status, out := a.bulkCSV(key, tpl, "recipient_1_email\nuno@bulk.test\n", true)
	if status != http.StatusOK {
		t.Fatalf("bulk send: %d %v", status, out)
	}
	if got := a.waitBulk(key, out["jobId"].(string)); got["sent"] != 1.0 {
		t.Fatalf("first job: %v", got)
	}
	status, out = a.bulkCSV(key, tpl, "recipient_1_email\ndos@bulk.test\ntres@bulk.test\n", true)
	if status != http.StatusOK {
		t.Fatalf("bulk send: %d %v", status, out)
	}
	got := a.waitBulk(key, out["jobId"].(string))
	if got["failed"] != 2.0 || got["created"] != 0.0 {
		t.Fatalf("second job: %v", got)
	}
	if e := got["rows"].([]any)[0].(map[string]any)["error"].(string); !strings.Contains(e, "quota") {
		t.Errorf("row 1's error: %q", e)
	}
}
