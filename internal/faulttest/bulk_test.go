package faulttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/internal/testpdf"
)

// The worker is killed with SIGKILL while a bulk send of 1,000 rows (a template with one
// signer, each document sent) is under way, and started again: the job completes with 1,000
// documents, one per row and none twice, each recipient gets exactly one signing request in the
// mail sink, and the owner one summary.
func TestWorkerKilledDuringBulkSend(t *testing.T) {
	crashTest(t)
	const rows = 1000
	s := newSystemOn(t, temporaltest.Address(t))
	s.start("api")
	s.start("worker")
	s.key = s.adminKey()
	tpl := s.bulkTemplate()
	var csv strings.Builder
	csv.WriteString("recipient_1_email,recipient_1_name\n")
	for i := range rows {
		fmt.Fprintf(&csv, "r%d@%s,Row %d\n", i, s.domain, i)
	}
	started := time.Now()
	jobID := s.bulkSend(tpl, csv.String())
	done := func() int {
		_, p := s.call("GET", "/api/v2/template/bulk-send/"+jobID+"?perPage=1", nil, true)
		sent, _ := p["sent"].(float64)
		failed, _ := p["failed"].(float64)
		return int(sent + failed)
	}
	waitFor(t, "400 rows done", 120*time.Second, func() bool { return done() >= 400 })
	s.kill("worker")
	time.Sleep(500 * time.Millisecond)
	s.start("worker")
	var progress map[string]any
	waitFor(t, "the job to complete", 240*time.Second, func() bool {
		_, progress = s.call("GET", "/api/v2/template/bulk-send/"+jobID+"?perPage=1", nil, true)
		return progress["status"] == "COMPLETED"
	})
	elapsed := time.Since(started)
	if progress["sent"] != float64(rows) || progress["failed"] != 0.0 {
		t.Errorf("progress: %v", progress)
	}
	documents, distinct := s.bulkDocuments()
	if documents != rows || distinct != rows {
		t.Errorf("%d documents for %d distinct recipients, want %d of each", documents, distinct, rows)
	}
	// A request the killed worker had claimed waits for its claim to lapse (the mail activity's
	// minute and 30 s) and for the next worker's retry after that (at most a minute apart here):
	// some 3 minutes after the kill.
	all := func() bool { return len(s.mailsTo()) >= rows+1 }
	for deadline := time.Now().Add(3 * time.Minute); !all(); time.Sleep(time.Second) {
		if time.Now().After(deadline) {
			perAddress := s.mailsTo()
			var missing []string
			for i := range rows {
				if a := fmt.Sprintf("r%d@%s", i, s.domain); perAddress[a] == 0 {
					missing = append(missing, a)
				}
			}
			if perAddress["owner@"+s.domain] == 0 {
				missing = append(missing, "owner@"+s.domain)
			}
			t.Fatalf("timed out waiting for the mails: none to %v; their mail log:\n%s", missing, s.mailLog(missing))
		}
	}
	time.Sleep(time.Second)
	perAddress := s.mailsTo()
	for i := range rows {
		if n := perAddress[fmt.Sprintf("r%d@%s", i, s.domain)]; n != 1 {
			t.Errorf("r%d got %d mails, want 1", i, n)
		}
	}
	if n := perAddress["owner@"+s.domain]; n != 1 {
		t.Errorf("the owner got %d mails, want the one summary", n)
	}
	t.Logf("%d rows sent across a worker kill in %s (%.0f rows/s)", rows, elapsed.Round(time.Second), float64(rows)/elapsed.Seconds())
}

// bulkTemplate makes a TEMPLATE with one signer and returns its id.
func (s *system) bulkTemplate() string {
	s.t.Helper()
	payload := map[string]any{"title": "Masivo", "type": "TEMPLATE", "recipients": []any{
		map[string]any{"email": "placeholder@" + s.domain, "name": "Firmante", "role": "SIGNER",
			"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 10, "height": 5}}},
	}}
	return s.createFrom(payload, testpdf.Minimal("Masivo"))
}

// createFrom makes an envelope of payload over the PDF doc and returns its id.
func (s *system) createFrom(payload map[string]any, doc []byte) string {
	s.t.Helper()
	id, err := s.tryCreate(payload, doc)
	if err != nil {
		s.t.Fatal(err)
	}
	return id
}

// tryCreate is createFrom reporting its failure, for use off the test's goroutine.
func (s *system) tryCreate(payload map[string]any, doc []byte) (string, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	raw, _ := json.Marshal(payload)
	_ = w.WriteField("payload", string(raw))
	fw, _ := w.CreateFormFile("files", "a.pdf")
	_, _ = fw.Write(doc)
	_ = w.Close()
	out, err := s.tryPostMultipart("/api/v2/envelope/create", &body, w.FormDataContentType())
	if err != nil {
		return "", err
	}
	return out["id"].(string), nil
}

// bulkSend posts a CSV bulk send of template tpl that sends each document, and returns the job's id.
func (s *system) bulkSend(tpl, csv string) string {
	s.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("templateId", tpl)
	_ = w.WriteField("distributeDocument", "true")
	fw, _ := w.CreateFormFile("file", "rows.csv")
	_, _ = fw.Write([]byte(csv))
	_ = w.Close()
	return s.postMultipart("/api/v2/template/bulk-send", &body, w.FormDataContentType())["jobId"].(string)
}

func (s *system) postMultipart(path string, body *bytes.Buffer, contentType string) map[string]any {
	s.t.Helper()
	out, err := s.tryPostMultipart(path, body, contentType)
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

// tryPostMultipart posts a multipart body and decodes the answer, an error unless it is a 200.
func (s *system) tryPostMultipart(path string, body *bytes.Buffer, contentType string) (map[string]any, error) {
	req, _ := http.NewRequest("POST", "http://"+s.apiAddr+path, body)
	req.Header.Set("Authorization", s.key)
	req.Header.Set("Content-Type", contentType)
	res, err := httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	if res.StatusCode != 200 {
		return nil, fmt.Errorf("%s: %d %v", path, res.StatusCode, out)
	}
	return out, nil
}

// db is a connection to the system's database, closed at the end of the test.
func (s *system) db() *pgx.Conn {
	s.t.Helper()
	for _, kv := range s.env {
		if dbURL, ok := strings.CutPrefix(kv, "DATABASE_URL="); ok {
			conn, err := pgx.Connect(context.Background(), dbURL)
			if err != nil {
				s.t.Fatal(err)
			}
			s.t.Cleanup(func() { conn.Close(context.Background()) })
			return conn
		}
	}
	s.t.Fatal("the system has no DATABASE_URL")
	return nil
}

// bulkDocuments counts the DOCUMENTs in the database and the distinct addresses of their
// recipients.
func (s *system) bulkDocuments() (documents, distinct int) {
	s.t.Helper()
	if err := s.db().QueryRow(context.Background(), `SELECT count(DISTINCT e.id), count(DISTINCT r.email) FROM envelopes e
		JOIN recipients r ON r.envelope_id = e.id WHERE e.type = 'DOCUMENT'`).Scan(&documents, &distinct); err != nil {
		s.t.Fatal(err)
	}
	return documents, distinct
}

// mailLog is what mail_log holds for the mails to addresses, one line a mail.
func (s *system) mailLog(addresses []string) string {
	s.t.Helper()
	rows, err := s.db().Query(context.Background(), `SELECT message_id, recipient, state, coalesce(owner, ''),
		coalesce(lease_until::text, ''), coalesce(answer, '') FROM mail_log WHERE recipient = ANY ($1) ORDER BY message_id`, addresses)
	if err != nil {
		s.t.Fatal(err)
	}
	var out strings.Builder
	for rows.Next() {
		var id, to, state, owner, lease, answer string
		if err := rows.Scan(&id, &to, &state, &owner, &lease, &answer); err != nil {
			s.t.Fatal(err)
		}
		fmt.Fprintf(&out, "  %s to %s: %s, owner %q, lease until %s, answer %q\n", id, to, state, owner, lease, answer)
	}
	if err := rows.Err(); err != nil {
		s.t.Fatal(err)
	}
	return out.String()
}

// mailsTo counts the messages the sink holds for each of this system's addresses.
func (s *system) mailsTo() map[string]int {
	s.t.Helper()
	out := map[string]int{}
	for start := 0; ; start += 1000 {
		res, err := http.Get(fmt.Sprintf("%s/api/v1/search?limit=1000&start=%d&query=%s", s.mailpit, start, url.QueryEscape(s.domain)))
		if err != nil {
			s.t.Fatal(err)
		}
		var body struct {
			Messages []struct{ To []struct{ Address string } }
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil {
			s.t.Fatal(err)
		}
		for _, m := range body.Messages {
			for _, to := range m.To {
				out[to.Address]++
			}
		}
		if len(body.Messages) < 1000 {
			return out
		}
	}
}
