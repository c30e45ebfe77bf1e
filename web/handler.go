package web

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

var pageTemplate = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"mul10": func(v float64) float64 { return v * 10 },
	"has":   func(list []string, v string) bool { return slices.Contains(list, v) },
}).ParseFS(templateFS, "templates/page.html"))

// Handler serves the signing pages.
type Handler struct {
	Store    *persistence.Store
	Ceremony *ceremony.Service
	// Accounts keeps signer accounts: with it the account pages (/account...) are served and
	// the signing pages link to them. Nil: neither.
	Accounts *account.Service
	Log      *slog.Logger
	// ClientIP is the caller's address as the API sees it (proxy headers trusted or not).
	ClientIP func(*http.Request) string
	// PageCacheBytes bounds the page images kept in memory (DefaultPageCacheBytes when 0).
	PageCacheBytes int64
	// LinkRead is how long a signing link shows the document after it ended
	// (envelope.LinkShowsDocument; SOBRE_LINK_READ_DAYS): 0, not at all.
	LinkRead time.Duration
	// EmbedOrigins may frame every team's embedded page (SOBRE_EMBED_ORIGINS; embed.go).
	EmbedOrigins []string
	// ClaveUnicaOrigin is the origin (scheme://host[:port]) of Clave Única's issuer, where the
	// pages' "continue with Clave Única" form leads: the only place besides Sobre their forms
	// may submit to (the CSP's form-action). Empty: Sobre only.
	ClaveUnicaOrigin string

	imagesOnce sync.Once
	images     *pageImages
}

// Routes mounts the pages: /sign/{token} and its parts, the Clave Única callback, the account
// pages (when Accounts is set) and the pages' static files.
func (h *Handler) Routes(r chi.Router) {
	if h.Accounts != nil {
		h.accountRoutes(r)
	}
	static, _ := fs.Sub(staticFS, "static")
	r.Group(func(r chi.Router) {
		r.Use(h.pageHeaders)
		r.Get("/sign/{token}", h.page)
		r.Get("/sign/{token}/pages/{itemId}/{page}", h.pageImage)
		r.Get("/d/{token}", h.directPage)
		r.Get("/d/{token}/pages/{itemId}/{page}", h.directPageImage)
		r.Post("/sign/{token}/access-code", h.requestCode)
		r.Post("/sign/{token}/access-code/verify", h.verifyCode)
		r.Get("/sign/{token}/claveunica", h.startClaveUnica)
		r.Get("/auth/claveunica/callback", h.claveUnicaCallback)
		r.Get("/auth/claveunica/return/{recipientId}", h.claveUnicaReturn)
	})
	h.embedRoutes(r)
	r.Handle("/static/sign/*", http.StripPrefix("/static/sign/", staticFiles(http.FileServer(http.FS(static)))))
}

// pageHeaders: signing pages are never cached, never leak their URL (which holds the token) as
// a referrer, are never framed, run no script from elsewhere and submit forms only to Sobre and
// Clave Única.
func (h *Handler) pageHeaders(next http.Handler) http.Handler {
	csp := h.csp("'none'")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", csp)
		next.ServeHTTP(w, r)
	})
}

// csp is the pages' Content-Security-Policy, framed by frameAncestors.
func (h *Handler) csp(frameAncestors string) string {
	formAction := "'self'"
	if h.ClaveUnicaOrigin != "" {
		formAction += " " + h.ClaveUnicaOrigin
	}
	return "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; form-action " + formAction +
		"; frame-ancestors " + frameAncestors + "; base-uri 'none'"
}

func staticFiles(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// load resolves the URL token to its recipient and envelope; a DRAFT or deleted envelope has no
// signing page.
func (h *Handler) load(r *http.Request) (envelope.Recipient, *envelope.Envelope, error) {
	token := chi.URLParam(r, "token")
	if len(token) < 16 || len(token) > 128 {
		return envelope.Recipient{}, nil, errNoLink
	}
	rec, err := h.Store.RecipientByToken(r.Context(), token)
	if err != nil {
		return rec, nil, linkNotLoaded(err)
	}
	e, err := h.Store.EnvelopeForRecipient(r.Context(), rec.EnvelopeID)
	if err != nil {
		return rec, nil, linkNotLoaded(err)
	}
	if !e.SigningLinksOpen() {
		return rec, nil, errNoLink
	}
	return rec, e, nil
}

// errNoLink is load's answer for a link that opens nothing: unknown, or its envelope no longer
// signs.
var errNoLink = errors.New("no such signing link")

// linkNotLoaded is load's answer when reading the link failed with err: err itself when the
// store could not be reached (the page says to try again, never that the link is unknown),
// else errNoLink.
func linkNotLoaded(err error) error {
	if envelope.Unreachable(err) {
		return err
	}
	return errNoLink
}

// imageUnavailable answers a page image whose link could not be read because the store could not
// be reached (err): 503 with Retry-After, the reason in plain text.
func imageUnavailable(w http.ResponseWriter, err error) {
	shown, _ := envelope.Shown(err)
	retryAfter(w, shown)
	http.Error(w, shown.Message, http.StatusServiceUnavailable)
}

// notLoaded answers a page whose link load refused with err: a store that could not be reached
// is a 503 page with Retry-After, anything else the link's not-found page.
func (h *Handler) notLoaded(w http.ResponseWriter, r *http.Request, err error) {
	if !envelope.Unreachable(err) {
		h.notFound(w, r)
		return
	}
	h.Log.WarnContext(r.Context(), "signing page: the store cannot be reached", "err", err)
	shown, _ := envelope.Shown(err)
	retryAfter(w, shown)
	t := browserText(r, envelope.LanguageEnglish)
	h.render(w, r, http.StatusServiceUnavailable, &view{T: t, State: "error", Heading: t.Unreachable, Message: t.UnreachableHelp})
}

func (h *Handler) actor(r *http.Request) func(envelope.Recipient) envelope.Actor {
	return func(rec envelope.Recipient) envelope.Actor {
		return envelope.RecipientActor(rec, h.ClientIP(r), r.UserAgent())
	}
}

// showsDocument reports whether rec's link shows the document now (envelope.LinkShowsDocument).
func (h *Handler) showsDocument(e *envelope.Envelope, rec envelope.Recipient) bool {
	shows, _ := envelope.LinkShowsDocument(e, rec, time.Now(), h.LinkRead)
	return shows
}

// render writes the page template with v.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, v *view) {
	embedView(r, v)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := pageTemplate.Execute(w, v); err != nil {
		h.Log.ErrorContext(r.Context(), "render signing page", "err", err)
	}
}

// browserText is the text of a page that knows no envelope: in the language the browser
// prefers first when it is English or Spanish, else in fallback.
func browserText(r *http.Request, fallback envelope.Language) Text {
	switch accept := r.Header.Get("Accept-Language"); {
	case strings.HasPrefix(accept, "es"):
		return textFor(envelope.LanguageSpanish)
	case strings.HasPrefix(accept, "en"):
		return textFor(envelope.LanguageEnglish)
	}
	return textFor(fallback)
}

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	t := browserText(r, envelope.LanguageEnglish)
	// A link replaced by a newer one (its recipient's email or authentication changed) says so,
	// and nothing else: no document, no name.
	if token := chi.URLParam(r, "token"); token != "" && len(token) <= 128 {
		if replaced, err := h.Store.LinkReplaced(r.Context(), token); err == nil && replaced {
			h.render(w, r, http.StatusGone, &view{T: t, State: "notfound", Heading: t.Replaced, Message: t.ReplacedHelp})
			return
		}
	}
	h.render(w, r, http.StatusNotFound, &view{T: t, State: "notfound", Heading: t.NotFound, Message: t.NotFoundHelp})
}

// failure shows an error page for err (a domain error's message; anything else is logged and
// shown as a plain failure), with a link back to the signing page when there is one.
func (h *Handler) failure(w http.ResponseWriter, r *http.Request, t Text, err error, back string) {
	var de *envelope.Error
	status, msg := http.StatusInternalServerError, t.ErrorHeading
	if errors.As(err, &de) {
		status, msg = de.Code.HTTPStatus(), de.Message
	} else {
		h.Log.ErrorContext(r.Context(), "signing page failed", "err", err)
	}
	retryAfter(w, err)
	h.render(w, r, status, &view{T: t, State: "error", Heading: t.ErrorHeading, Message: msg, Back: back})
}

// retryAfter sets Retry-After, in whole seconds, when err says how long to wait.
func retryAfter(w http.ResponseWriter, err error) {
	var de *envelope.Error
	if errors.As(err, &de) && de.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(de.RetryAfterSeconds()))
	}
}

// lockedView is the page of a recipient whose code entry is locked.
func lockedView(t Text, e *envelope.Envelope, rec envelope.Recipient) *view {
	return &view{T: t, State: "locked", Token: rec.Token, Title: e.Title, Heading: t.CodeLocked, Message: t.CodeLockedHelp, Role: rec.Role}
}

// codeRefused answers a code request or verification that was refused: the locked page, or the
// access form again with the reason (and, for a wait, Retry-After); sent says a code was mailed
// before. Anything but a domain error is a failure page.
func (h *Handler) codeRefused(w http.ResponseWriter, r *http.Request, t Text, e *envelope.Envelope, rec envelope.Recipient, err error, sent bool) {
	var de *envelope.Error
	switch {
	case errors.As(err, &de) && de.Code == envelope.CodeAccessCodeLocked:
		h.render(w, r, de.Code.HTTPStatus(), lockedView(t, e, rec))
	case errors.As(err, &de) && de.Code != envelope.CodeInternal:
		v := h.accessView(t, e, rec)
		v.Message, v.CodeSent = de.Message, sent
		if de.Code == envelope.CodeTooManyRequests && de.RetryAfter > 0 {
			v.Message = fmt.Sprintf(t.CodeWait, de.RetryAfterSeconds())
		}
		retryAfter(w, err)
		h.render(w, r, de.Code.HTTPStatus(), v)
	default:
		h.failure(w, r, t, err, "/sign/"+rec.Token)
	}
}

func (h *Handler) requestCode(w http.ResponseWriter, r *http.Request) {
	rec, e, err := h.load(r)
	if err != nil {
		h.notLoaded(w, r, err)
		return
	}
	t := textFor(e.Meta.Language)
	back := signPath(r, rec.Token)
	if _, err := h.begin(w, r, rec); err != nil {
		h.failure(w, r, t, err, back)
		return
	}
	if err := h.Ceremony.RequestCode(r.Context(), r, e, rec, h.actor(r)(rec)); err != nil {
		h.codeRefused(w, r, t, e, rec, err, false)
		return
	}
	http.Redirect(w, r, back+"?sent=1", http.StatusSeeOther)
}

func (h *Handler) verifyCode(w http.ResponseWriter, r *http.Request) {
	rec, e, err := h.load(r)
	if err != nil {
		h.notLoaded(w, r, err)
		return
	}
	t := textFor(e.Meta.Language)
	back := signPath(r, rec.Token)
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := parseTextForm(r); err != nil {
		h.failure(w, r, t, envelope.Errorf(envelope.CodeInvalidBody, "Unreadable form"), back)
		return
	}
	if err := h.Ceremony.VerifyCode(r.Context(), r, rec, r.PostForm.Get("code"), h.actor(r)(rec)); err != nil {
		h.codeRefused(w, r, t, e, rec, err, true)
		return
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

func (h *Handler) startClaveUnica(w http.ResponseWriter, r *http.Request) {
	rec, e, err := h.load(r)
	if err != nil {
		h.notLoaded(w, r, err)
		return
	}
	if rec.Role == envelope.RoleCC {
		h.notFound(w, r)
		return
	}
	t := textFor(e.Meta.Language)
	back := signPath(r, rec.Token)
	if _, err := h.begin(w, r, rec); err != nil {
		h.failure(w, r, t, err, back)
		return
	}
	url, err := h.Ceremony.StartClaveUnica(r.Context(), r, rec)
	if err != nil {
		h.failure(w, r, t, err, back)
		return
	}
	http.Redirect(w, r, url, http.StatusFound)
}

func (h *Handler) claveUnicaCallback(w http.ResponseWriter, r *http.Request) {
	v, err := h.Ceremony.FinishClaveUnica(r.Context(), r, h.actor(r))
	if err != nil {
		// The callback knows no envelope yet: Spanish unless the browser prefers English.
		t := browserText(r, envelope.LanguageSpanish)
		back := ""
		if v.Recipient.Token != "" {
			back = "/sign/" + v.Recipient.Token
		}
		switch envelope.ErrorCode(err) {
		case envelope.CodeVerificationFailed:
			err = envelope.Errorf(envelope.CodeVerificationFailed, "%s", t.ClaveUnicaRefused)
		case envelope.CodeInvalidRUN:
			err = envelope.Errorf(envelope.CodeInvalidRUN, "%s", t.ClaveUnicaBadRUN)
		}
		h.failure(w, r, t, err, back)
		return
	}
	http.Redirect(w, r, v.Next, http.StatusFound)
}

// claveUnicaReturn is where the browser lands after Clave Única (and its logout): back to the
// signing page of the recipient whose ceremony this browser holds.
func (h *Handler) claveUnicaReturn(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(chi.URLParam(r, "recipientId"), 10, 64)
	if err != nil {
		h.notFound(w, r)
		return
	}
	rec, err := h.Store.RecipientForSigning(r.Context(), id)
	if err != nil {
		h.notLoaded(w, r, linkNotLoaded(err))
		return
	}
	if _, ok := h.Ceremony.Session(r.Context(), r, rec); !ok {
		h.notFound(w, r)
		return
	}
	http.Redirect(w, r, "/sign/"+rec.Token, http.StatusSeeOther)
}
