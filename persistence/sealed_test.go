package persistence_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// A retried seal replaces what an earlier attempt stored: one row per item, the newest data.
func TestSaveSealedKeepsOneRowPerItem(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	ctx := context.Background()
	store, err := persistence.Open(ctx, url, persistence.WithKeyring(pgtest.Keyring(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	m, err := store.EnsureMember(ctx, "Acme", "ana@acme.cl", "Ana", envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	page := []persistence.PageSize{{Width: 595, Height: 842}}
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Contrato", Meta: envelope.DefaultMeta("")},
		Items: []persistence.Document{
			{Title: "a.pdf", Data: []byte("%PDF a"), Pages: page},
			{Title: "b.pdf", Data: []byte("%PDF b"), Pages: page},
		},
		Recipients: []persistence.NewRecipient{{Recipient: envelope.Recipient{Email: "jose@example.cl", Name: "José Ñúñez", Role: envelope.RoleSigner}}},
	}
	var id string
	if err := store.InTx(ctx, func(tx *persistence.Tx) error {
		var err error
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.MemberActor(m, "203.0.113.7", "test"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	src, err := store.LoadSealSource(ctx, id)
	if err != nil || len(src.Items) != 2 || src.Items[0].Title != "a.pdf" || len(src.AuditHash) != 64 {
		t.Fatalf("seal source: %+v, %v", src, err)
	}
	if want := sha256.Sum256([]byte("%PDF a")); src.Items[0].OriginalSHA256 != hex.EncodeToString(want[:]) {
		t.Errorf("original SHA-256 %s", src.Items[0].OriginalSHA256)
	}
	a, b := src.Items[0].ID, src.Items[1].ID

	var notFound *envelope.Error
	if _, err := store.SealedItemFile(ctx, a); !errors.As(err, &notFound) || notFound.Code != envelope.CodeNotFound {
		t.Fatalf("before the seal: %v", err)
	}
	if _, err := store.SealedCertificate(ctx, id); !errors.As(err, &notFound) || notFound.Code != envelope.CodeNotFound {
		t.Fatalf("certificate before the seal: %v", err)
	}
	// A seal that stored only one item is not complete.
	if err := store.SaveSealed(ctx, id, []persistence.SealedItem{{ItemID: a, Data: []byte("first a")}}, []byte("first cert")); err != nil {
		t.Fatal(err)
	}
	if ok, err := store.Sealed(ctx, id); err != nil || ok {
		t.Fatalf("half sealed reads as sealed %v: %v", ok, err)
	}
	if err := store.SaveSealed(ctx, id, []persistence.SealedItem{{ItemID: a, Data: []byte("second a")}, {ItemID: b, Data: []byte("second b")}}, []byte("second cert")); err != nil {
		t.Fatal(err)
	}
	if ok, err := store.Sealed(ctx, id); err != nil || !ok {
		t.Fatalf("sealed %v: %v", ok, err)
	}
	files, err := store.SealedFiles(ctx, id)
	if err != nil || len(files) != 2 || string(files[0].Data) != "second a" || files[1].Title != "b.pdf" || string(files[1].Data) != "second b" {
		t.Fatalf("sealed files %+v: %v", files, err)
	}
	if data, err := store.SealedItemFile(ctx, a); err != nil || string(data) != "second a" {
		t.Fatalf("item a: %q %v", data, err)
	}
	if data, err := store.SealedCertificate(ctx, id); err != nil || string(data) != "second cert" {
		t.Fatalf("certificate: %q %v", data, err)
	}

	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var rows int
	var sum []byte
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM sealed_items WHERE envelope_id = $1`, id).Scan(&rows); err != nil || rows != 2 {
		t.Fatalf("%d sealed rows: %v", rows, err)
	}
	if err := conn.QueryRow(ctx, `SELECT sha256 FROM sealed_items WHERE item_id = $1`, a).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if want := sha256.Sum256([]byte("second a")); !bytes.Equal(sum, want[:]) {
		t.Errorf("stored sha256 %x is not the data's", sum)
	}
}
