package ceremony

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/auth/fea"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// Digest is rec's FAO_HASH digest of envelope e as it is now, for a session whose Clave Única
// RUN is run (it fills the RUT_FIRMADO fields at completion); "" when FAO_HASH is not configured.
func (s *Service) Digest(ctx context.Context, e *envelope.Envelope, rec envelope.Recipient, run string) (string, error) {
	if s.FEA == nil {
		return "", nil
	}
	return s.Store.FAODigest(ctx, e.ID, rec.ID, run)
}

// DecodeSignature reads a CMS signature as a browser or a person sends it: DER, PEM, or base64
// of DER.
func DecodeSignature(raw []byte) ([]byte, error) {
	text := strings.TrimSpace(string(raw))
	if strings.HasPrefix(text, "-----BEGIN") {
		block, _ := pem.Decode([]byte(text))
		if block == nil {
			return nil, errors.New("unreadable PEM")
		}
		return block.Bytes, nil
	}
	if len(raw) > 0 && raw[0] == 0x30 {
		return raw, nil // DER: a SEQUENCE
	}
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(text), ""))
	if err != nil {
		return nil, errors.New("neither DER, PEM nor base64")
	}
	return b, nil
}

// SubmitFEA verifies rec's FAO_HASH signature over the digest this browser's session would sign
// now and keeps it on the session, with the certificate's revocation status (and the OCSP
// response, when one was read). The certificate's RUT must match a RUN verified by Clave Única in
// this browser, and the recipient's expected RUN when it names one (else the refusal is kept, with
// an audit entry, and the owner told). actor is the audit actor.
func (s *Service) SubmitFEA(ctx context.Context, st Status, e *envelope.Envelope, rec envelope.Recipient, cms []byte, actor envelope.Actor) (fea.Holder, error) {
	if s.FEA == nil {
		return fea.Holder{}, envelope.Errorf(envelope.CodeAuthUnavailable, "Advanced electronic signatures are not configured on this server")
	}
	digest, err := s.Digest(ctx, e, rec, st.ClaveUnicaRUN)
	if err != nil {
		return fea.Holder{}, err
	}
	h, err := s.FEA.Verify(ctx, cms, digest, time.Now())
	if err != nil {
		s.Log.WarnContext(ctx, "FAO_HASH signature refused", "recipient", rec.ID, "err", err)
		return fea.Holder{}, envelope.Errorf(envelope.CodeVerificationFailed, "The advanced electronic signature was refused: %s", reason(err))
	}
	// A valid signature is kept by the session that gave it: without one (a caller that keeps no
	// cookie) there is nothing to complete with.
	if st.Session == nil {
		return fea.Holder{}, envelope.Errorf(envelope.CodeUnauthorized, "Open the signing link in a browser and give the signature there: it is kept by that browser's session")
	}
	if st.ClaveUnicaRUN != "" && st.ClaveUnicaRUN != h.RUT {
		return fea.Holder{}, envelope.Errorf(envelope.CodeRUTMismatch, "The certificate's RUT (%s) is not the RUN verified by ClaveÚnica (%s)", h.RUT, st.ClaveUnicaRUN)
	}
	if !h.Revocation.Checked {
		s.Log.WarnContext(ctx, "FAO_HASH certificate accepted without a revocation check", "recipient", rec.ID, "reason", h.Revocation.Reason)
	}
	sig := persistence.FEASignature{RUT: h.RUT, Subject: h.Subject, Issuer: h.Issuer, Serial: h.Serial, Digest: digest, CMS: cms,
		OCSP: h.Revocation.Response, Revocation: h.Revocation.String()}
	if err := s.Store.RecordFEA(ctx, *st.Session, rec, sig, actor); err != nil {
		if errors.Is(err, persistence.ErrNotTheExpectedPerson) && !errors.Is(err, persistence.ErrRefusedAgain) {
			s.Log.WarnContext(ctx, "FAO_HASH certificate of another RUN than the expected one refused", "envelope", rec.EnvelopeID, "recipient", rec.ID)
			s.tellOwner(ctx, rec, "a refused identity")
		}
		return fea.Holder{}, err
	}
	return h, nil
}

// reason is the plain-words cause of a refused signature (the detail is logged).
func reason(err error) string {
	for _, known := range []error{fea.ErrDigestMismatch, fea.ErrUntrusted, fea.ErrExpired, fea.ErrBadSignature,
		fea.ErrKeyUsage, fea.ErrExtKeyUsage, fea.ErrPolicy, fea.ErrWeakAlgorithm, fea.ErrRevoked, fea.ErrUnchecked,
		fea.ErrNoRUT, fea.ErrMalformed} {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	return "it could not be verified"
}
