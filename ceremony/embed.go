package ceremony

import (
	"context"
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// BeginEmbedded is Begin for the embedded signing page (/embed/sign/{token}), which another
// site frames. A SameSite=Lax cookie is not sent in a frame on another site, so its cookie is
// SameSite=None; Secure; Partitioned (CHIPS): the browser sends it only to Sobre, only in frames
// under the top-level site that framed the page (a separate jar per top-level site, so no other
// site's frame or page carries it), and keeps it when third-party cookies are blocked. It stays
// HttpOnly, and the session secret never enters a URL. Browsers take a Secure cookie over plain
// HTTP from localhost and 127.0.0.1 only; production is HTTPS.
func (s *Service) BeginEmbedded(ctx context.Context, w http.ResponseWriter, r *http.Request, rec envelope.Recipient) (persistence.Ceremony, error) {
	return s.begin(ctx, w, r, rec, true)
}

// embeddedCookie makes ck the cookie of an embedded ceremony (BeginEmbedded).
func embeddedCookie(ck *http.Cookie) {
	ck.Secure, ck.SameSite, ck.Partitioned = true, http.SameSiteNoneMode, true
}
