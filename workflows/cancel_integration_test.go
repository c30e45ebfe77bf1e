package workflows_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/smtptest"
	"github.com/sobre-sign/sobre/workflows"
)

// A cancel or a delete right after a distribute, which answers before its requests are sent,
// through a relay that takes a second to accept a mail: the envelope ends once the request being
// handed over is delivered, and its recipient is told the envelope was cancelled, after the
// request; the one whose request the relay was still turning away is neither sent the request
// (not even when the relay would take it after the ending) nor told.
func TestEndingRightAfterDistributeTellsOnlyWhoWasSent(t *testing.T) {
	endings := map[string]func(context.Context, *workflows.Client, string) error{
		"cancel": func(ctx context.Context, c *workflows.Client, id string) error {
			return c.Cancel(ctx, id, workflows.CancelRequest{Reason: "ya no"})
		},
		"delete": func(ctx context.Context, c *workflows.Client, id string) error { return c.Delete(ctx, id) },
	}
	for name, end := range endings {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			endRightAfterDistribute(t, end, name == "cancel")
		})
	}
}

func endRightAfterDistribute(t *testing.T, end func(context.Context, *workflows.Client, string) error, kept bool) {
	var s *stack
	var id string
	var rs []envelope.Recipient
	// The second request is turned away on its first three attempts (about 4 s, within the
	// ending's wait for it); its next attempt, about 8 s in, after the ending, would be taken.
	var refused atomic.Int32
	relay := &smtptest.Relay{Delay: time.Second, DataEnd: func(messageID string, _ int) string {
		if strings.HasPrefix(messageID, requestID(id, rs[1].ID)) && refused.Add(1) <= 3 {
			return "451 4.2.2 mailbox full, try later"
		}
		return ""
	}}
	s = newStackRelaying(t, relay)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, rs = s.draftWith(t, 2)
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	if err := end(ctx, s.flows, id); err != nil {
		t.Fatal(err)
	}
	if err := s.c.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cancelled := func(rid int64) string {
		return activities.MessageID(envelope.Mailing{Kind: envelope.MailEnvelopeCancelled, EnvelopeID: id, RecipientID: rid}, "sobre.test")
	}
	accepted := relay.Accepted()
	sent, told := slices.Index(accepted, requestID(id, rs[0].ID)), slices.Index(accepted, cancelled(rs[0].ID))
	if sent < 0 || told < sent {
		t.Errorf("the first recipient: request accepted at %d, cancellation at %d of %v; want both, in that order", sent, told, accepted)
	}
	if n, m := relay.AcceptedTo(requestID(id, rs[1].ID)), relay.AcceptedTo(cancelled(rs[1].ID)); n != 0 || m != 0 {
		t.Errorf("the second recipient, whose request the relay turned away: %d requests and %d cancellations accepted, want none", n, m)
	}
	if !kept {
		return
	}
	snap, err := s.store.LoadSnapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Status != envelope.StatusCancelled || snap.Recipient(rs[1].ID).SendStatus != envelope.SendStatusNotSent {
		t.Errorf("envelope %s, second recipient %s; want CANCELLED and NOT_SENT", snap.Status, snap.Recipient(rs[1].ID).SendStatus)
	}
}
