package account_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// stage is how far an envelope of envelopeFor goes: a draft, pending with its recipient not yet
// sent it (its turn has not come, in a signing order), or pending and sent to its recipient.
type stage int

const (
	draft stage = iota
	pendingUnsent
	sent
)

// envelopeFor creates an envelope titled title with one recipient of email in role, taken to
// stage st, and returns it.
func (e *env) envelopeFor(t *testing.T, m envelope.Member, title, email string, role envelope.Role, st stage) *envelope.Envelope {
	t.Helper()
	ctx := context.Background()
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: title, Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF-1.7 " + title), Pages: []persistence.PageSize{{Width: 595, Height: 842}}}},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: email, Name: "Tomás", Role: role},
			Fields: []persistence.NewField{{Field: envelope.Field{Type: envelope.FieldSignature, Page: 1, Width: 1, Height: 1}}}}},
	}
	if role != envelope.RoleSigner {
		in.Recipients[0].Fields = nil
	}
	var id string
	err := e.store.InTx(ctx, func(tx *persistence.Tx) (err error) {
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if st != draft {
		if _, err := e.store.MarkPending(ctx, id, nil); err != nil {
			t.Fatal(err)
		}
	}
	env, err := e.store.EnvelopeForRecipient(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if st == sent {
		if err := e.store.MarkSent(ctx, id, env.Recipients[0].ID, "SIGNING_REQUEST", true, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

func TestOverviewEnvelopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ctx := context.Background()
	a := e.verified(t)
	ana, err := e.store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana Rojas", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	nameless, err := e.store.EnsureMember(ctx, "Acme", "bot@acme.cl", "", envelope.TeamRoleMember)
	if err != nil {
		t.Fatal(err)
	}
	first := e.envelopeFor(t, ana, "Arriendo", strings.ToUpper(a.Email), envelope.RoleSigner, sent)
	second := e.envelopeFor(t, nameless, "Anexo", a.Email, envelope.RoleApprover, sent)
	e.envelopeFor(t, ana, "Borrador", a.Email, envelope.RoleSigner, draft)
	// Pending, but not yet sent to this recipient: the account does not learn of it before its
	// mailbox does.
	e.envelopeFor(t, ana, "Por turno", a.Email, envelope.RoleSigner, pendingUnsent)
	e.envelopeFor(t, ana, "Ajeno", "otra@sobre.test", envelope.RoleSigner, sent)
	deleted := e.envelopeFor(t, ana, "Borrado", a.Email, envelope.RoleSigner, sent)
	if err := e.store.InTx(ctx, func(tx *persistence.Tx) error { return tx.SoftDelete(ctx, deleted.ID, envelope.Actor{}) }); err != nil {
		t.Fatal(err)
	}

	o, err := e.svc.Overview(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Envelopes) != 2 {
		t.Fatalf("envelopes %+v, want Anexo and Arriendo", o.Envelopes)
	}
	want := []account.AskedToSign{
		{Title: "Anexo", Sender: "bot@acme.cl", Status: envelope.StatusPending, Role: envelope.RoleApprover, SigningURL: publicURL + "/sign/" + second.Recipients[0].Token},
		{Title: "Arriendo", Sender: "Ana Rojas", Status: envelope.StatusPending, Role: envelope.RoleSigner, SigningURL: publicURL + "/sign/" + first.Recipients[0].Token},
	}
	for i, w := range want {
		g := o.Envelopes[i]
		if g.Title != w.Title || g.Sender != w.Sender || g.Status != w.Status || g.Role != w.Role || g.SigningURL != w.SigningURL {
			t.Errorf("envelope %d: %+v, want %+v", i, g, w)
		}
		if strings.HasSuffix(g.SigningURL, "/sign/") {
			t.Errorf("envelope %d has no token in its link", i)
		}
	}
	// The verification link signed the browser in: one sign-in so far.
	if len(o.SignIns) != 1 {
		t.Errorf("sign-ins %+v, want the one of the verification", o.SignIns)
	}
	var b browser
	e.clk.add(time.Minute)
	e.signIn(t, &b, a.Email, goodPassword)
	e.clk.add(time.Minute)
	e.signIn(t, &b, a.Email, goodPassword)
	o, err = e.svc.Overview(ctx, a)
	if err != nil || len(o.SignIns) != 3 || !o.SignIns[0].At.After(o.SignIns[1].At) || o.SignIns[0].IP != client.IP ||
		o.SignIns[0].UserAgent != client.UserAgent || o.SignIns[0].Method != "PASSWORD" {
		t.Fatalf("sign-ins %+v (%v)", o.SignIns, err)
	}

	// An unverified account sees no envelope: its address is not proved.
	hash, _ := account.HashPassword(ctx, goodPassword)
	other := newAddress(t)
	e.envelopeFor(t, ana, "Para otro", other, envelope.RoleSigner, sent)
	u, _, err := e.store.UpsertSignerAccount(ctx, other, hash, "es", e.clk.now())
	if err != nil {
		t.Fatal(err)
	}
	o, err = e.svc.Overview(ctx, account.Account{ID: u.ID, Email: other})
	if err != nil || len(o.Envelopes) != 0 || o.Account.EmailVerified {
		t.Fatalf("an unverified account's overview: %+v %v", o, err)
	}
}
