package persistence_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// Every constraint the store gives a meaning, broken on a real PostgreSQL, answers the domain's
// error with that meaning (code, message, the input value at fault); an unlisted unique
// constraint is ALREADY_EXISTS naming its table; an unlisted check stays an internal error.
func TestConstraintViolationsAreDomainErrors(t *testing.T) {
	t.Parallel()
	store := pgtest.New(t)
	ctx := context.Background()
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	page := []persistence.PageSize{{Width: 595, Height: 842}}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "t", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF-1.7 unique a"), Pages: page}, {Title: "b.pdf", Data: []byte("%PDF-1.7 unique b"), Pages: page}},
	}
	var id string
	if err := store.InTx(ctx, func(tx *persistence.Tx) (err error) {
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e, err := store.EnvelopeForRecipient(ctx, id)
	if err != nil || len(e.Items) != 2 {
		t.Fatalf("items %v, %v", e, err)
	}
	var fieldID int64
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		r, err := tx.AddRecipient(ctx, id, envelope.Recipient{Email: "b@b.cl", Name: "B", Role: envelope.RoleSigner}, envelope.Actor{})
		if err != nil {
			return err
		}
		f, err := tx.AddField(ctx, id, envelope.Field{Type: envelope.FieldSignature, EnvelopeItemID: e.Items[0].ID, Page: 1, Width: 10, Height: 5}, r, envelope.Actor{})
		fieldID = f.ID
		return err
	}); err != nil {
		t.Fatal(err)
	}
	account, _, err := store.UpsertSignerAccount(ctx, "Eva@Sobre.test", "h", "es", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	passkey := func() error {
		_, err := store.AddAccountPasskey(ctx, account.ID, []byte("cred"), []byte(`{}`), "Laptop",
			persistence.AccountEvent{Type: persistence.AccountEventPasskeyAdded}, time.Now())
		return err
	}
	if err := passkey(); err != nil {
		t.Fatal(err)
	}
	sql := func(statement string, args ...any) func() error {
		return func() error { return store.ExecInTx(ctx, statement, args...) }
	}

	tests := []struct {
		constraint string
		change     func() error
		code       envelope.Code
		message    string // a part of the error's message
		path       string // the path of its one issue; "" for none
	}{
		{"envelope_items_envelope_id_item_order_key", func() error {
			second := e.Items[1]
			second.Order = e.Items[0].Order
			return store.InTx(ctx, func(tx *persistence.Tx) error { return tx.UpdateItem(ctx, second) })
		}, envelope.CodeAlreadyExists, "same order", ""},
		{"teams_url_key", sql(`INSERT INTO teams (name, url) VALUES ('Acme 2', $1)`, m.TeamURL), envelope.CodeAlreadyExists, "team with this name", ""},
		{"users_email_key", sql(`INSERT INTO users (email, name) VALUES ('ANA@acme.cl', 'Ana')`), envelope.CodeAlreadyExists, "user with this email", ""},
		{"team_members_pkey", sql(`INSERT INTO team_members (team_id, user_id, role) VALUES ($1, $2, 'MEMBER')`, m.TeamID, m.UserID),
			envelope.CodeAlreadyExists, "already a member", ""},
		{"account_passkeys_credential_id_key", passkey, envelope.CodeAlreadyExists, "passkey is registered", ""},
		{"signer_accounts_email_idx", sql(`INSERT INTO signer_accounts (email, password_hash) VALUES ('eva@sobre.test', 'h')`),
			envelope.CodeAlreadyExists, "account with this email", ""},
		{"fields_recipient_id_fkey", sql(`UPDATE fields SET recipient_id = -1 WHERE id = $1`, fieldID), envelope.CodeNotFound, "Recipient not found", "recipientId"},
		{"fields_envelope_item_id_fkey", sql(`UPDATE fields SET envelope_item_id = 'envelope_item_none' WHERE id = $1`, fieldID),
			envelope.CodeNotFound, "Envelope item not found", "envelopeItemId"},
		{"fields_page_check", sql(`UPDATE fields SET page = 0 WHERE id = $1`, fieldID), envelope.CodeInvalidBody, "at least 1", "page"},
		{"recipients_role_check", func() error {
			in := in
			in.Recipients = []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "b@b.cl", Name: "B", Role: envelope.Role("BOSS")}}}
			return store.InTx(ctx, func(tx *persistence.Tx) error {
				_, err := tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
				return err
			})
		}, envelope.CodeInvalidBody, "must be one of", "role"},
		{"(unlisted unique) document_data_sha256_key", sql(`INSERT INTO document_data (id, sha256, data, size_bytes, page_count, page_sizes)
			SELECT 'other', sha256, data, size_bytes, page_count, page_sizes FROM document_data LIMIT 1`), envelope.CodeAlreadyExists, "This document data already exists", ""},
		{"(unlisted check) signatures_check", sql(`INSERT INTO signatures (field_id, recipient_id) SELECT id, recipient_id FROM fields WHERE id = $1`, fieldID), envelope.CodeInternal, "signatures_check", ""},
	}
	tested := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.constraint, func(t *testing.T) {
			tested[tt.constraint] = true
			err := tt.change()
			if err == nil {
				t.Fatal("the change broke no constraint")
			}
			if envelope.ErrorCode(err) != tt.code || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("got %v (%q), want %q with %q", err, envelope.ErrorCode(err), tt.code, tt.message)
			}
			var issues []envelope.Issue
			if de, ok := err.(*envelope.Error); ok {
				issues = de.Issues
			}
			if tt.path == "" && len(issues) != 0 || tt.path != "" && (len(issues) != 1 || issues[0].Path != tt.path) {
				t.Errorf("issues %+v, want one at %q", issues, tt.path)
			}
		})
	}
	for _, name := range persistence.MappedConstraints() {
		if !tested[name] {
			t.Errorf("constraint %s is mapped but no test breaks it", name)
		}
	}
}
