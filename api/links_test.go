package api

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
)

// A signing link reads the document, its page images and its field values for
// SOBRE_LINK_READ_DAYS (30) days after the envelope ended or the recipient's deadline passed, then
// shows the outcome and says it no longer shows the document: page images and downloads are 410.
func TestSigningLinksEnd(t *testing.T) {
	a := newTestAPI(t)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		end  func(id string, rec envelope.Recipient, ago time.Duration)
		page string // what the outcome page says
	}{
		{"completed", func(id string, rec envelope.Recipient, ago time.Duration) {
			if ago == 0 {
				if err := a.store.FinishEnvelope(ctx, envelope.CompletedEvent(id, "test", time.Now()), envelope.SystemActor()); err != nil {
					t.Fatal(err)
				}
				return
			}
			a.exec(`UPDATE envelopes SET completed_at = now() - $2::interval WHERE id = $1`, id, ago.String())
		}, "Everyone has completed this document"},
		{"cancelled", func(id string, rec envelope.Recipient, ago time.Duration) {
			if ago == 0 {
				if err := a.store.FinishEnvelope(ctx, envelope.CancelledEvent(id, "test", time.Now()), envelope.SystemActor()); err != nil {
					t.Fatal(err)
				}
				return
			}
			a.exec(`UPDATE envelopes SET completed_at = now() - $2::interval WHERE id = $1`, id, ago.String())
		}, "The sender cancelled it"},
		{"recipient expired", func(id string, rec envelope.Recipient, ago time.Duration) {
			a.exec(`UPDATE recipients SET expires_at = now() - $2::interval - interval '1 second' WHERE id = $1`, rec.ID, ago.String())
		}, "The time to act on this document has run out"},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, item, rec := a.pendingEnvelope(nil)
			jar, _ := cookiejar.New(nil)
			browser := &http.Client{Jar: jar}
			pageURL := a.srv.URL + "/sign/" + rec.Token + "/pages/" + item + "/1.png"
			itemURL := a.srv.URL + "/api/v2/signing/" + rec.Token + "/items/" + item
			if status, _, _ := get(t, browser, a.srv.URL+"/sign/"+rec.Token); status != 200 {
				t.Fatalf("signing page: %d", status)
			}

			// Ended now: the outcome, and the document still.
			c.end(id, rec, 0)
			status, _, body := get(t, browser, a.srv.URL+"/sign/"+rec.Token)
			if status != 200 || !strings.Contains(body, c.page) || strings.Contains(body, "no longer shows the document") {
				t.Fatalf("outcome page within the period: %d %s", status, body)
			}
			if status, h, _ := get(t, browser, pageURL); status != 200 || h.Get("Content-Type") != "image/png" {
				t.Fatalf("page image within the period: %d %s", status, h.Get("Content-Type"))
			}
			if status, h, _ := get(t, browser, itemURL); status != 200 || h.Get("Content-Type") != "application/pdf" {
				t.Fatalf("download within the period: %d %s", status, h.Get("Content-Type"))
			}
			status, view := a.do("GET", "/api/v2/signing/"+rec.Token, "", "")
			if status != 200 || len(view["fields"].([]any)) != 1 || len(view["envelope"].(map[string]any)["envelopeItems"].([]any)) != 1 || view["readableUntil"] == nil {
				t.Fatalf("signing view within the period: %d %v", status, view)
			}

			// 29 days on: still.
			c.end(id, rec, 29*24*time.Hour)
			if status, _, _ := get(t, browser, pageURL); status != 200 {
				t.Fatalf("page image 29 days after the end: %d", status)
			}

			// 31 days on: the outcome and a clear notice; no document, no pages, no values.
			c.end(id, rec, 31*24*time.Hour)
			status, _, body = get(t, browser, a.srv.URL+"/sign/"+rec.Token)
			if status != 200 || !strings.Contains(body, c.page) || !strings.Contains(body, "This link no longer shows the document") || strings.Contains(body, "/pages/") {
				t.Fatalf("outcome page after the period: %d %s", status, body)
			}
			status, _, body = get(t, browser, pageURL)
			if status != http.StatusGone || !strings.Contains(body, "no longer shows the document") {
				t.Fatalf("page image after the period: %d %s", status, body)
			}
			status, gone := a.do("GET", "/api/v2/signing/"+rec.Token+"/items/"+item, "", "")
			wantError(t, status, gone, http.StatusGone, envelope.CodeLinkEnded)
			status, view = a.do("GET", "/api/v2/signing/"+rec.Token, "", "")
			if status != 200 || len(view["fields"].([]any)) != 0 || len(view["envelope"].(map[string]any)["envelopeItems"].([]any)) != 0 {
				t.Fatalf("signing view after the period: %d %v", status, view)
			}
			until, err := time.Parse(time.RFC3339Nano, view["readableUntil"].(string))
			if err != nil || time.Until(until) > -23*time.Hour || time.Until(until) < -25*time.Hour {
				t.Fatalf("readableUntil %v (%v), want about a day ago", view["readableUntil"], err)
			}
		})
	}
}
