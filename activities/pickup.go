package activities

import (
	"context"
	"strconv"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
)

// LoadPickup reads what a new run of the envelope's workflow takes over from the runs before it
// (envelope.Pickup): its team, the recipients whose expiry was noted, and its signing requests and
// reminders in the mail log, read from their Message-IDs.
func (a *Activities) LoadPickup(ctx context.Context, envelopeID string) (envelope.Pickup, error) {
	snap, err := a.Store.LoadSnapshot(ctx, envelopeID)
	if err != nil {
		return envelope.Pickup{}, domainError(err)
	}
	logged, err := a.Store.LoggedRequests(ctx, envelopeID)
	if err != nil {
		return envelope.Pickup{}, err
	}
	p := envelope.Pickup{TeamID: snap.TeamID, Noted: envelope.ExpiryNoted(snap.Recipients)}
	for _, m := range logged {
		n, ok := parseMessageID(m.MessageID)
		if !ok || n.Kind != m.Kind {
			a.Log.WarnContext(ctx, "a mail log entry whose Message-ID is not Sobre's; not taken over", "envelope", envelopeID, "message_id", m.MessageID)
			continue
		}
		p.Mailed = append(p.Mailed, envelope.Mailed{Kind: n.Kind, RecipientID: n.RecipientID, Seq: n.Seq, At: m.At})
	}
	return p, nil
}

// parseMessageID reads back the kind, recipient, sequence and actor of a Message-ID that
// MessageID wrote (the envelope id stays "": the Message-ID holds it shortened).
func parseMessageID(id string) (envelope.Mailing, bool) {
	local, _, ok := strings.Cut(id, "@")
	if !ok {
		return envelope.Mailing{}, false
	}
	parts := strings.Split(local, ".")
	var n envelope.Mailing
	if last := parts[len(parts)-1]; len(parts) > 4 && strings.HasPrefix(last, "a") {
		actor, err := strconv.ParseInt(last[1:], 10, 64)
		if err != nil {
			return envelope.Mailing{}, false
		}
		n.ActorID, parts = actor, parts[:len(parts)-1]
	}
	if len(parts) < 4 {
		return envelope.Mailing{}, false
	}
	rid, err1 := strconv.ParseInt(parts[len(parts)-2], 10, 64)
	seq, err2 := strconv.Atoi(parts[len(parts)-1])
	if err1 != nil || err2 != nil {
		return envelope.Mailing{}, false
	}
	n.Kind, n.RecipientID, n.Seq = envelope.Mail(parts[0]), rid, seq
	return n, true
}
