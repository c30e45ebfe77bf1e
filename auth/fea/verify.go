package fea

import (
	"context"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
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
	ErrExtKeyUsage    = errors.New("the certificate is not meant for signing documents or email (extended key usage)")
	ErrPolicy         = errors.New("the certificate carries none of the certificate policies accepted here")
	ErrWeakAlgorithm  = errors.New("the signature or its certificate uses an algorithm that is not accepted (SHA-1 and MD5 are refused)")
	ErrRevoked        = errors.New("the certificate has been revoked")
	ErrUnchecked      = errors.New("the certificate's revocation status could not be checked")
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
	Revocation  Revocation
}

// Verifier checks FAO_HASH signatures against a set of trust roots.
type Verifier struct {
	Roots *x509.CertPool
	// Policies are the certificate policies accepted: the signer's certificate must carry at
	// least one of them. Empty accepts any policy, and none.
	Policies []x509.OID
	// Revocation is how the signer's certificate's revocation status is asked for (OCSP); the
	// zero value is RevocationPrefer.
	Revocation RevocationMode
	// HTTP asks OCSP responders; nil is OCSPClient(). Tests give their own.
	HTTP *http.Client
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

// ParsePolicies reads certificate policy OIDs in dotted form ("2.16.152.1.1.1").
func ParsePolicies(dotted []string) ([]x509.OID, error) {
	out := make([]x509.OID, 0, len(dotted))
	for _, s := range dotted {
		oid, err := x509.ParseOID(s)
		if err != nil {
			return nil, fmt.Errorf("certificate policy %q: %w", s, err)
		}
		out = append(out, oid)
	}
	return out, nil
}

// Verify checks cms, a CMS SignedData (DER) over digestHex: detached with digestHex as its
// content (an attached one must hold exactly digestHex); hashed and signed with accepted
// algorithms (no SHA-1, no MD5); the signature made by its signer certificate; that certificate
// valid at now, with a key usage for signatures, an extended key usage for documents or email
// (or none), an accepted policy, signed with an accepted algorithm, chained (through the
// certificates in the CMS, each signed with an accepted algorithm) to a trust root, holding a
// RUT, and not revoked according to its OCSP responder (as v.Revocation asks).
func (v Verifier) Verify(ctx context.Context, cms []byte, digestHex string, now time.Time) (Holder, error) {
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
	if err := checkSignerAlgorithms(p7.Signers[0].DigestAlgorithm.Algorithm, p7.Signers[0].DigestEncryptionAlgorithm.Algorithm); err != nil {
		return Holder{}, err
	}
	cert := p7.GetOnlySigner()
	if cert == nil {
		return Holder{}, fmt.Errorf("%w: no signer certificate", ErrMalformed)
	}
	if err := checkCertAlgorithm(cert); err != nil {
		return Holder{}, err
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
	if now.Before(cert.NotBefore) || now.After(cert.NotAfter) {
		return Holder{}, fmt.Errorf("%w: valid from %s to %s", ErrExpired, cert.NotBefore.Format(time.RFC3339), cert.NotAfter.Format(time.RFC3339))
	}
	if err := checkUsage(cert); err != nil {
		return Holder{}, err
	}
	if err := v.checkPolicy(cert); err != nil {
		return Holder{}, err
	}
	chain, err := v.chain(cert, p7.Certificates, now)
	if err != nil {
		return Holder{}, err
	}
	rut, err := RUTOf(cert)
	if err != nil {
		return Holder{}, err
	}
	rev, err := v.revocation(ctx, cert, chain[1], now)
	if err != nil {
		return Holder{}, err
	}
	return Holder{RUT: rut, Subject: cert.Subject.String(), Issuer: cert.Issuer.String(), Serial: cert.SerialNumber.Text(16),
		NotBefore: cert.NotBefore, NotAfter: cert.NotAfter, Certificate: cert.Raw, Revocation: rev}, nil
}

// chain verifies that cert chains to a trust root through the certificates the CMS carries,
// every certificate of the chain but the root signed with an accepted algorithm, and returns
// the chain, cert first.
func (v Verifier) chain(cert *x509.Certificate, carried []*x509.Certificate, now time.Time) ([]*x509.Certificate, error) {
	if v.Roots == nil {
		return nil, fmt.Errorf("%w: no trust roots are configured", ErrUntrusted)
	}
	intermediates := x509.NewCertPool()
	for _, c := range carried {
		if c != cert {
			intermediates.AddCert(c)
		}
	}
	// Usage is checked by checkUsage on the signer's certificate alone: the chain's extended key
	// usages are not asked to nest.
	chains, err := cert.Verify(x509.VerifyOptions{Roots: v.Roots, Intermediates: intermediates, CurrentTime: now,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	if err != nil {
		// Go refuses SHA-1 and MD5 certificate signatures while building the chain: name the cause.
		for _, c := range carried {
			if c != cert && !selfSigned(c) && checkCertAlgorithm(c) != nil {
				return nil, fmt.Errorf("%w: %s is signed with %s", ErrWeakAlgorithm, c.Subject, c.SignatureAlgorithm)
			}
		}
		return nil, fmt.Errorf("%w: %w", ErrUntrusted, err)
	}
	for _, ch := range chains {
		if len(ch) < 2 {
			continue // the signer's certificate is itself a trust root: no issuer vouches for it
		}
		// A trust anchor's own signature is not relied on; every other one is.
		if !slices.ContainsFunc(ch[:len(ch)-1], func(c *x509.Certificate) bool { return checkCertAlgorithm(c) != nil }) {
			return ch, nil
		}
	}
	if slices.ContainsFunc(chains, func(ch []*x509.Certificate) bool { return len(ch) < 2 }) {
		return nil, fmt.Errorf("%w: the signer's certificate is a trust root, not a holder's certificate", ErrUntrusted)
	}
	return nil, fmt.Errorf("%w: every chain to a trust root holds a certificate signed with SHA-1 or MD5", ErrWeakAlgorithm)
}

func selfSigned(c *x509.Certificate) bool {
	return c.CheckSignatureFrom(c) == nil
}

// checkUsage is the rule of an advanced signature's certificate: its key usage includes
// digitalSignature or contentCommitment (nonRepudiation), and its extended key usage is absent or
// names one of AcceptedExtKeyUsages. anyExtendedKeyUsage alone is refused: a CA that writes the
// extension says what the key is for, and "anything" says nothing.
func checkUsage(cert *x509.Certificate) error {
	if cert.KeyUsage&(x509.KeyUsageDigitalSignature|x509.KeyUsageContentCommitment) == 0 {
		return ErrKeyUsage
	}
	if len(cert.ExtKeyUsage) == 0 && len(cert.UnknownExtKeyUsage) == 0 {
		return nil
	}
	if slices.Contains(cert.ExtKeyUsage, x509.ExtKeyUsageEmailProtection) {
		return nil
	}
	for _, oid := range cert.UnknownExtKeyUsage {
		for _, ok := range AcceptedExtKeyUsages {
			if oid.Equal(ok) {
				return nil
			}
		}
	}
	return ErrExtKeyUsage
}

// AcceptedExtKeyUsages are the document-signing purposes accepted besides emailProtection
// (1.3.6.1.5.5.7.3.4): id-kp-documentSigning (RFC 9336), Microsoft's document signing and
// Adobe's Authentic Documents Trust.
var AcceptedExtKeyUsages = []asn1.ObjectIdentifier{
	{1, 3, 6, 1, 5, 5, 7, 3, 36},
	{1, 3, 6, 1, 4, 1, 311, 10, 3, 12},
	{1, 2, 840, 113583, 1, 1, 5},
}

// checkPolicy asks the certificate for one of v.Policies, when there are any.
func (v Verifier) checkPolicy(cert *x509.Certificate) error {
	if len(v.Policies) == 0 {
		return nil
	}
	for _, want := range v.Policies {
		for _, have := range cert.Policies {
			if have.Equal(want) {
				return nil
			}
		}
	}
	return ErrPolicy
}

// Digest algorithms a signer info may name: the SHA-2 family.
var acceptedDigests = []asn1.ObjectIdentifier{
	pkcs7.OIDDigestAlgorithmSHA224, pkcs7.OIDDigestAlgorithmSHA256, pkcs7.OIDDigestAlgorithmSHA384, pkcs7.OIDDigestAlgorithmSHA512,
}

// Signature algorithms a signer info may name: RSA or ECDSA, bare (the digest algorithm then
// says the hash) or with a SHA-2 hash.
var acceptedSignatures = []asn1.ObjectIdentifier{
	pkcs7.OIDEncryptionAlgorithmRSA, pkcs7.OIDEncryptionAlgorithmRSASHA224, pkcs7.OIDEncryptionAlgorithmRSASHA256,
	pkcs7.OIDEncryptionAlgorithmRSASHA384, pkcs7.OIDEncryptionAlgorithmRSASHA512,
	{1, 2, 840, 10045, 2, 1}, // id-ecPublicKey
	{1, 2, 840, 10045, 4, 3, 1}, pkcs7.OIDDigestAlgorithmECDSASHA256, pkcs7.OIDDigestAlgorithmECDSASHA384, pkcs7.OIDDigestAlgorithmECDSASHA512,
}

func checkSignerAlgorithms(digest, signature asn1.ObjectIdentifier) error {
	if !slices.ContainsFunc(acceptedDigests, digest.Equal) {
		return fmt.Errorf("%w: digest algorithm %s", ErrWeakAlgorithm, digest)
	}
	if !slices.ContainsFunc(acceptedSignatures, signature.Equal) {
		return fmt.Errorf("%w: signature algorithm %s", ErrWeakAlgorithm, signature)
	}
	return nil
}

// checkCertAlgorithm refuses a certificate signed with anything but RSA (PKCS#1 v1.5 or PSS),
// ECDSA with SHA-2, or Ed25519.
func checkCertAlgorithm(c *x509.Certificate) error {
	switch c.SignatureAlgorithm {
	case x509.SHA256WithRSA, x509.SHA384WithRSA, x509.SHA512WithRSA, x509.SHA256WithRSAPSS, x509.SHA384WithRSAPSS,
		x509.SHA512WithRSAPSS, x509.ECDSAWithSHA256, x509.ECDSAWithSHA384, x509.ECDSAWithSHA512, x509.PureEd25519:
		return nil
	}
	return fmt.Errorf("%w: the certificate %s is signed with %s", ErrWeakAlgorithm, c.Subject, c.SignatureAlgorithm)
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
