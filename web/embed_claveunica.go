package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/sobre-sign/sobre/envelope"
)

// Clave Única from the embedded page, in a popup window (ceremony/claveunica_popup.go): the
// frame's script asks /embed/sign/{token}/claveunica for a login, opens a popup that posts its
// state to /auth/claveunica/popup, and reloads when the popup, back from Clave Única at
// ceremony.PopupDonePath, tells it so or closes.

// startClaveUnicaPopup answers POST /embed/sign/{token}/claveunica: {"state": …} for the frame's
// script, or {"code", "message"} with the refusal's status.
func (h *Handler) startClaveUnicaPopup(w http.ResponseWriter, r *http.Request) {
	rec, _, ok := h.load(r)
	if !ok || rec.Role == envelope.RoleCC {
		writeJSON(w, http.StatusNotFound, map[string]string{"code": string(envelope.CodeNotFound), "message": "Signing link not found"})
		return
	}
	state, err := h.Ceremony.StartClaveUnicaPopup(r.Context(), r, rec)
	if err != nil {
		var de *envelope.Error
		if !errors.As(err, &de) {
			h.Log.ErrorContext(r.Context(), "embedded page: begin a Clave Única login", "err", err)
			de = envelope.Errorf(envelope.CodeInternal, "internal error")
		}
		writeJSON(w, de.Code.HTTPStatus(), map[string]string{"code": string(de.Code), "message": de.Message})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"state": state})
}

// takeClaveUnicaPopup answers the popup's POST /auth/claveunica/popup (form: state): on to Clave
// Única, or a page saying why not.
func (h *Handler) takeClaveUnicaPopup(w http.ResponseWriter, r *http.Request) {
	t := popupText(r)
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
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
	t := popupText(r)
	et := embedTextFor(t.Lang)
	h.render(w, r, http.StatusOK, &view{T: t, State: "popupdone", Heading: et.PopupDone, Message: et.PopupDoneHelp})
}

// popupText is the language of a popup's page, which knows no envelope: Spanish unless the
// browser prefers English, as the Clave Única callback's.
func popupText(r *http.Request) Text {
	if strings.HasPrefix(r.Header.Get("Accept-Language"), "en") {
		return textFor(envelope.LanguageEnglish)
	}
	return textFor(envelope.LanguageSpanish)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
