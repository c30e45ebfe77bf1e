package ceremony

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// DigestField is one of the recipient's fields as the FAO_HASH digest covers it.
type DigestField struct {
	ID    int64
	Type  envelope.FieldType
	Value string // customText; for a signature, its typed text or the hex SHA-256 of its PNG
}

// DigestInput is what a FAO_HASH digest covers: the envelope's documents as distributed and the
// recipient's field values.
type DigestInput struct {
	EnvelopeID  string
	RecipientID int64
	Items       []persistence.ItemDigest
	Fields      []DigestField
}

// Holder is the holder of a verified advanced-signature certificate.
type Holder struct {
	RUT, Subject, Issuer, Serial string
}

// SignatureVerifier is FAO_HASH as the ceremony uses it (see auth/fea and docs/fao-hash.md).
type SignatureVerifier interface {
	// Digest is the hex SHA-256 the signer signs.
	Digest(in DigestInput) string
	// Verify checks a detached CMS signature over digestHex: signature, chain to the trust roots,
	// validity at now, and the holder's RUT from the certificate.
	Verify(cms []byte, digestHex string, now time.Time) (Holder, error)
}

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
	in := DigestInput{EnvelopeID: e.ID, RecipientID: rec.ID, Items: items}
	for _, f := range e.Fields {
		if f.RecipientID != rec.ID {
			continue
		}
		v := DigestField{ID: f.ID, Type: f.Type, Value: f.CustomText}
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
	slices.SortFunc(in.Fields, func(a, b DigestField) int { return int(a.ID - b.ID) })
	return s.FEA.Digest(in), nil
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
func (s *Service) SubmitFEA(ctx context.Context, st Status, e *envelope.Envelope, rec envelope.Recipient, cms []byte) (Holder, error) {
	if s.FEA == nil {
		return Holder{}, envelope.Errorf(envelope.CodeAuthUnavailable, "Advanced electronic signatures are not configured on this server")
	}
	digest, err := s.Digest(ctx, e, rec)
	if err != nil {
		return Holder{}, err
	}
	h, err := s.FEA.Verify(cms, digest, time.Now())
	if err != nil {
		return Holder{}, envelope.Errorf(envelope.CodeVerificationFailed, "The advanced electronic signature was refused: %v", err)
	}
	if st.ClaveUnicaRUN != "" && st.ClaveUnicaRUN != h.RUT {
		return Holder{}, envelope.Errorf(envelope.CodeRUTMismatch, "The certificate's RUT (%s) is not the RUN verified by ClaveÚnica (%s)", h.RUT, st.ClaveUnicaRUN)
	}
	for _, f := range e.Fields {
		if f.RecipientID == rec.ID && f.Type == envelope.FieldRUTFirmado && f.Inserted && f.CustomText != h.RUT {
			return Holder{}, envelope.Errorf(envelope.CodeRUTMismatch, "The certificate's RUT (%s) is not the verified RUT in the document (%s)", h.RUT, f.CustomText)
		}
	}
	sig := persistence.FEASignature{RUT: h.RUT, Subject: h.Subject, Issuer: h.Issuer, Serial: h.Serial, Digest: digest, CMS: cms}
	if err := s.Store.RecordFEA(ctx, rec, sig); err != nil {
		return Holder{}, err
	}
	return h, nil
}
