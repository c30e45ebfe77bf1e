package fea

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/smallstep/pkcs7"

	"github.com/sobre-sign/sobre/envelope"
)

// Refusals of Verify, for errors.Is. Their messages are fit for the signer.
var (
	ErrMalformed      = errors.New("the signature is not a readable CMS/PKCS#7 signature")
	ErrDigestMismatch = errors.New("the signature is over another digest than this document's")
	ErrBadSignature   = errors.New("the signature does not verify with its certificate")
	ErrUntrusted      = errors.New("the certificate was not issued by a trusted certification authority")
	ErrExpired        = errors.New("the certificate is expired or not yet valid")
	ErrKeyUsage       = errors.New("the certificate may not be used for signatures")
	ErrNoRUT          = errors.New("the certificate carries no RUT")
	ErrRUTMismatch    = errors.New("the certificate's RUT is not the signer's verified RUT")
)

// OIDRUT is where Decreto 181 puts the holder's RUT: an otherName of the certificate's
// subjectAltName.
var OIDRUT = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 8321, 1}

var oidSubjectAltName = asn1.ObjectIdentifier{2, 5, 29, 17}

// Holder is the verified signer.
type Holder struct {
	RUT         string // normalised 12345678-5
	Subject     string
	Issuer      string
	Serial      string
	NotBefore   time.Time
	NotAfter    time.Time
	Certificate []byte // DER
}

// Verifier checks FAO_HASH signatures against a set of trust roots.
type Verifier struct {
	Roots *x509.CertPool
}

// LoadTrustRoots reads a PEM file of CA certificates.
func LoadTrustRoots(path string) (*x509.CertPool, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read FEA trust roots: %w", err)
	}
	pool := x509.NewCertPool()
	n := 0
	for block, rest := pem.Decode(raw); block != nil; block, rest = pem.Decode(rest) {
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("FEA trust roots %s: %w", path, err)
		}
		pool.AddCert(c)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("FEA trust roots %s: no certificate", path)
	}
	return pool, nil
}

// Verify checks cms, a CMS SignedData (DER) over digestHex: detached with digestHex as its
// content (an attached one must hold exactly digestHex), the signature made by its signer
// certificate, that certificate valid at now, fit for signing and chained (through the
// certificates in the CMS) to a trust root, and holding a RUT.
func (v Verifier) Verify(cms []byte, digestHex string, now time.Time) (Holder, error) {
	p7, err := pkcs7.Parse(cms)
	if err != nil {
		return Holder{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if len(p7.Signers) != 1 {
		return Holder{}, fmt.Errorf("%w: %d signers, want one", ErrMalformed, len(p7.Signers))
	}
	if len(p7.Content) > 0 && string(p7.Content) != digestHex {
		return Holder{}, ErrDigestMismatch
	}
	p7.Content = []byte(digestHex)
	if err := p7.VerifyWithChainAtTime(nil, now); err != nil {
		var mismatch *pkcs7.MessageDigestMismatchError
		var signingTime *pkcs7.SigningTimeNotValidError
		switch {
		case errors.As(err, &mismatch):
			return Holder{}, ErrDigestMismatch
		case errors.As(err, &signingTime):
			return Holder{}, fmt.Errorf("%w: %w", ErrExpired, err)
		}
		return Holder{}, fmt.Errorf("%w: %w", ErrBadSignature, err)
	}
	cert := p7.GetOnlySigner()
	if cert == nil {
		return Holder{}, fmt.Errorf("%w: no signer certificate", ErrMalformed)
	}
	if now.Before(cert.NotBefore) || now.After(cert.NotAfter) {
		return Holder{}, fmt.Errorf("%w: valid from %s to %s", ErrExpired, cert.NotBefore.Format(time.RFC3339), cert.NotAfter.Format(time.RFC3339))
	}
	if cert.KeyUsage != 0 && cert.KeyUsage&(x509.KeyUsageDigitalSignature|x509.KeyUsageContentCommitment) == 0 {
		return Holder{}, ErrKeyUsage
	}
	intermediates := x509.NewCertPool()
	for _, c := range p7.Certificates {
		if c != cert {
			intermediates.AddCert(c)
		}
	}
	if v.Roots == nil {
		return Holder{}, fmt.Errorf("%w: no trust roots are configured", ErrUntrusted)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: v.Roots, Intermediates: intermediates, CurrentTime: now,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		return Holder{}, fmt.Errorf("%w: %w", ErrUntrusted, err)
	}
	rut, err := RUTOf(cert)
	if err != nil {
		return Holder{}, err
	}
	return Holder{RUT: rut, Subject: cert.Subject.String(), Issuer: cert.Issuer.String(), Serial: cert.SerialNumber.Text(16),
		NotBefore: cert.NotBefore, NotAfter: cert.NotAfter, Certificate: cert.Raw}, nil
}

// CheckRUT refuses a holder whose RUT is not expected (a normalised RUT).
func CheckRUT(h Holder, expected string) error {
	if h.RUT != expected {
		return fmt.Errorf("%w: %s, not %s", ErrRUTMismatch, h.RUT, expected)
	}
	return nil
}

// otherName is a GeneralName's otherName: [0] { type-id, [0] EXPLICIT value }.
type otherName struct {
	TypeID asn1.ObjectIdentifier
	Value  asn1.RawValue
}

// RUTOf reads the holder's RUT from the subjectAltName otherName of OID 1.3.6.1.4.1.8321.1,
// whatever string type holds it, and checks its digit.
func RUTOf(cert *x509.Certificate) (string, error) {
	for _, ext := range cert.Extensions {
		if !ext.Id.Equal(oidSubjectAltName) {
			continue
		}
		var names []asn1.RawValue
		if _, err := asn1.Unmarshal(ext.Value, &names); err != nil {
			return "", fmt.Errorf("%w: unreadable subjectAltName: %w", ErrNoRUT, err)
		}
		for _, n := range names {
			if n.Class != asn1.ClassContextSpecific || n.Tag != 0 {
				continue // not an otherName
			}
			var on otherName
			if _, err := asn1.UnmarshalWithParams(n.FullBytes, &on, "tag:0"); err != nil || !on.TypeID.Equal(OIDRUT) {
				continue
			}
			// on.Value is the [0] EXPLICIT wrapper; its content is the string's TLV.
			var inner asn1.RawValue
			if _, err := asn1.Unmarshal(on.Value.Bytes, &inner); err != nil {
				return "", fmt.Errorf("%w: unreadable otherName value: %w", ErrNoRUT, err)
			}
			var s string
			if _, err := asn1.Unmarshal(inner.FullBytes, &s); err != nil {
				s = string(inner.Bytes) // a string type Go does not decode: take its bytes
			}
			rut, err := envelope.NormalizeRUT(s)
			if err != nil {
				return "", fmt.Errorf("%w: %q is not a valid RUT: %w", ErrNoRUT, s, err)
			}
			return rut, nil
		}
	}
	return "", ErrNoRUT
}
