package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Mail is one message the mailpit sink holds.
type Mail struct {
	MessageID string
	Subject   string
	To        []string
}

// Mailpit reads the mailpit sink at its HTTP API's base URL (http://host:port).
type Mailpit struct {
	Base string
	HTTP *http.Client
}

// All returns every message the sink holds.
func (m Mailpit) All(ctx context.Context) ([]Mail, error) {
	var out []Mail
	for start := 0; ; {
		page, total, err := m.page(ctx, start, 1000)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		start += len(page)
		if len(page) == 0 || start >= total {
			return out, nil
		}
	}
}

func (m Mailpit) page(ctx context.Context, start, limit int) ([]Mail, int, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/api/v1/messages?start=%d&limit=%d", m.Base, start, limit), nil)
	if err != nil {
		return nil, 0, err
	}
	res, err := m.HTTP.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("mailpit messages: %w", err)
	}
	defer res.Body.Close()
	var body struct {
		Total    int `json:"messages_count"`
		Messages []struct {
			MessageID string
			Subject   string
			To        []struct{ Address string }
		} `json:"messages"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		return nil, 0, fmt.Errorf("mailpit messages: %w", err)
	}
	var out []Mail
	for _, msg := range body.Messages {
		mail := Mail{MessageID: msg.MessageID, Subject: msg.Subject}
		for _, to := range msg.To {
			mail.To = append(mail.To, strings.ToLower(to.Address))
		}
		out = append(out, mail)
	}
	return out, body.Total, nil
}

// DeleteAll empties the sink.
func (m Mailpit) DeleteAll(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, "DELETE", m.Base+"/api/v1/messages", nil)
	if err != nil {
		return err
	}
	res, err := m.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("mailpit delete: %w", err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("mailpit delete: %d", res.StatusCode)
	}
	return nil
}

// Repeats lists the mails sent twice: a Message-ID seen more than once, or one address given
// the same subject more than once (every envelope's title, and so its subjects, is its own).
func Repeats(mails []Mail) []string {
	ids := map[string]int{}
	sent := map[string]int{}
	for _, m := range mails {
		ids[m.MessageID]++
		for _, to := range m.To {
			sent[to+" «"+m.Subject+"»"]++
		}
	}
	var out []string
	for id, n := range ids {
		if n > 1 {
			out = append(out, fmt.Sprintf("Message-ID %s %d times", id, n))
		}
	}
	for what, n := range sent {
		if n > 1 {
			out = append(out, fmt.Sprintf("%s %d times", what, n))
		}
	}
	sort.Strings(out)
	return out
}

// PerRecipient counts the mails each address received.
func PerRecipient(mails []Mail) map[string]int {
	n := map[string]int{}
	for _, m := range mails {
		for _, to := range m.To {
			n[to]++
		}
	}
	return n
}

// CompletionPrefix begins the subject of the mail each recipient gets when the envelope is
// completed (in English, the default language), with the sealed PDF.
const CompletionPrefix = "Completed: "

// Completed counts the addresses containing mark (a run's recipients) that received a
// completion mail (CompletionPrefix).
func Completed(mails []Mail, mark string) int {
	seen := map[string]bool{}
	for _, m := range mails {
		if !strings.HasPrefix(m.Subject, CompletionPrefix) {
			continue
		}
		for _, to := range m.To {
			if strings.Contains(to, mark) {
				seen[to] = true
			}
		}
	}
	return len(seen)
}
