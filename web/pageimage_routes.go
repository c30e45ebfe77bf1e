package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/pdf"
)

// pageImage serves one page of an item as a PNG, for a browser that may see the document, while
// the link shows it (410 Gone once it ended more than LinkRead ago).
func (h *Handler) pageImage(w http.ResponseWriter, r *http.Request) {
	rec, e, err := h.load(r)
	if err != nil && envelope.Unreachable(err) {
		imageUnavailable(w, err)
		return
	}
	if err != nil || rec.Role == envelope.RoleCC {
		http.NotFound(w, r)
		return
	}
	if !h.showsDocument(e, rec) {
		http.Error(w, envelope.ErrLinkEnded().Message, http.StatusGone)
		return
	}
	st, err := h.Ceremony.StatusOf(r.Context(), r, e, rec)
	if err == nil {
		err = st.CheckAccess()
	}
	if err != nil {
		// The refusal's code leads the plain-text answer (ACCOUNT_REQUIRED: …), as the JSON
		// routes give it in their body.
		var de *envelope.Error
		if !errors.As(err, &de) {
			h.Log.ErrorContext(r.Context(), "page image: read the ceremony", "err", err)
			http.Error(w, "cannot serve the page", http.StatusInternalServerError)
			return
		}
		http.Error(w, string(de.Code)+": "+de.Message, de.Code.HTTPStatus())
		return
	}
	h.serveImage(w, r, e.ID)
}

// serveImage serves the page of the URL ({itemId}, {page}.png, ?w=) of an item of envelope
// envelopeID as a PNG.
func (h *Handler) serveImage(w http.ResponseWriter, r *http.Request, envelopeID string) {
	page, err := strconv.Atoi(strings.TrimSuffix(chi.URLParam(r, "page"), ".png"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	width := 1000
	if v, err := strconv.Atoi(r.URL.Query().Get("w")); err == nil && v >= 200 && v <= pdf.MaxRenderWidth {
		width = roundWidth(v, pdf.MaxRenderWidth)
	}
	dataID, err := h.Store.ItemDataID(r.Context(), envelopeID, chi.URLParam(r, "itemId"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	h.imagesOnce.Do(func() { h.images = newPageImages(h.PageCacheBytes) })
	img, err := h.images.get(r.Context(), pageKey{dataID: dataID, page: page, width: width}, func(ctx context.Context) ([]byte, error) {
		data, err := h.Store.DocumentData(ctx, dataID)
		if err != nil {
			return nil, err
		}
		return pdf.RenderPage(data, page, width)
	})
	if errors.Is(err, pdf.ErrNoSuchPage) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		h.Log.ErrorContext(r.Context(), "render page", "envelope", envelopeID, "err", err)
		http.Error(w, "cannot render the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(img)))
	_, _ = w.Write(img)
}
