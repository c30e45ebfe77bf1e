package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/pdf"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/seal"
)

// SealEnvelope produces the sealed PDF of each item of an envelope whose recipients have all
// acted, and its certificate of completion, and stores them. It runs before the envelope is
// marked COMPLETED and is idempotent: a seal already stored is kept, a retried attempt replaces
// a partial one. Its progress is reported as heartbeats (visible in the Temporal UI), and it
// stops when its context is cancelled. A failure is returned as nextSealStep decides: retried,
// sealed again without a timestamp, or given up as a non-retryable error whose type is an
// envelope.SealFailure.
func (a *Activities) SealEnvelope(ctx context.Context, envelopeID string) error {
	if a.Seal == nil {
		return a.sealGivenUp(ctx, envelopeID, envelope.SealNotConfigured, errors.New("no seal certificate is configured"))
	}
	done, err := a.Store.Sealed(ctx, envelopeID)
	if err != nil {
		return err
	}
	if done {
		return nil
	}
	// Heartbeats every few seconds while the seal works, so that a worker that dies is noticed
	// (and the seal retried elsewhere) within the heartbeat timeout, however long the document,
	// and a cancellation reaches ctx.
	stage := make(chan string, 8)
	defer close(stage)
	go func() {
		t := time.NewTicker(3 * time.Second)
		defer t.Stop()
		current := "loading"
		for {
			select {
			case s, ok := <-stage:
				if !ok {
					return
				}
				current = s
				activity.RecordHeartbeat(ctx, current)
			case <-t.C:
				activity.RecordHeartbeat(ctx, current)
			}
		}
	}()
	stage <- "loading"
	src, err := a.Store.LoadSealSource(ctx, envelopeID)
	var br *persistence.ChainBreak
	if errors.As(err, &br) {
		return a.sealGivenUp(ctx, envelopeID, envelope.SealChainBroken, err)
	}
	if err != nil {
		return err
	}
	in := sealInput(src, time.Now())
	start := time.Now()
	stage <- fmt.Sprintf("sealing %d items", len(in.Documents))
	signer := a.Seal
	sealed, cert, err := sealSafely(ctx, in, signer)
	for err != nil {
		if ctx.Err() != nil {
			return err
		}
		f := sealFailureOf(err)
		info := activity.GetInfo(ctx)
		switch nextSealStep(f, info.Attempt, time.Since(info.ScheduledTime), a.SealTSA) {
		case retrySeal:
			if f == envelope.SealTSAUnavailable {
				a.SealTSA.count("retried")
				a.Log.WarnContext(ctx, "seal waits for the timestamp authority", "envelope", envelopeID, "attempt", info.Attempt, "err", err)
				return temporal.NewApplicationErrorWithCause(err.Error(), string(f), err)
			}
			return err
		case sealUnstamped:
			a.SealTSA.count("unstamped")
			a.Log.WarnContext(ctx, "sealing without a timestamp: the timestamp authority stayed unavailable", "envelope", envelopeID,
				"tsa", signer.TSAURL, "for", time.Since(info.ScheduledTime).Round(time.Second), "err", err)
			unstamped := *signer
			unstamped.TSAURL, in.UnstampedTSA = "", signer.TSAURL
			signer = &unstamped
			sealed, cert, err = sealSafely(ctx, in, signer)
		default:
			if f == "" {
				f = envelope.SealFailed
			}
			return a.sealGivenUp(ctx, envelopeID, f, err)
		}
	}
	items := make([]persistence.SealedItem, 0, len(sealed))
	for _, s := range sealed {
		items = append(items, persistence.SealedItem{ItemID: s.ItemID, Data: s.PDF})
	}
	if err := a.Store.SaveSealed(ctx, envelopeID, items, cert); err != nil {
		return err
	}
	a.Log.InfoContext(ctx, "envelope sealed", "envelope", envelopeID, "items", len(items), "duration", time.Since(start),
		"timestamped", signer.TSAURL != "")
	return nil
}

// sealGivenUp logs and counts a seal given up for f, and returns it as the non-retryable error
// of type f the workflow reads.
func (a *Activities) sealGivenUp(ctx context.Context, envelopeID string, f envelope.SealFailure, err error) error {
	switch {
	case f == envelope.SealTSAUnavailable:
		a.SealTSA.count("waiting")
	case !f.RetriesByItself() && a.SealRefusals != nil:
		a.SealRefusals.WithLabelValues(refusalReason(f)).Inc()
	}
	a.Log.ErrorContext(ctx, "seal given up", "envelope", envelopeID, "failure", string(f), "err", err)
	return temporal.NewNonRetryableApplicationError(err.Error(), string(f), err)
}

// errSealPanic is a panic inside the seal, returned as an error.
var errSealPanic = errors.New("the seal failed")

// sealSafely seals every item and makes the certificate; a panic is returned as an error
// wrapping errSealPanic.
func sealSafely(ctx context.Context, in seal.Input, s *seal.Signer) (items []seal.Sealed, cert []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			items, cert, err = nil, nil, fmt.Errorf("%w: %v", errSealPanic, v)
		}
	}()
	if items, err = seal.Seal(ctx, in, s); err != nil {
		return nil, nil, err
	}
	cert, err = seal.Certificate(ctx, in, s)
	return items, cert, err
}

// sealFailureOf names what a failed seal attempt ran into: a refusal (it can never succeed as
// things stand: it would not show what the signers were shown, or a document is not the one they
// completed on; a stored document cannot be read within the limits; its signature cannot be
// laid out; the seal panicked), an unavailable timestamp authority, or "" for a failure that a
// retry may overcome.
func sealFailureOf(err error) envelope.SealFailure {
	switch {
	case errors.Is(err, seal.ErrNotShown):
		return envelope.SealNotShown
	case errors.Is(err, pdf.ErrNotPDF), errors.Is(err, pdf.ErrLimit), errors.Is(err, seal.ErrNoPages):
		return envelope.SealUnreadable
	case errors.Is(err, seal.ErrSignatureLayout):
		return envelope.SealSignatureLayout
	case errors.Is(err, errSealPanic):
		return envelope.SealPanic
	case errors.Is(err, seal.ErrTSAUnavailable):
		return envelope.SealTSAUnavailable
	}
	return ""
}

// refusalReason is f as sobre_seal_refusals_total's reason label: SEAL_REFUSED_NOT_SHOWN is
// not_shown, SEAL_NOT_CONFIGURED not_configured.
func refusalReason(f envelope.SealFailure) string {
	return strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(string(f), "SEAL_REFUSED_"), "SEAL_"))
}

// NewSealRefusals registers sobre_seal_refusals_total{reason}: seals given up because they can
// never succeed as things stand (see sealFailureOf).
func NewSealRefusals(reg prometheus.Registerer) (*prometheus.CounterVec, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sobre_seal_refusals_total",
		Help: "Seals refused, each waiting for the retry-seal signal: no seal certificate is configured (not_configured), the audit log does not verify (chain), the sealed document would not show what the signers were shown (not_shown), a document cannot be read (unreadable), its signature cannot be laid out (signature_layout), or the seal panicked (panic).",
	}, []string{"reason"})
	return c, register(reg, c)
}

func register(reg prometheus.Registerer, c prometheus.Collector) error {
	if reg == nil {
		return nil
	}
	if err := reg.Register(c); err != nil {
		return fmt.Errorf("register metrics: %w", err)
	}
	return nil
}

// sealInput turns what PostgreSQL holds into what the seal draws.
func sealInput(src persistence.SealSource, now time.Time) seal.Input {
	e := src.Envelope
	in := seal.Input{EnvelopeID: e.ID, Title: e.Title, Language: e.Meta.Language, Timezone: envelope.DefaultTimezone,
		AuditHash: src.AuditHash, SealedAt: now}
	if e.Meta.Timezone != nil {
		in.Timezone = *e.Meta.Timezone
	}
	for _, it := range src.Items {
		d := seal.Document{ItemID: it.ID, Title: it.Title, PDF: it.Data, SHA256: it.OriginalSHA256, ShownSHA256: it.ShownSHA256}
		for _, p := range it.Pages {
			d.Pages = append(d.Pages, seal.Size{Width: p.Width, Height: p.Height})
		}
		in.Documents = append(in.Documents, d)
	}
	for _, f := range e.Fields {
		if !f.Inserted {
			continue
		}
		m := seal.Mark{ItemID: f.EnvelopeItemID, Page: f.Page, X: f.PositionX, Y: f.PositionY, W: f.Width, H: f.Height, Type: f.Type, Text: f.CustomText}
		if f.FieldMeta != nil && f.FieldMeta.FontSize != nil {
			m.FontSize = *f.FieldMeta.FontSize
		}
		if sig, ok := src.Signatures[f.ID]; ok {
			if sig.PNG != nil {
				m.PNG = sig.PNG
			} else if sig.Typed != nil {
				m.Text = *sig.Typed
			}
		}
		if f.Type == envelope.FieldCheckbox {
			_ = json.Unmarshal([]byte(f.CustomText), &m.Options)
		}
		in.Marks = append(in.Marks, m)
	}
	for _, r := range src.Recipients {
		rec := r.Recipient
		p := seal.Party{Name: rec.Name, Email: rec.Email, Role: rec.Role, Sent: rec.SentAt, Opened: r.Opened, Completed: r.Completed,
			Rejected: rec.SigningStatus == envelope.SigningStatusRejected, IP: r.IP, UserAgent: r.Agent}
		p.Auth = authOf(e, rec)
		if r.Identity.ClaveUnicaRUN != "" {
			p.ClaveUnica = "RUN " + r.Identity.ClaveUnicaRUN + ", " + r.Identity.ClaveUnicaName
		}
		if id := r.Identity; id.AccountID != 0 {
			p.Account = &seal.AccountProofs{ID: id.AccountID, Email: id.AccountEmail, PasswordAt: id.PasswordAt, TOTPAt: id.TOTPAt,
				PasskeyAt: id.PasskeyAt, PasskeyID: id.PasskeyCredentialID}
		}
		if r.Identity.FEARUT != "" {
			p.Certificate = "RUT " + r.Identity.FEARUT + ", " + r.Identity.FEASubject
			p.Revocation = r.Identity.FEARevocation
		}
		for _, f := range e.Fields {
			sig, ok := src.Signatures[f.ID]
			if !ok || f.RecipientID != rec.ID || (f.Type != envelope.FieldSignature && f.Type != envelope.FieldFreeSignature) {
				continue
			}
			if sig.PNG != nil && p.SignaturePNG == nil {
				p.SignaturePNG = sig.PNG
			} else if sig.Typed != nil && p.Signature == "" {
				p.Signature = *sig.Typed
			}
		}
		p.Prefilled = prefilledLines(e, rec.ID)
		in.Parties = append(in.Parties, p)
	}
	return in
}

// authOf names the auth that applied to rec (envelope.RecipientAuth), as the certificate lists
// it.
func authOf(e *envelope.Envelope, rec envelope.Recipient) []string {
	var out []string
	in := envelope.RecipientAuth(rec.AuthOptions, e.AuthOptions)
	for _, a := range in.Access {
		out = append(out, "access "+string(a))
	}
	for _, a := range in.Action {
		out = append(out, "action "+string(a))
	}
	return out
}
