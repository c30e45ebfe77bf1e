package persistence_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// A send's signing requests hold the team's mail quota from the send's transaction on, before
// any of them is claimed, and each counts once: reserved, then claimed (the claim takes the
// reservation's place in the same statement), then sent. A reservation ends with its envelope.
func TestMailQuotaCountsEachReservedRequestOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := pgtest.New(t)
	first, second, third := draftWithOneSigner(t, store, "quota one"), draftWithOneSigner(t, store, "quota two"), draftWithOneSigner(t, store, "quota three")
	snap, err := store.LoadSnapshot(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	team, signer := snap.TeamID, snap.Recipients[0].ID
	reserve := func(id string) error {
		e, err := store.EnvelopeForRecipient(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return store.InTx(ctx, func(tx *persistence.Tx) error { return tx.ReserveMailQuota(ctx, e, 2) })
	}
	// fits reports whether need more mails fit in a quota of quota.
	fits := func(quota, need int) bool {
		t.Helper()
		err := store.CheckMailQuota(ctx, team, quota, need, envelope.MailQuotaWindow)
		var de *envelope.Error
		if err != nil && !(errors.As(err, &de) && de.Code == envelope.CodeTooManyRequests) {
			t.Fatal(err)
		}
		return err == nil
	}
	if err := reserve(first); err != nil {
		t.Fatal(err)
	}
	if _, err := store.MarkPending(ctx, first, nil); err != nil {
		t.Fatal(err)
	}
	if err := reserve(second); err != nil {
		t.Fatal(err)
	}
	if _, err := store.MarkPending(ctx, second, nil); err != nil {
		t.Fatal(err)
	}
	mark := &envelope.Sent{EnvelopeID: first, RecipientID: signer, EmailType: "SIGNING_REQUEST", Mailed: true}
	steps := []struct {
		name   string
		before func() error
		quota  int // the quota that just holds what is counted: one more mail passes it
	}{
		{"two requests reserved, none claimed", func() error { return nil }, 2},
		{"a third does not fit", func() error {
			if err := reserve(third); err == nil {
				return errors.New("a third reservation passed a quota of 2")
			}
			return nil
		}, 2},
		{"a send tried again reserves its requests again, once", func() error { return reserve(second) }, 2},
		{"one claimed", func() error {
			_, err := store.ClaimMail(ctx, persistence.MailClaim{MessageID: "req-1", EnvelopeID: first, Kind: "signing_request",
				To: "zoe@example.com", Owner: "a", Lease: time.Minute, RecipientID: signer})
			return err
		}, 2},
		{"one sent", func() error { return store.MailSent(ctx, "req-1", mark, "") }, 2},
		{"the other's envelope ended", func() error {
			return store.FinishEnvelope(ctx, envelope.CancelledEvent(second, "", time.Now()), envelope.SystemActor())
		}, 1},
	}
	for _, s := range steps {
		if err := s.before(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if !fits(s.quota, 0) || fits(s.quota, 1) {
			t.Errorf("%s: one more mail fits a quota of %d: %v, of %d mails: %v; want it counted at exactly %d",
				s.name, s.quota, fits(s.quota, 1), s.quota, fits(s.quota, 0), s.quota)
		}
	}
}
