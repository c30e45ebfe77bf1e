package web

import (
	"context"
	"encoding/json"
	"html/template"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// The embedded signing page: /embed/sign/{token} is the signing page of /sign/{token}, the same
// handlers, template and scripts, served to be framed by the sites the envelope's team allows
// (README "Embedded signing"). What differs, and only here or behind embedded(r):
//   - its Content-Security-Policy's frame-ancestors lists the allowed origins (the server's,
//     SOBRE_EMBED_ORIGINS, and the team's); with none it is 'none' and the page says it may not
//     be framed;
//   - its ceremony cookie is the partitioned one of ceremony.BeginEmbedded;
//   - it posts events to the parent window (static/embed.js), only to an allowed origin;
//   - it never navigates the frame away: no redirectUrl, links open in a new window.

// embedKey marks a request of the embedded page; its value is the origins that may frame it.
type embedKey struct{}

// embedded reports whether r is a request of the embedded page, and the origins that may frame it.
func embedded(r *http.Request) ([]string, bool) {
	origins, ok := r.Context().Value(embedKey{}).([]string)
	return origins, ok
}

// embedRoutes mounts the embedded page and the forms it posts (the access code).
func (h *Handler) embedRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(h.pageHeaders, h.embedHeaders, h.framable)
		r.Get("/embed/sign/{token}", h.page)
		r.Post("/embed/sign/{token}/access-code", h.requestCode)
		r.Post("/embed/sign/{token}/access-code/verify", h.verifyCode)
		r.Post("/embed/sign/{token}/claveunica", h.startClaveUnicaPopup)
	})
	r.Group(func(r chi.Router) {
		r.Use(h.pageHeaders)
		r.Post("/auth/claveunica/popup", h.takeClaveUnicaPopup)
		r.Get(ceremony.PopupDonePath, h.claveUnicaPopupDone)
	})
}

// embedHeaders lets the origins allowed for the token's team frame the answer
// (frame-ancestors), and marks the request as embedded.
func (h *Handler) embedHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origins := slices.Clone(h.EmbedOrigins)
		if token := chi.URLParam(r, "token"); len(token) >= 16 && len(token) <= 128 {
			team, err := h.Store.EmbedOriginsOfToken(r.Context(), token)
			if err != nil && envelope.Unreachable(err) {
				// Which origins may frame the page is unknown: say so, not that none may.
				h.notLoaded(w, r, err)
				return
			}
			if err != nil {
				h.Log.ErrorContext(r.Context(), "embedded page: read the team's origins", "err", err)
			}
			for _, o := range team {
				if !slices.Contains(origins, o) {
					origins = append(origins, o)
				}
			}
		}
		if origins == nil {
			origins = []string{}
		}
		if len(origins) > 0 {
			w.Header().Set("Content-Security-Policy", h.csp(strings.Join(origins, " ")))
			w.Header().Del("X-Frame-Options")
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), embedKey{}, origins)))
	})
}

// framable answers, when no origin may frame the embedded page, a page that says so (and is
// itself framed by nobody), before anything of the ceremony happens.
func (h *Handler) framable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origins, _ := embedded(r); len(origins) > 0 {
			next.ServeHTTP(w, r)
			return
		}
		t := browserText(r, envelope.LanguageEnglish)
		et := embedTextFor(t.Lang)
		h.render(w, r, http.StatusForbidden, &view{T: t, State: "noembed", Heading: et.Refused, Message: et.RefusedHelp})
	})
}

// signPath is the path of rec's signing page as r reached it: /embed/sign/{token} on the
// embedded page, /sign/{token} otherwise.
func signPath(r *http.Request, token string) string {
	if _, ok := embedded(r); ok {
		return "/embed/sign/" + token
	}
	return "/sign/" + token
}

// begin starts or finds the browser's ceremony with rec: the embedded page's cookie on it
// (ceremony.Service.BeginEmbedded), the usual one elsewhere.
func (h *Handler) begin(w http.ResponseWriter, r *http.Request, rec envelope.Recipient) (persistence.Ceremony, error) {
	if _, ok := embedded(r); ok {
		return h.Ceremony.BeginEmbedded(r.Context(), w, r, rec)
	}
	return h.Ceremony.Begin(r.Context(), w, r, rec)
}

// embedView fills what the embedded page shows beyond the signing page: the origins its script
// may post to and the members of its completion events; its link back stays in the frame.
func embedView(r *http.Request, v *view) {
	origins, ok := embedded(r)
	v.SignBase = "/sign/"
	if !ok {
		return
	}
	v.Embed, v.SignBase = true, "/embed/sign/"
	meta, _ := json.Marshal(map[string]any{"origins": origins, "state": v.State, "event": v.embedEvent,
		"popupBlocked": embedTextFor(v.T.Lang).PopupBlocked})
	v.EmbedMeta = template.JS(meta)
	if strings.HasPrefix(v.Back, "/sign/") {
		v.Back = "/embed" + v.Back
	}
}

// completionEvent is the payload of the document-completed and document-rejected events:
// Documenso's members.
func completionEvent(e *envelope.Envelope, rec envelope.Recipient) map[string]any {
	return map[string]any{"token": rec.Token, "documentId": e.DocumentID(), "envelopeId": e.ID, "recipientId": rec.ID}
}

// EmbedText is what only the embedded page says, in one language.
type EmbedText struct {
	Refused, RefusedHelp     string
	PopupDone, PopupDoneHelp string
	PopupBlocked             string
}

var embedTexts = map[string]EmbedText{
	"en": {Refused: "This page cannot be embedded",
		RefusedHelp: "No site may show this signing page inside its own: its team allows none. Open the signing link from your email instead.",
		PopupDone:   "ClaveÚnica is done", PopupDoneHelp: "You can close this window and go back to the document.",
		PopupBlocked: "Your browser blocked the ClaveÚnica window: allow pop-up windows for this page and try again."},
	"es": {Refused: "Esta página no se puede incrustar",
		RefusedHelp: "Ningún sitio puede mostrar esta página de firma dentro de la suya: su equipo no lo permite. Abra el enlace de firma de su correo.",
		PopupDone:   "ClaveÚnica terminó", PopupDoneHelp: "Puede cerrar esta ventana y volver al documento.",
		PopupBlocked: "Su navegador bloqueó la ventana de ClaveÚnica: permita ventanas emergentes para esta página e intente de nuevo."},
}

func embedTextFor(lang string) EmbedText {
	if t, ok := embedTexts[lang]; ok {
		return t
	}
	return embedTexts["en"]
}
