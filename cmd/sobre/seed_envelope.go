package main

import (
	"fmt"
	"time"
)

var (
	seedEnvelopeColumns = []string{"id", "secondary_id", "legacy_id", "type", "status", "source", "visibility",
		"external_id", "title", "user_id", "team_id", "document_meta", "created_at", "updated_at", "completed_at"}
	seedRecipientColumns = []string{"envelope_id", "email", "name", "role", "token_hash", "read_status", "signing_status",
		"send_status", "signing_order", "sent_at", "signed_at", "rejection_reason", "created_at", "updated_at"}
)

// seedEnvelope is one seeded envelope and its recipients' rows.
type seedEnvelope struct {
	id, status, visibility, title string
	externalID                    *string
	legacy, userID, teamID        int64
	created, updated              time.Time
	completed                     *time.Time
	recipients                    [][]any
}

func (e seedEnvelope) row(meta []byte) []any {
	return []any{e.id, fmt.Sprintf("document_%d", e.legacy), e.legacy, "DOCUMENT", e.status, "DOCUMENT", e.visibility,
		e.externalID, e.title, e.userID, e.teamID, meta, e.created, e.updated, e.completed}
}

// envelope draws the document numbered legacy: its team, owner, status, title and three
// recipients whose states agree with the status (a COMPLETED envelope's recipients all signed,
// a REJECTED one's last acting recipient rejected, a DRAFT's were never sent).
func (w *seedWorld) envelope(users [][]int64, legacy int64) seedEnvelope {
	team := w.rng.IntN(len(users))
	people := w.people[team]
	e := seedEnvelope{id: w.envelopeID("envelope_"), status: w.status(), visibility: "EVERYONE", legacy: legacy,
		teamID: users[team][0], userID: users[team][1+w.rng.IntN(len(users[team])-1)], created: w.createdAt()}
	if w.rng.IntN(10) == 0 {
		e.visibility = "MANAGER_AND_ABOVE"
	}
	if w.rng.IntN(10) < 3 {
		ext := fmt.Sprintf("ERP-%d-%06d", e.created.Year(), w.rng.IntN(1000000))
		e.externalID = &ext
	}
	var who [3]seedPerson
	for i := range who {
		who[i] = people[w.rng.IntN(len(people))]
	}
	e.title = w.title(who[0])
	signed := map[string]int{"COMPLETED": 3, "PENDING": w.rng.IntN(3), "REJECTED": w.rng.IntN(3)}[e.status]
	e.updated = e.created.Add(time.Duration(1+w.rng.IntN(72*60)) * time.Minute)
	if e.status == "COMPLETED" {
		e.completed = &e.updated
	}
	for i, p := range who {
		role := "SIGNER"
		if i == 2 {
			role = []string{"SIGNER", "SIGNER", "SIGNER", "APPROVER", "CC"}[w.rng.IntN(5)]
		}
		read, signing, send := "NOT_OPENED", "NOT_SIGNED", "NOT_SENT"
		var sentAt, signedAt *time.Time
		var reason *string
		if e.status != "DRAFT" {
			send, sentAt = "SENT", &e.created
		}
		switch {
		case i < signed:
			read, signing, signedAt = "OPENED", "SIGNED", &e.updated
		case i == signed && e.status == "REJECTED":
			r := "No estoy de acuerdo con las condiciones"
			read, signing, signedAt, reason = "OPENED", "REJECTED", &e.updated, &r
		}
		e.recipients = append(e.recipients, []any{e.id, p.email, p.name, role, tokenHash(e.id, i), read, signing, send,
			i + 1, sentAt, signedAt, reason, e.created, e.updated})
	}
	return e
}
