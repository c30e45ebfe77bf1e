package web

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// view is what the page template shows. State picks the page: document, access, account,
// locked, waiting, expired, rejected, cancelled, completed, signed, cc, unavailable, notfound or error.
type view struct {
	T       Text
	D       directText // a direct link's page: its words
	Direct  bool       // a direct link's page (/d/{token}): the visitor's details, no rejection
	State   string
	Heading string
	Message string
	Notice  string // a second paragraph: that the link no longer shows the document
	Back    string
	Token   string

	Title     string
	OwnerName string
	Role      envelope.Role
	Action    string // the completing button's name: Sign, Approve, Mark as viewed, Complete

	Items      []itemView
	Fields     []fieldView
	Signature  bool // the recipient has signature fields
	Draw, Type bool
	Upload     bool
	Meta       template.JS // JSON for the script: token, texts, fields

	NeedsClaveUnica bool
	ClaveUnicaRUN   string
	ClaveUnicaName  string
	NeedsFEA        bool
	FEAAvailable    bool
	FEAVerified     bool
	FEARUT          string
	Digest          string

	CodeSent bool

	// Account is the signer-account panel (document state) or the sign-in links (account
	// state); nil when the recipient's methods need no account.
	Account *accountPanel
	// ActionPending: the recipient must prove one of the action methods on this page before
	// completing, and has not.
	ActionPending bool

	// Embed: the page is the embedded one (embed.go); EmbedMeta is JSON for its script: the
	// origins it may post to and embedEvent, the members of its completion events.
	Embed      bool
	EmbedMeta  template.JS
	embedEvent map[string]any
	SignBase   string // where the page's forms post: /sign/ or /embed/sign/, then the token

	// Attachments are the envelope's link attachments (linkAttachments), AttachText their words.
	Attachments []attachmentView
	AttachText  AttachmentText
}

type itemView struct {
	ID    string
	Title string
	Pages []pageView
}

type pageView struct {
	Number int
	URL    string
	Ratio  float64 // height / width, in percent, so the page keeps its shape before the image loads
	Fields []fieldView
}

type fieldView struct {
	ID       int64
	Type     envelope.FieldType
	Label    string
	Page     int
	X, Y     float64
	W, H     float64
	Value    string
	Inserted bool
	Required bool
	ReadOnly bool
	Auto     string // why the recipient does not fill it (DATE, RUT_FIRMADO)
	Options  []string
	Checked  []string // CHECKBOX values picked
	Input    string   // text, email or number for plain inputs
	// Elsewhere: its value was given in another browser, and this one must fill or clear it
	// again before completing (envelope.FilledElsewhere); it is shown empty.
	Elsewhere bool
}

// page answers GET /sign/{token}: the ceremony begins (the token is exchanged for a session
// cookie) and the page fitting the recipient's state is shown.
func (h *Handler) page(w http.ResponseWriter, r *http.Request) {
	rec, e, err := h.load(r)
	if err != nil {
		h.notLoaded(w, r, err)
		return
	}
	t := textFor(e.Meta.Language)
	v := &view{T: t, Token: rec.Token, Title: e.Title, OwnerName: e.User.Name, Role: rec.Role}
	if v.OwnerName == "" {
		v.OwnerName = e.User.Email
	}
	if rec.Role == envelope.RoleCC {
		v.State, v.Heading, v.Message = "cc", t.CCHeading, t.CCHelp
		h.render(w, r, http.StatusOK, v)
		return
	}
	if done, ok := h.finished(w, r, t, e, rec, v); ok {
		if done {
			if !h.showsDocument(e, rec) {
				v.Notice = fmt.Sprintf(t.LinkEnded, int(h.LinkRead/(24*time.Hour)))
			}
			h.render(w, r, http.StatusOK, v)
		}
		return
	}
	if _, err := h.begin(w, r, rec); err != nil {
		h.failure(w, r, t, err, "")
		return
	}
	st, err := h.Ceremony.StatusOf(r.Context(), r, e, rec)
	if err != nil {
		h.failure(w, r, t, err, "")
		return
	}
	// The server lost a method this recipient needs after the envelope was sent (Clave Única
	// or FAO_HASH configured no longer): say so rather than show a form that cannot succeed.
	if h.Ceremony.CheckSignable(st.Requirements) != nil {
		v.State, v.Heading, v.Message = "unavailable", t.Unavailable, t.UnavailableHelp
		h.render(w, r, http.StatusOK, v)
		return
	}
	if err := st.CheckAccess(); err != nil {
		if code := envelope.ErrorCode(err); isAccountRefusal(code) {
			h.render(w, r, code.HTTPStatus(), accountAccessView(t, e, rec, h.accountFacts(r, st, rec), code))
			return
		}
		locked, err := h.Ceremony.CodeEntryLocked(r.Context(), rec)
		if err != nil {
			h.failure(w, r, t, err, "")
			return
		}
		if locked {
			h.render(w, r, http.StatusForbidden, lockedView(t, e, rec))
			return
		}
		v = h.accessView(t, e, rec)
		v.CodeSent = r.URL.Query().Get("sent") == "1"
		h.render(w, r, http.StatusOK, v)
		return
	}
	if err := envelope.Turn(e.Meta.SigningOrder, envelope.Participants(e.Recipients), rec.ID, time.Now()); err != nil {
		if envelope.ErrorCode(err) == envelope.CodeRecipientOutOfTurn {
			v.State, v.Heading, v.Message = "waiting", t.Waiting, t.WaitingHelp
			h.render(w, r, http.StatusOK, v)
			return
		}
	}
	if err := h.Store.MarkOpened(r.Context(), rec, st.SessionID(), h.actor(r)(rec)); err != nil {
		h.failure(w, r, t, err, "")
		return
	}
	if err := h.documentView(r, v, e, rec, st); err != nil {
		h.failure(w, r, t, err, "")
		return
	}
	v.embedEvent = completionEvent(e, rec)
	h.render(w, r, http.StatusOK, v)
}

// finished fills v for an envelope or recipient that is past acting: completed (or its
// redirectUrl), rejected, cancelled, signed, expired. It reports whether it applied, and whether
// a page remains to render (false after a redirect).
func (h *Handler) finished(w http.ResponseWriter, r *http.Request, t Text, e *envelope.Envelope, rec envelope.Recipient, v *view) (render, applied bool) {
	switch {
	case e.Status == envelope.StatusCompleted || (rec.SigningStatus == envelope.SigningStatusSigned && e.Status == envelope.StatusPending):
		if _, framed := embedded(r); !framed && e.Meta.RedirectURL != nil && *e.Meta.RedirectURL != "" {
			http.Redirect(w, r, *e.Meta.RedirectURL, http.StatusSeeOther)
			return false, true
		}
		v.State, v.Heading, v.Message = "completed", t.Completed, t.CompletedHelp
		if e.Status == envelope.StatusPending {
			v.Message = t.SignedWaiting
		}
	case rec.SigningStatus == envelope.SigningStatusRejected:
		v.State, v.Heading, v.Message = "rejected", t.Rejected, t.YouRejected
	case e.Status == envelope.StatusRejected:
		v.State, v.Heading, v.Message = "rejected", t.Rejected, t.RejectedHelp
	case e.Status == envelope.StatusCancelled:
		v.State, v.Heading, v.Message = "cancelled", t.Cancelled, t.CancelledHelp
	case envelope.ParticipantOf(rec).Overdue(time.Now()):
		v.State, v.Heading, v.Message = "expired", t.Expired, t.ExpiredHelp
	default:
		return false, false
	}
	return true, true
}

func (h *Handler) accessView(t Text, e *envelope.Envelope, rec envelope.Recipient) *view {
	return &view{T: t, State: "access", Token: rec.Token, Title: e.Title, Heading: t.AccessHeading, Role: rec.Role}
}

// documentView fills v with the document, the fields the recipient fills (its own, and an
// assistant's for the recipients after it: envelope.FieldsToFill) and the proofs to give.
func (h *Handler) documentView(r *http.Request, v *view, e *envelope.Envelope, rec envelope.Recipient, st ceremony.Status) error {
	t := v.T
	v.State = "document"
	v.Heading, v.Action = roleAction(t, rec.Role)
	if rec.Role == envelope.RoleAssistant {
		v.T.YourFields = t.AssistFields
	}
	fields := envelope.FieldsToFill(e.Meta.SigningOrder, envelope.Participants(e.Recipients), rec.ID, e.Fields)
	elsewhere := envelope.FilledElsewhere(st.Requirements, rec, st.SessionID(), e.Fields)
	if err := h.documentItems(r, v, e, rec, fields, "/sign/"+rec.Token, st.ClaveUnicaRUN, elsewhere); err != nil {
		return err
	}
	v.NeedsClaveUnica = st.ClaveUnica()
	v.ClaveUnicaRUN, v.ClaveUnicaName = st.ClaveUnicaRUN, st.ClaveUnicaName
	v.NeedsFEA, v.FEAAvailable = st.FAOHash(), h.Ceremony.FEA != nil
	v.Digest = st.Digest
	if st.FEA != nil && st.FEA.Digest == st.Digest {
		v.FEAVerified, v.FEARUT = true, st.FEA.RUT
	}
	if f := h.accountFacts(r, st, rec); len(f.Methods) > 0 && h.Accounts != nil {
		v.Account = newAccountPanel(t, f, rec.Token)
		// Any one method completes: another one proved (Clave Única, FAO_HASH) is as good.
		other := (st.Offers(envelope.ActionAuthClaveUnica) && v.ClaveUnicaRUN != "") || (st.Offers(envelope.ActionAuthFAOHash) && v.FEAVerified)
		v.ActionPending = !v.Account.Proved && !other
	}
	meta, err := json.Marshal(map[string]any{
		"token": rec.Token,
		"text":  scriptTexts(t),
	})
	if err != nil {
		return err
	}
	v.Meta = template.JS(meta)
	return nil
}

// roleAction is the page's heading and the completing button's name for a recipient of role.
func roleAction(t Text, role envelope.Role) (heading, action string) {
	switch role {
	case envelope.RoleApprover:
		return t.TitleApprove, t.Approve
	case envelope.RoleViewer:
		return t.TitleView, t.MarkViewed
	case envelope.RoleAssistant:
		return t.TitleAssist, t.Complete
	default:
		return t.TitleSign, t.Sign
	}
}

// scriptTexts are the words the page's script shows.
func scriptTexts(t Text) map[string]string {
	return map[string]string{"saving": t.Saving, "saved": t.Saved, "working": t.Working,
		"errorHeading": t.ErrorHeading, "fillRequired": t.FillRequired, "proved": t.Proved, "authWrong": t.AuthWrong, "accountLocked": t.AccountLocked,
		"passkeyCancelled": t.PasskeyCancelled, "passkeysUnsupported": t.PasskeysUnsupported}
}

// documentItems fills v with how the signature may be given, the envelope's link attachments,
// the document's items and pages (their images under base, the page's path) and on them fields,
// those recipient rec fills, each labelled with whose it is; verifiedRUN, when a Clave Única
// login gave one, is what its RUT_FIRMADO fields will hold. The fields listed in elsewhere
// (envelope.FilledElsewhere) are shown empty, saying that their value was given in another
// browser: this one's completion clears those left so, and seals only what it was shown.
func (h *Handler) documentItems(r *http.Request, v *view, e *envelope.Envelope, rec envelope.Recipient, fields []envelope.Field, base, verifiedRUN string, elsewhere []int64) error {
	t := v.T
	v.Attachments, v.AttachText = linkAttachments(e.Attachments), attachmentTextFor(t.Lang)
	v.Draw, v.Type, v.Upload = e.Meta.DrawSignatureEnabled, e.Meta.TypedSignatureEnabled, e.Meta.UploadSignatureEnabled
	if !v.Draw && !v.Type && !v.Upload {
		v.Draw = true
	}
	var pages []persistence.ItemPages
	err := h.Store.InTx(r.Context(), func(tx *persistence.Tx) error {
		var err error
		pages, err = tx.ItemPages(r.Context(), e.ID)
		return err
	})
	if err != nil {
		return err
	}
	byItem := map[string][]fieldView{}
	for _, f := range fields {
		fv := newFieldView(t, f, e.Meta)
		fv.Label += whose(t, e, rec, f)
		if f.Type == envelope.FieldRUTFirmado && verifiedRUN != "" {
			// What this browser's completion will fill it with: the RUN it verified.
			fv.Value, fv.Inserted = verifiedRUN, true
		}
		if slices.Contains(elsewhere, f.ID) {
			fv.Value, fv.Inserted, fv.Checked, fv.Elsewhere = "", false, nil, true
		}
		if f.Type == envelope.FieldSignature || f.Type == envelope.FieldFreeSignature {
			v.Signature = true
		}
		byItem[f.EnvelopeItemID] = append(byItem[f.EnvelopeItemID], fv)
		v.Fields = append(v.Fields, fv)
	}
	slices.SortStableFunc(v.Fields, func(a, b fieldView) int {
		if a.Page != b.Page {
			return a.Page - b.Page
		}
		if a.Y != b.Y {
			if a.Y < b.Y {
				return -1
			}
			return 1
		}
		return int(a.ID - b.ID)
	})
	for _, it := range pages {
		iv := itemView{ID: it.ID, Title: it.Title}
		for i, p := range it.Pages {
			pv := pageView{Number: i + 1, URL: base + "/pages/" + it.ID + "/" + strconv.Itoa(i+1) + ".png", Ratio: 141.4}
			if p.Width > 0 {
				pv.Ratio = p.Height / p.Width * 100
			}
			for _, f := range byItem[it.ID] {
				if f.Page == i+1 {
					pv.Fields = append(pv.Fields, f)
				}
			}
			iv.Pages = append(iv.Pages, pv)
		}
		v.Items = append(v.Items, iv)
	}
	return nil
}

func newFieldView(t Text, f envelope.Field, m envelope.Meta) fieldView {
	fv := fieldView{ID: f.ID, Type: f.Type, Page: f.Page, X: f.PositionX, Y: f.PositionY, W: f.Width, H: f.Height,
		Value: f.CustomText, Inserted: f.Inserted, Required: envelope.FieldRequired(f)}
	meta := f.FieldMeta
	if meta == nil {
		meta = &envelope.FieldMeta{}
	}
	if meta.Label != nil && *meta.Label != "" {
		fv.Label = *meta.Label
	} else {
		fv.Label = fieldTypeLabel(t, f.Type)
	}
	fv.ReadOnly = meta.ReadOnly != nil && *meta.ReadOnly
	for _, o := range meta.Values {
		fv.Options = append(fv.Options, o.Value)
	}
	switch f.Type {
	case envelope.FieldDate:
		fv.Auto = t.FilledAtSigning
	case envelope.FieldRUTFirmado:
		fv.Auto = t.FilledByClaveUnica
	case envelope.FieldCheckbox:
		if f.Inserted {
			_ = json.Unmarshal([]byte(f.CustomText), &fv.Checked)
		}
	case envelope.FieldEmail:
		fv.Input = "email"
	case envelope.FieldNumber:
		fv.Input = "text"
	default:
		fv.Input = "text"
	}
	return fv
}

func fieldTypeLabel(t Text, ft envelope.FieldType) string {
	en := map[envelope.FieldType]string{
		envelope.FieldSignature: "Signature", envelope.FieldFreeSignature: "Signature", envelope.FieldInitials: "Initials",
		envelope.FieldName: "Name", envelope.FieldEmail: "Email", envelope.FieldDate: "Date", envelope.FieldText: "Text",
		envelope.FieldNumber: "Number", envelope.FieldRadio: "Choice", envelope.FieldCheckbox: "Options",
		envelope.FieldDropdown: "Selection", envelope.FieldRUT: "RUT", envelope.FieldRUTFirmado: "Verified RUT",
	}
	es := map[envelope.FieldType]string{
		envelope.FieldSignature: "Firma", envelope.FieldFreeSignature: "Firma", envelope.FieldInitials: "Iniciales",
		envelope.FieldName: "Nombre", envelope.FieldEmail: "Correo", envelope.FieldDate: "Fecha", envelope.FieldText: "Texto",
		envelope.FieldNumber: "Número", envelope.FieldRadio: "Opción", envelope.FieldCheckbox: "Opciones",
		envelope.FieldDropdown: "Selección", envelope.FieldRUT: "RUT", envelope.FieldRUTFirmado: "RUT verificado",
	}
	if t.Lang == "es" {
		return es[ft]
	}
	return en[ft]
}
