package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
)

// TestBulkSendOnlyTemplatesTheCallerSees: a template hidden from the caller (visibility ADMIN
// for a MEMBER) or another team's, named by envelope id or by number, is 404 and makes no job;
// more than MaxBulkRows rows is 400 naming rows.
func TestBulkSendOnlyTemplatesTheCallerSees(t *testing.T) {
	a, _ := newBulkTestAPI(t)
	owner := a.key("Bulk", "owner@bulk.test", envelope.TeamRoleAdmin)
	member := a.key("Bulk", "member@bulk.test", envelope.TeamRoleMember)
	other := a.key("Other", "admin@other.test", envelope.TeamRoleAdmin)
	id := a.bulkTemplate(owner)
	if status, body := a.do("POST", "/api/v2/envelope/update", owner, fmt.Sprintf(`{"envelopeId":%q,"data":{"visibility":"ADMIN"}}`, id)); status != http.StatusOK {
		t.Fatalf("visibility: %d %v", status, body)
	}
	tpl, err := a.store.EnvelopeForRecipient(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	rows := `[{"recipients":[{"id":` + fmt.Sprint(tpl.Recipients[0].ID) + `,"email":"uno@bulk.test"}]}]`
	for _, key := range []string{member, other} {
		for _, ref := range []string{fmt.Sprintf("%q", id), fmt.Sprint(tpl.LegacyID)} {
			status, body := a.do("POST", "/api/v2/template/bulk-send", key, `{"templateId":`+ref+`,"rows":`+rows+`}`)
			wantError(t, status, body, http.StatusNotFound, envelope.CodeNotFound)
		}
	}
	if jobs := a.count(`SELECT count(*) FROM bulk_send_jobs`); jobs != 0 {
		t.Fatalf("%d jobs made by refused requests", jobs)
	}
	many := "[" + strings.TrimSuffix(strings.Repeat(strings.Trim(rows, "[]")+",", envelope.MaxBulkRows+1), ",") + "]"
	status, body := a.do("POST", "/api/v2/template/bulk-send", owner, fmt.Sprintf(`{"templateId":%q,"rows":%s}`, id, many))
	wantError(t, status, body, http.StatusBadRequest, envelope.CodeInvalidBody)
}

// TestBulkSendJobShowsOnlyWhatTheCallerSees: a job shows its template, the documents made from
// it and the rows' addresses, so a MEMBER reads its own jobs and those from a template it may
// see; an ADMIN's job from an ADMIN-only template is 404 to it, as the template is.
func TestBulkSendJobShowsOnlyWhatTheCallerSees(t *testing.T) {
	a, _ := newBulkTestAPI(t)
	admin := a.key("Bulk", "owner@bulk.test", envelope.TeamRoleAdmin)
	member := a.key("Bulk", "member@bulk.test", envelope.TeamRoleMember)
	other := a.key("Other", "admin@other.test", envelope.TeamRoleAdmin)
	job := func(key, template string) string {
		tpl, err := a.store.EnvelopeForRecipient(context.Background(), template)
		if err != nil {
			t.Fatal(err)
		}
		status, body := a.do("POST", "/api/v2/template/bulk-send", key, fmt.Sprintf(`{"templateId":%q,"rows":[{"recipients":[{"id":%d,"email":"bad@@x"}]}]}`,
			template, tpl.Recipients[0].ID))
		if status != http.StatusOK {
			t.Fatalf("bulk send: %d %v", status, body)
		}
		return body["jobId"].(string)
	}
	hidden := a.bulkTemplate(admin)
	if status, body := a.do("POST", "/api/v2/envelope/update", admin, fmt.Sprintf(`{"envelopeId":%q,"data":{"visibility":"ADMIN"}}`, hidden)); status != http.StatusOK {
		t.Fatalf("visibility: %d %v", status, body)
	}
	shared := a.bulkTemplate(admin)
	adminsHidden, adminsShared, members := job(admin, hidden), job(admin, shared), job(member, shared)
	for _, c := range []struct {
		key, job string
		want     int
	}{
		{member, adminsHidden, http.StatusNotFound},
		{member, adminsShared, http.StatusOK},
		{member, members, http.StatusOK},
		{admin, adminsHidden, http.StatusOK},
		{admin, members, http.StatusOK},
		{other, members, http.StatusNotFound},
	} {
		status, body := a.do("GET", "/api/v2/template/bulk-send/"+c.job, c.key, "")
		if status != c.want || (status == http.StatusNotFound && strings.Contains(fmt.Sprint(body), "bad@@x")) {
			t.Errorf("GET %s: %d %v, want %d", c.job, status, body, c.want)
		}
	}
	// The template shown to everyone later: the job's documents are still ADMIN-only, and so is
	// the job.
	if status, body := a.do("POST", "/api/v2/envelope/update", admin, fmt.Sprintf(`{"envelopeId":%q,"data":{"visibility":"EVERYONE"}}`, hidden)); status != http.StatusOK {
		t.Fatalf("visibility: %d %v", status, body)
	}
	if status, body := a.do("GET", "/api/v2/template/bulk-send/"+adminsHidden, member, ""); status != http.StatusNotFound {
		t.Errorf("the job of a template shown later: %d %v, want 404", status, body)
	}
}
