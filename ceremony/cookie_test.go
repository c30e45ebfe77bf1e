package ceremony_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/auth/claveunicadev"
	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
)

// Under HTTPS the ceremony cookie is __Host-sobre_ceremony_<id>, Secure, Path=/ and without
// Domain (whatever the case of the scheme of SOBRE_PUBLIC_URL), and a cookie of the old name (which a sibling host could have set) is not a session;
// on plain HTTP (development) it keeps its plain name and is not Secure. A Clave Única login
// completes with either.
func TestCeremonyCookie(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, _, rec := pending(t, nil, envelope.FieldRUTFirmado)
	actor := func(r envelope.Recipient) envelope.Actor {
		return envelope.RecipientActor(r, "127.0.0.1", "test")
	}
	for _, c := range []struct {
		publicURL, name string
		secure          bool
	}{
		{"https://firma.example.cl", "__Host-sobre_ceremony_" + strconv.FormatInt(rec.ID, 10), true},
		{"HTTPS://firma.example.cl", "__Host-sobre_ceremony_" + strconv.FormatInt(rec.ID, 10), true}, // schemes are case-insensitive
		{"http://127.0.0.1:8080", "sobre_ceremony_" + strconv.FormatInt(rec.ID, 10), false},
	} {
		t.Run(c.publicURL, func(t *testing.T) {
			s := &ceremony.Service{Store: store, ClaveUnica: localClaveUnica(t, claveunicadev.Options{}), PublicURL: c.publicURL, Log: slog.New(slog.DiscardHandler)}
			var b browser
			w := httptest.NewRecorder()
			if _, err := s.Begin(ctx, w, b.request(), rec); err != nil {
				t.Fatal(err)
			}
			set := w.Result().Cookies()
			if len(set) != 1 {
				t.Fatalf("cookies set: %v", set)
			}
			ck := set[0]
			if ck.Name != c.name || ck.Secure != c.secure || ck.Path != "/" || ck.Domain != "" || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode {
				t.Fatalf("cookie %s", ck)
			}
			b.cookies = set
			if _, ok := s.Session(ctx, b.request(), rec); !ok {
				t.Fatal("the cookie set is not read back")
			}
			if c.secure {
				renamed := browser{cookies: []*http.Cookie{{Name: strings.TrimPrefix(ck.Name, "__Host-"), Value: ck.Value}}}
				if _, ok := s.Session(ctx, renamed.request(), rec); ok {
					t.Error("under HTTPS a cookie without the __Host- prefix is a session")
				}
			}
			authURL, err := s.StartClaveUnica(ctx, b.request(), rec)
			if err != nil {
				t.Fatal(err)
			}
			v, err := s.FinishClaveUnica(ctx, b.callback(loginAt(t, authURL, "44444444-4")), actor)
			if err != nil || v.Person.RUN != "44444444-4" || !strings.HasPrefix(v.Next, c.publicURL+"/auth/claveunica/return/") {
				t.Fatalf("Clave Única login: %+v, %v", v, err)
			}
		})
	}
}
