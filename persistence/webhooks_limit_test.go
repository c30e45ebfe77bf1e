package persistence_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// A team never gets more than envelope.MaxWebhooks webhooks, even when many creations race:
// each one that would pass the limit is refused INVALID_REQUEST.
func TestCreateWebhookLimitHoldsUnderConcurrency(t *testing.T) {
	f := newWebhookFixture(t, envelope.WebhookDocumentSent)
	const racers = 30
	var wg sync.WaitGroup
	errs := make(chan error, racers)
	for range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.store.CreateWebhook(context.Background(), f.admin, persistence.NewWebhook{URL: "https://hooks.example.com/in",
				EventTriggers: []envelope.WebhookEvent{envelope.WebhookDocumentSent}, Enabled: true, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	refused := 0
	for err := range errs {
		var e *envelope.Error
		switch {
		case err == nil:
		case errors.As(err, &e) && e.Code == envelope.CodeInvalidRequest:
			refused++
		default:
			t.Errorf("a racing creation failed otherwise: %v", err)
		}
	}
	_, count, err := f.store.Webhooks(context.Background(), f.admin.TeamID, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if count != envelope.MaxWebhooks || refused != 1+racers-envelope.MaxWebhooks {
		t.Errorf("after %d racing creations the team has %d webhooks (%d refused), want %d", racers, count, refused, envelope.MaxWebhooks)
	}
}
