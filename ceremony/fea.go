package ceremony

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/auth/fea"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// Digest is rec's FAO_HASH digest of envelope e as it is now.
func (s *Service) Digest(ctx context.Context, e *envelope.Envelope, rec envelope.Recipient) (string, error) {
	if s.FEA == nil {
		return "", nil
	}
	items, err := s.Store.ItemDigests(ctx, e.ID)
	if err != nil {
		return "", err
	}
	sigs, err := s.Store.RecipientSignatures(ctx, rec.ID)
	if err != nil {
		return "", err
	}
	in := fea.DigestInput{EnvelopeID: e.ID, RecipientID: rec.ID}
	for _, it := range items {
		in.Items = append(in.Items, fea.Item{ID: it.ItemID, SHA256: it.SHA256})
	}
	for _, f := range e.Fields {
		if f.RecipientID != rec.ID {
			continue
		}
		v := fea.Field{ID: f.ID, Type: string(f.Type), Value: f.CustomText}
		if sig, ok := sigs[f.ID]; ok {
			if sig.PNG != nil {
				h := sha256.Sum256(sig.PNG)
				v.Value = hex.EncodeToString(h[:])
			} else if sig.Typed != nil {
				v.Value = *sig.Typed
			}
		}
		in.Fields = append(in.Fields, v)
	}
	slices.SortFunc(in.Fields, func(a, b fea.Field) int { return cmp.Compare(a.ID, b.ID) })
	return fea.Digest(in), nil
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

// SubmitFEA verifies rec's FAO_HASH signature over the envelope's current digest and keeps it.
// The certificate's RUT must match a RUN verified by Clave Única in this browser, and the value
// of any RUT_FIRMADO field already filled.
func (s *Service) SubmitFEA(ctx context.Context, st Status, e *envelope.Envelope, rec envelope.Recipient, cms []byte) (fea.Holder, error) {
	if s.FEA == nil {
		return fea.Holder{}, envelope.Errorf(envelope.CodeAuthUnavailable, "Advanced electronic signatures are not configured on this server")
	}
	digest, err := s.Digest(ctx, e, rec)
	if err != nil {
		return fea.Holder{}, err
	}
	h, err := s.FEA.Verify(cms, digest, time.Now())
	if err != nil {
		s.Log.WarnContext(ctx, "FAO_HASH signature refused", "recipient", rec.ID, "err", err)
		return fea.Holder{}, envelope.Errorf(envelope.CodeVerificationFailed, "The advanced electronic signature was refused: %s", reason(err))
	}
	if st.ClaveUnicaRUN != "" && st.ClaveUnicaRUN != h.RUT {
		return fea.Holder{}, envelope.Errorf(envelope.CodeRUTMismatch, "The certificate's RUT (%s) is not the RUN verified by ClaveÚnica (%s)", h.RUT, st.ClaveUnicaRUN)
	}
	for _, f := range e.Fields {
		if f.RecipientID == rec.ID && f.Type == envelope.FieldRUTFirmado && f.Inserted && f.CustomText != h.RUT {
			return fea.Holder{}, envelope.Errorf(envelope.CodeRUTMismatch, "The certificate's RUT (%s) is not the verified RUT in the document (%s)", h.RUT, f.CustomText)
		}
	}
	sig := persistence.FEASignature{RUT: h.RUT, Subject: h.Subject, Issuer: h.Issuer, Serial: h.Serial, Digest: digest, CMS: cms}
	if err := s.Store.RecordFEA(ctx, rec, sig); err != nil {
		return fea.Holder{}, err
	}
	return h, nil
}

// reason is the plain-words cause of a refused signature (the detail is logged).
func reason(err error) string {
	for _, known := range []error{fea.ErrDigestMismatch, fea.ErrUntrusted, fea.ErrExpired, fea.ErrBadSignature,
		fea.ErrKeyUsage, fea.ErrNoRUT, fea.ErrMalformed} {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	return "it could not be verified"
}
