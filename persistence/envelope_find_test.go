package persistence_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// The search matches a team's own envelopes only: by a substring of the title, the external id
// or a recipient's name or email, and, for a query that looks like an email, by the beginning
// of a recipient's email.
func TestFindEnvelopesSearch(t *testing.T) {
	t.Parallel()
	store := pgtest.New(t)
	ctx := context.Background()
	member := func(team, email string) envelope.Member {
		m, err := store.EnsureMember(ctx, team, email, "Admin", envelope.TeamRoleAdmin)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	acme, other := member("Acme", "ana@acme.cl"), member("Other", "otto@other.cl")
	create := func(m envelope.Member, title, externalID string, recipients ...string) string {
		in := persistence.NewEnvelope{
			Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
				TemplateType: envelope.TemplateTypePrivate, Title: title, Meta: envelope.DefaultMeta("")},
			Items: []persistence.Document{{Title: "a.pdf", Data: []byte("%PDF-1.7 " + title), Pages: []persistence.PageSize{{Width: 595, Height: 842}}}},
		}
		if externalID != "" {
			in.Envelope.ExternalID = &externalID
		}
		for i := 0; i < len(recipients); i += 2 {
			in.Recipients = append(in.Recipients, persistence.NewRecipient{Recipient: envelope.Recipient{Email: recipients[i], Name: recipients[i+1], Role: envelope.RoleSigner}})
		}
		var id string
		err := store.InTx(ctx, func(tx *persistence.Tx) (err error) {
			id, err = tx.CreateEnvelope(ctx, m, in, envelope.Actor{})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	lease := create(acme, "Contrato de arriendo Providencia", "ext-001", "maria.gonzalez@example.com", "María González")
	nda := create(acme, "Acuerdo de confidencialidad", "", "pedro@example.com", "Pedro Soto", "juan.gonzalez@example.com", "Juan Pérez")
	create(other, "Contrato de arriendo Ñuñoa", "ext-001", "maria.gonzalez@example.com", "María González")

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"arriendo", []string{lease}},
		{"ARRIENDO provi", []string{lease}},
		{"ext-00", []string{lease}},
		{"gonzález", []string{lease}},
		{"gonzalez", []string{nda, lease}},
		{"pérez", []string{nda}},
		{"maria.gonzalez@", []string{lease}},
		{"MARIA.Gonzalez@Example.com", []string{lease}},
		{"gonzalez@example.com", nil}, // an email-like query matches the beginning of an email
		{"100%", nil},
		{"Ñuñoa", nil}, // the other team's
	} {
		list, count, err := store.FindEnvelopes(ctx, persistence.ScopeOf(acme), persistence.FindFilter{Query: tc.query, Page: 1, PerPage: 10})
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		var got []string
		for _, e := range list {
			got = append(got, e.ID)
		}
		if !slices.Equal(got, tc.want) || count != len(tc.want) {
			t.Errorf("%q: got %v (count %d), want %v", tc.query, got, count, tc.want)
		}
	}
}

// The count stops at FindCountCap and pages past the first FindCountCap matches are empty; the
// copies made in SQL are found by the search like any envelope (the search rows follow the
// envelopes and recipients whatever writes them).
func TestFindEnvelopesCountIsCapped(t *testing.T) {
	t.Parallel()
	store := pgtest.New(t)
	ctx := context.Background()
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	extra := 5
	err = store.ExecInTx(ctx, `
		INSERT INTO envelopes (id, secondary_id, legacy_id, type, status, source, visibility, title, user_id, team_id, document_meta, created_at)
		SELECT 'envelope_cap' || g, 'document_' || g, g, 'DOCUMENT', 'DRAFT', 'DOCUMENT', 'EVERYONE', 'Contrato ' || g, $1, $2, '{}',
			now() - g * interval '1 second'
		FROM generate_series(1, $3) g`, m.UserID, m.TeamID, persistence.FindCountCap+extra)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.ExecInTx(ctx, `INSERT INTO recipients (envelope_id, email, name, role, token_hash)
		VALUES ('envelope_cap7', 'zoe@example.com', 'Zoe', 'SIGNER', '\x00')`); err != nil {
		t.Fatal(err)
	}
	last := persistence.FindCountCap / 10
	for _, tc := range []struct {
		query     string
		page      int
		count     int
		firstID   string
		pageItems int
	}{
		{"", 1, persistence.FindCountCap, "envelope_cap1", 10},
		{"", last, persistence.FindCountCap, fmt.Sprintf("envelope_cap%d", persistence.FindCountCap-9), 10},
		{"", last + 1, persistence.FindCountCap, "", 0},
		{"Contrato 100", 1, 7, "envelope_cap100", 7}, // 100, 1000 to 1005
		{"zoe@", 1, 1, "envelope_cap7", 1},
		{"Zoe", 1, 1, "envelope_cap7", 1},
	} {
		list, count, err := store.FindEnvelopes(ctx, persistence.ScopeOf(m), persistence.FindFilter{Query: tc.query, Page: tc.page, PerPage: 10})
		if err != nil {
			t.Fatal(err)
		}
		if count != tc.count || len(list) != tc.pageItems || (len(list) > 0 && list[0].ID != tc.firstID) {
			first := ""
			if len(list) > 0 {
				first = list[0].ID
			}
			t.Errorf("%q page %d: count %d, %d items from %s; want %d, %d from %s", tc.query, tc.page, count, len(list), first, tc.count, tc.pageItems, tc.firstID)
		}
	}
}
