package web

import (
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
)

// Clave Única from the embedded page, in a popup window (ceremony/claveunica_popup.go): the
// frame's script asks /embed/sign/{token}/claveunica for a login, opens a popup that posts its
// state to /auth/claveunica/popup, and reloads when the popup, back from Clave Única at
// ceremony.PopupDonePath, tells it so or closes.

// startClaveUnicaPopup answers POST /embed/sign/{token}/claveunica: {"state": …} for the frame's
// script, or the refusal as the API answers one ({message, code, issues}).
func (h *Handler) startClaveUnicaPopup(w http.ResponseWriter, r *http.Request) {
	rec, _, err := h.load(r)
	if err != nil && envelope.Unreachable(err) {
		h.accountJSONError(w, r, err)
		return
	}
	if err != nil || rec.Role == envelope.RoleCC {
		h.accountJSONError(w, r, envelope.NotFound("Signing link"))
		return
	}
	state, err := h.Ceremony.StartClaveUnicaPopup(r.Context(), r, rec)
	if err != nil {
		h.accountJSONError(w, r, err)
		return
	}
	writeAccountJSON(w, http.StatusOK, map[string]string{"state": state})
}

// takeClaveUnicaPopup answers the popup's POST /auth/claveunica/popup (form: state): on to Clave
// Única, or a page saying why not.
func (h *Handler) takeClaveUnicaPopup(w http.ResponseWriter, r *http.Request) {
	t := browserText(r, envelope.LanguageSpanish)
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := parseTextForm(r); err != nil {
		h.failure(w, r, t, envelope.Errorf(envelope.CodeInvalidBody, "Unreadable form"), "")
		return
	}
	u, err := h.Ceremony.TakeClaveUnicaPopup(r.Context(), w, r, r.PostForm.Get("state"))
	if err != nil {
		h.failure(w, r, t, err, "")
		return
	}
	http.Redirect(w, r, u, http.StatusSeeOther)
}

// claveUnicaPopupDone answers ceremony.PopupDonePath: a page whose script tells the frame that
// opened the popup, and closes the popup.
func (h *Handler) claveUnicaPopupDone(w http.ResponseWriter, r *http.Request) {
	t := browserText(r, envelope.LanguageSpanish)
	et := embedTextFor(t.Lang)
	h.render(w, r, http.StatusOK, &view{T: t, State: "popupdone", Heading: et.PopupDone, Message: et.PopupDoneHelp})
}
