package web

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

func TestLinkAttachments(t *testing.T) {
	got := linkAttachments([]envelope.Attachment{
		{Type: envelope.AttachmentTypeLink, Label: "Anexo A", Data: "https://docs.example.com/anexo-a.pdf"},
		{Type: envelope.AttachmentTypeLink, Label: "  ", Data: "http://intranet.example.com/x"},
		{Type: envelope.AttachmentTypeLink, Label: "script", Data: "javascript:alert(1)"},
		{Type: envelope.AttachmentTypeLink, Label: "data", Data: "data:text/html,<b>x</b>"},
		{Type: envelope.AttachmentTypeLink, Label: "relative", Data: "/sign/elsewhere"},
		{Type: "file", Label: "other type", Data: "https://docs.example.com/b.pdf"},
	})
	want := []attachmentView{{Label: "Anexo A", URL: "https://docs.example.com/anexo-a.pdf"}, {Label: "intranet.example.com", URL: "http://intranet.example.com/x"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("linkAttachments = %+v, want %+v", got, want)
	}
}

// The signing page and the embedded page list the envelope's link attachments, each opening in
// a new tab without a referrer or an opener, in the envelope's language.
func TestSigningPageAttachments(t *testing.T) {
	ctx := context.Background()
	store, dbURL := pgtest.NewWithURL(t)
	rec := pendingFor(t, store, fmt.Sprintf("ana-%d@example.cl", time.Now().UnixNano()), envelope.RecipientAuthOptions{})
	err := store.InTx(ctx, func(tx *persistence.Tx) error {
		_, err := tx.AddAttachment(ctx, rec.EnvelopeID, envelope.Attachment{Type: envelope.AttachmentTypeLink, Label: "Anexo <A>", Data: "https://docs.example.com/anexo-a.pdf?v=1&x=2"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := embedServer(t, store, "https://app.example.com")
	link := `<a href="https://docs.example.com/anexo-a.pdf?v=1&amp;x=2" target="_blank" rel="noopener noreferrer">Anexo &lt;A&gt;`
	for _, path := range []string{"/sign/" + rec.Token, "/embed/sign/" + rec.Token} {
		a := newVisitor(t, srv).get(path)
		if !strings.Contains(a.body, link) || !strings.Contains(a.body, ">Attachments</h2>") || !strings.Contains(a.body, "(opens in a new tab)") {
			t.Errorf("%s does not list the attachment as a new-tab link:\n%s", path, a.body)
		}
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE envelopes SET document_meta = jsonb_set(document_meta, '{language}', '"es"') WHERE id = $1`, rec.EnvelopeID); err != nil {
		t.Fatal(err)
	}
	a := newVisitor(t, srv).get("/sign/" + rec.Token)
	if !strings.Contains(a.body, link) || !strings.Contains(a.body, ">Adjuntos</h2>") || !strings.Contains(a.body, "(se abre en una pestaña nueva)") {
		t.Errorf("the Spanish page does not list the attachment:\n%s", a.body)
	}
}
