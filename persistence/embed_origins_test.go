package persistence_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

func TestTeamEmbedOrigins(t *testing.T) {
	ctx := context.Background()
	store := pgtest.New(t)
	acme, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	other, err := store.EnsureMember(ctx, "Other", "olga@other.cl", "Olga", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	read := func(team int64) []string {
		t.Helper()
		got, err := store.TeamEmbedOrigins(ctx, team)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := read(acme.TeamID); len(got) != 0 {
		t.Fatalf("a team that set none has %q", got)
	}
	for _, want := range [][]string{{"https://a.example.com", "https://b.example.com"}, {"https://c.example.com"}, {}} {
		if err := store.SetTeamEmbedOrigins(ctx, acme.TeamID, want); err != nil {
			t.Fatal(err)
		}
		if got := read(acme.TeamID); !reflect.DeepEqual(got, want) {
			t.Errorf("after setting %q, read %q", want, got)
		}
	}
	if err := store.SetTeamEmbedOrigins(ctx, acme.TeamID, []string{"https://a.example.com"}); err != nil {
		t.Fatal(err)
	}
	if got := read(other.TeamID); len(got) != 0 {
		t.Errorf("another team reads %q", got)
	}
}
