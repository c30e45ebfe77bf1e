package ceremony_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/auth/claveunicadev"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// A recipient that names its signer's RUN refuses a Clave Única login of any other: the login
// fills nothing on the session, the audit log names the RUN that tried, and the owner is mailed
// once per RUN refused. The expected person's login is then taken as any other.
func TestExpectedRUN(t *testing.T) {
	t.Parallel()
	s, _, _, e, rec, owner := distributed(t)
	_, httpURL := sink(t)
	s.ClaveUnica = localClaveUnica(t, claveunicadev.Options{})
	ctx := context.Background()
	expected := "44444444-4"
	next := rec
	next.ExpectedRUT = &expected
	next.AuthOptions = envelope.RecipientAuthOptions{ActionAuth: []envelope.ActionAuth{envelope.ActionAuthClaveUnica}}
	if err := s.Store.InTx(ctx, func(tx *persistence.Tx) error {
		_, err := tx.UpdateRecipient(ctx, next)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Store.RecipientForSigning(ctx, rec.ID)
	if err != nil || rec.ExpectedRUT == nil || *rec.ExpectedRUT != expected {
		t.Fatalf("recipient %+v, %v", rec, err)
	}
	actor := func(r envelope.Recipient) envelope.Actor {
		return envelope.RecipientActor(r, "127.0.0.1", "test")
	}
	login := func(b *browser, run string) error {
		t.Helper()
		b.begin(t, s, rec)
		authURL, err := s.StartClaveUnica(ctx, b.request(), rec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.FinishClaveUnica(ctx, b.callback(loginAt(t, authURL, run)), actor)
		return err
	}
	const subject = "Someone else tried to sign as"
	ownerMails := func(want int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for countPrefix(mailsTo(t, httpURL, owner), subject) < want && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
		}
		time.Sleep(time.Second) // and no more than want
		if n := countPrefix(mailsTo(t, httpURL, owner), subject); n != want {
			t.Fatalf("%d mails to the owner about refused identities, want %d", n, want)
		}
	}

	var a, b, c, d browser
	if err := login(&a, "55555555-5"); envelope.ErrorCode(err) != envelope.CodeRUTMismatch {
		t.Fatalf("another RUN's login: %v, want RUT_MISMATCH", err)
	}
	if st, err := s.StatusOf(ctx, a.request(), e, rec); err != nil || st.ClaveUnicaRUN != "" {
		t.Fatalf("the refused login filled the session: %+v, %v", st, err)
	}
	ownerMails(1)
	// The same RUN again: refused, but the audit log and the owner were told already.
	if err := login(&b, "55555555-5"); envelope.ErrorCode(err) != envelope.CodeRUTMismatch {
		t.Fatalf("the same RUN again: %v", err)
	}
	ownerMails(1)
	if err := login(&c, "88888888-8"); envelope.ErrorCode(err) != envelope.CodeRUTMismatch {
		t.Fatalf("a third RUN: %v", err)
	}
	ownerMails(2)
	types, err := s.Store.AuditTypes(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	// One entry per RUN refused: a repeat is only counted.
	if n := countOf(types, "RECIPIENT_IDENTITY_REFUSED"); n != 2 {
		t.Errorf("%d RECIPIENT_IDENTITY_REFUSED entries, want 2: %v", n, types)
	}

	if err := login(&d, expected); err != nil {
		t.Fatalf("the expected person's login: %v", err)
	}
	st, err := s.StatusOf(ctx, d.request(), e, rec)
	if err != nil || st.ClaveUnicaRUN != expected {
		t.Fatalf("after the expected login: %+v, %v", st, err)
	}
	if slices.Contains(types, "DOCUMENT_RECIPIENT_COMPLETED") {
		t.Fatal("something completed")
	}
}
