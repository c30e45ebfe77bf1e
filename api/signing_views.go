package api

import (
	"net/http"
	"time"

	"github.com/sobre-sign/sobre/ceremony"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/view"
)

type signingItemView struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Order int    `json:"order"`
	URL   string `json:"url"`
}

type signingView struct {
	Envelope struct {
		ID           string            `json:"id"`
		Title        string            `json:"title"`
		Status       envelope.Status   `json:"status"`
		DocumentMeta envelope.Meta     `json:"documentMeta"`
		Items        []signingItemView `json:"envelopeItems"`
		OwnerName    string            `json:"ownerName"`
	} `json:"envelope"`
	Recipient view.Recipient `json:"recipient"`
	// Fields are the fields the recipient fills (envelope.FieldsToFill): its own, and an
	// assistant's for the recipients after it, whom Assisting names.
	Fields    []view.Field        `json:"fields"`
	Assisting []assistedRecipient `json:"assisting"`
	// FilledElsewhere are the fields whose value another session gave, which this caller must
	// fill or clear again before completing (envelope.FilledElsewhere).
	FilledElsewhere []int64 `json:"filledElsewhere"`
	// MayActNow: the recipient may sign, approve or view now. Waiting names why not.
	MayActNow bool   `json:"mayActNow"`
	Waiting   string `json:"waiting,omitempty"`
	Expired   bool   `json:"expired"`
	// Auth is what the recipient must prove: its own lists, else the envelope's.
	Auth envelope.RecipientAuthOptions `json:"auth"`
	// Verification is what this caller (its ceremony cookie) has proved so far.
	Verification verificationView `json:"verification"`
	// ReadableUntil, once the link ended (the envelope finished, or the recipient's deadline
	// passed), is when it stops showing the document, its pages and the field values; after it
	// envelopeItems and fields are empty. Null while the link is open.
	ReadableUntil *time.Time `json:"readableUntil"`
}

// derivedAuth is the recipient's authentication in force (envelope.RecipientAuth), with empty
// lists rather than null.
func derivedAuth(e *envelope.Envelope, r envelope.Recipient) envelope.RecipientAuthOptions {
	in := envelope.RecipientAuth(r.AuthOptions, e.AuthOptions)
	out := envelope.RecipientAuthOptions{AccessAuth: in.Access, ActionAuth: in.Action}
	if out.AccessAuth == nil {
		out.AccessAuth = []envelope.AccessAuth{}
	}
	if out.ActionAuth == nil {
		out.ActionAuth = []envelope.ActionAuth{}
	}
	return out
}

// signingView answers GET /api/v2/signing/{token}: the recipient's view of the envelope. The
// first call marks the recipient OPENED.
func (s *Server) signingView(w http.ResponseWriter, r *http.Request) {
	rec, e, st, err := s.ceremonyOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if rec.Role != envelope.RoleCC {
		if err := s.store.MarkOpened(r.Context(), rec, st.SessionID(), envelope.RecipientActor(rec, s.clientIP(r), r.UserAgent())); err != nil {
			s.writeError(w, r, err)
			return
		}
		if rec, e, err = s.recipientOf(r); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	var v signingView
	v.Envelope.ID, v.Envelope.Title, v.Envelope.Status, v.Envelope.DocumentMeta = e.ID, e.Title, e.Status, e.Meta
	v.Envelope.OwnerName = e.User.Name
	now := time.Now()
	shows, until := envelope.LinkShowsDocument(e, rec, now, s.cfg.LinkRead())
	if !until.IsZero() {
		v.ReadableUntil = &until
	}
	v.Envelope.Items = []signingItemView{}
	v.Fields = []view.Field{}
	if shows {
		for _, it := range e.Items {
			v.Envelope.Items = append(v.Envelope.Items, signingItemView{ID: it.ID, Title: it.Title, Order: it.Order,
				URL: "/api/v2/signing/" + rec.Token + "/items/" + it.ID})
		}
		for _, f := range envelope.FieldsToFill(e.Meta.SigningOrder, envelope.Participants(e.Recipients), rec.ID, e.Fields) {
			v.Fields = append(v.Fields, view.NewField(f))
		}
	}
	v.Assisting = assistedIn(e, rec.ID, v.Fields)
	v.FilledElsewhere = []int64{}
	if shows {
		v.FilledElsewhere = append(v.FilledElsewhere, envelope.FilledElsewhere(st.Requirements, rec, st.SessionID(), e.Fields)...)
	}
	v.Recipient = view.NewRecipient(rec)
	// Whoever holds the link is not told whose RUN may sign: it would hand a forwarded link's
	// holder the intended signer's RUN.
	v.Recipient.ExpectedRut = nil
	// What the relay answered is the owner's to read.
	v.Recipient.DeliveryError = nil
	v.Auth = derivedAuth(e, rec)
	v.Verification = newVerificationView(st, s.ceremony.Unavailable(st.Requirements))
	v.Expired = envelope.ParticipantOf(rec).Overdue(now)
	if e.Status == envelope.StatusPending {
		if err := envelope.Turn(e.Meta.SigningOrder, envelope.Participants(e.Recipients), rec.ID, now); err != nil {
			v.Waiting = string(envelope.ErrorCode(err))
		} else {
			v.MayActNow = true
		}
	}
	writeJSON(w, http.StatusOK, v)
}

// verificationView is what the caller has proved and what it still must.
type verificationView struct {
	AccessCodeRequired bool     `json:"accessCodeRequired"`
	AccessVerified     bool     `json:"accessVerified"`
	ClaveUnicaRequired bool     `json:"claveUnicaRequired"`
	ClaveUnicaRUN      *string  `json:"claveUnicaRun"`
	ClaveUnicaName     *string  `json:"claveUnicaName"`
	FAOHashRequired    bool     `json:"faoHashRequired"`
	FAOHashVerified    bool     `json:"faoHashVerified"`
	Digest             *string  `json:"digest"`
	Unavailable        []string `json:"unavailable"`
	// AccountRequired: ACCOUNT access; ActionMethods: the methods any one of which completes.
	AccountRequired bool                  `json:"accountRequired"`
	ActionMethods   []envelope.ActionAuth `json:"actionMethods"`
	// Account is the signer account this browser is signed in to, AccountMatches whether it
	// is the recipient's, AccountProofs which account proofs it gave here in the last minutes.
	Account        *accountView      `json:"account"`
	AccountMatches bool              `json:"accountMatches"`
	AccountProofs  accountProofsView `json:"accountProofs"`
}

type accountView struct {
	Email         string `json:"email"`
	EmailVerified bool   `json:"emailVerified"`
	TOTPEnabled   bool   `json:"totpEnabled"`
}

type accountProofsView struct {
	Password bool `json:"password"`
	TOTP     bool `json:"totp"`
	Passkey  bool `json:"passkey"`
}

func newVerificationView(st ceremony.Status, unavailable []string) verificationView {
	v := verificationView{AccessCodeRequired: st.AccessCode, AccessVerified: st.AccessVerified, ClaveUnicaRequired: st.ClaveUnica(),
		FAOHashRequired: st.FAOHash(), Unavailable: unavailable, AccountRequired: st.AccessAccount, ActionMethods: st.Action,
		AccountMatches: st.AccountMatches}
	if v.Unavailable == nil {
		v.Unavailable = []string{}
	}
	if v.ActionMethods == nil {
		v.ActionMethods = []envelope.ActionAuth{}
	}
	if st.ClaveUnicaRUN != "" {
		v.ClaveUnicaRUN, v.ClaveUnicaName = &st.ClaveUnicaRUN, &st.ClaveUnicaName
	}
	if st.Digest != "" {
		v.Digest = &st.Digest
	}
	v.FAOHashVerified = st.FEA != nil && st.FEA.Digest == st.Digest
	if st.Account != nil {
		v.Account = &accountView{Email: st.Account.Email, EmailVerified: st.Account.EmailVerified, TOTPEnabled: st.Account.TOTPEnabled}
	}
	now := time.Now()
	fresh := func(at *time.Time) bool { return envelope.Fresh(at, now, envelope.AccountProofMaxAge) }
	v.AccountProofs = accountProofsView{Password: fresh(st.PasswordAt), TOTP: fresh(st.TOTPAt), Passkey: fresh(st.PasskeyAt)}
	return v
}
