package web

import (
	"encoding/json"
	"html/template"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// loadDirect resolves the URL's direct-link token to its link and template; ok is false for an
// unknown token (or a deleted template's).
func (h *Handler) loadDirect(r *http.Request) (envelope.DirectLink, *envelope.Envelope, error) {
	token := chi.URLParam(r, "token")
	if len(token) < 16 || len(token) > 128 {
		return envelope.DirectLink{}, nil, errNoLink
	}
	link, tpl, err := h.Store.DirectLinkByToken(r.Context(), token)
	if err != nil {
		if envelope.ErrorCode(err) != envelope.CodeNotFound {
			h.Log.ErrorContext(r.Context(), "direct link page: read the link", "err", err)
		}
		return link, nil, linkNotLoaded(err)
	}
	return link, tpl, nil
}

// directPage answers GET /d/{token}, a template's direct link: the visitor gives their name and
// email and fills and signs the direct recipient's fields on the template's document, and the
// page's script submits them all at once (POST /api/v2/direct/{token}, with the page URL's
// externalId). An unknown link is 404; a disabled one, or one whose template cannot be signed
// as it is (envelope.CheckDirectUse), 410 with a page that says so and shows nothing of the
// template.
func (h *Handler) directPage(w http.ResponseWriter, r *http.Request) {
	link, tpl, err := h.loadDirect(r)
	if err != nil {
		h.notLoaded(w, r, err)
		return
	}
	t, d := textFor(tpl.Meta.Language), directTextFor(tpl.Meta.Language)
	if err := envelope.CheckDirectUse(tpl, link); err != nil {
		v := &view{T: t, D: d, State: "notfound", Heading: d.NotReady, Message: d.NotReadyHelp}
		if !link.Enabled {
			v.Heading, v.Message = d.Disabled, d.DisabledHelp
		}
		h.render(w, r, http.StatusGone, v)
		return
	}
	rec := tpl.Recipient(link.RecipientID)
	v := &view{T: t, D: d, State: "document", Direct: true, Title: tpl.Title, OwnerName: tpl.User.Name, Role: rec.Role}
	if v.OwnerName == "" {
		v.OwnerName = tpl.User.Email
	}
	v.Heading, v.Action = roleAction(t, rec.Role)
	if err := h.documentItems(r, v, tpl, *rec, ownFields(tpl.Fields, rec.ID), "/d/"+link.Token, "", nil); err != nil {
		h.failure(w, r, t, err, "")
		return
	}
	meta, err := json.Marshal(map[string]any{
		"text":   scriptTexts(t),
		"direct": map[string]any{"submit": "/api/v2/direct/" + link.Token, "templateUpdatedAt": tpl.UpdatedAt},
	})
	if err != nil {
		h.failure(w, r, t, err, "")
		return
	}
	v.Meta = template.JS(meta)
	h.render(w, r, http.StatusOK, v)
}

// directPageImage serves a page of the template's document to a visitor of its direct link
// while the link's page shows it (envelope.CheckDirectUse); otherwise 404.
func (h *Handler) directPageImage(w http.ResponseWriter, r *http.Request) {
	link, tpl, err := h.loadDirect(r)
	if err != nil && envelope.Unreachable(err) {
		imageUnavailable(w, err)
		return
	}
	if err != nil || envelope.CheckDirectUse(tpl, link) != nil {
		http.NotFound(w, r)
		return
	}
	h.serveImage(w, r, tpl.ID)
}

// ownFields are the fields of recipient recipientID: all a visitor fills on a direct link.
func ownFields(fields []envelope.Field, recipientID int64) []envelope.Field {
	var own []envelope.Field
	for _, f := range fields {
		if f.RecipientID == recipientID {
			own = append(own, f)
		}
	}
	return own
}
