// Package featest makes the test certification authorities of FAO_HASH: roots, issuing CAs and
// advanced-signature certificates with the key usage, extended key usage, policies, signature
// algorithm and OCSP responder a test asks for, the holder's RUT where Decreto 181 puts it (a
// subjectAltName otherName 1.3.6.1.4.1.8321.1); an OCSP responder that answers for an issuing
// CA; and detached CMS signatures made with a holder's key.
//
// scripts/featestca writes the committed test CA (testdata/fea) with it; tests make their own
// certificates with it when they need shapes the committed ones do not have. Everything here is
// test material: never trust what it makes.
//
// It imports no package of Sobre's.
package featest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// OIDRUT is the otherName type of the holder's RUT in the subjectAltName (Decreto 181).
var OIDRUT = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 8321, 1}

// Issued is a certificate and its private key.
type Issued struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
}

// Holder describes an advanced-signature certificate to issue. The zero value of a field means
// "leave it out" (no key usage, no extended key usage, no policies, no OCSP responder), except
// SignatureAlgorithm, whose zero value is the issuer key's default (ECDSA with SHA-256).
type Holder struct {
	Name      string // the subject's common name
	RUT       string // written in the subjectAltName otherName and as the subject's serialNumber
	NotBefore time.Time
	NotAfter  time.Time

	KeyUsage           x509.KeyUsage
	ExtKeyUsage        []x509.ExtKeyUsage
	UnknownExtKeyUsage []asn1.ObjectIdentifier // purposes Go has no name for (document signing)
	Policies           []x509.OID              // certificatePolicies
	OCSPServer         []string                // authorityInfoAccess OCSP URLs
	SignatureAlgorithm x509.SignatureAlgorithm // how the issuer signs the certificate
}

// Advanced is the usual advanced-signature holder: digitalSignature and contentCommitment,
// emailProtection, valid from a year before now for thirty years.
func Advanced(name, rut string, now time.Time) Holder {
	return Holder{Name: name, RUT: rut, NotBefore: now.AddDate(-1, 0, 0), NotAfter: now.AddDate(30, 0, 0),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageEmailProtection}}
}

// Serial is a random certificate serial number of 100 bits.
func Serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 100))
	if err != nil {
		panic(fmt.Sprintf("featest: random serial: %v", err))
	}
	return n
}

// NewRoot makes a self-signed root CA.
func NewRoot(name string, from, to time.Time) (*Issued, error) {
	return newCA(name, nil, from, to, 0)
}

// IssueCA makes a CA certificate under ca.
func (ca *Issued) IssueCA(name string, from, to time.Time) (*Issued, error) {
	return newCA(name, ca, from, to, 0)
}

// IssueCAWith makes a CA certificate under ca, which signs it with alg.
func (ca *Issued) IssueCAWith(name string, from, to time.Time, alg x509.SignatureAlgorithm) (*Issued, error) {
	return newCA(name, ca, from, to, alg)
}

func newCA(name string, parent *Issued, from, to time.Time, alg x509.SignatureAlgorithm) (*Issued, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("key of %s: %w", name, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: Serial(), Subject: pkix.Name{CommonName: name, Organization: []string{"Sobre test"}, Country: []string{"CL"}},
		NotBefore: from, NotAfter: to, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign, SignatureAlgorithm: alg,
	}
	signer, signerCert := key, tmpl
	if parent != nil {
		signer, signerCert = parent.Key, parent.Cert
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signerCert, &key.PublicKey, signer)
	if err != nil {
		return nil, fmt.Errorf("issue %s: %w", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return &Issued{Cert: cert, Key: key}, nil
}

// SubjectAltName is the extension value holding rut as an otherName (IA5String), as Chilean
// advanced-signature certificates do.
func SubjectAltName(rut string) ([]byte, error) {
	value, err := asn1.MarshalWithParams(rut, "ia5")
	if err != nil {
		return nil, err
	}
	other, err := asn1.Marshal(struct {
		TypeID asn1.ObjectIdentifier
		Value  asn1.RawValue
	}{OIDRUT, asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: value}})
	if err != nil {
		return nil, err
	}
	// The otherName is the GeneralName [0]: re-tag the SEQUENCE as context-specific 0, constructed.
	other[0] = 0xA0
	return asn1.Marshal([]asn1.RawValue{{FullBytes: other}})
}

// Issue makes an advanced-signature certificate for h under ca, with a new key.
func (ca *Issued) Issue(h Holder) (*Issued, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("key of %s: %w", h.Name, err)
	}
	san, err := SubjectAltName(h.RUT)
	if err != nil {
		return nil, fmt.Errorf("subjectAltName of %s: %w", h.Name, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:       Serial(),
		Subject:            pkix.Name{CommonName: h.Name, SerialNumber: h.RUT, Country: []string{"CL"}},
		NotBefore:          h.NotBefore,
		NotAfter:           h.NotAfter,
		KeyUsage:           h.KeyUsage,
		ExtKeyUsage:        h.ExtKeyUsage,
		UnknownExtKeyUsage: h.UnknownExtKeyUsage,
		Policies:           h.Policies,
		OCSPServer:         h.OCSPServer,
		SignatureAlgorithm: h.SignatureAlgorithm,
		ExtraExtensions:    []pkix.Extension{{Id: asn1.ObjectIdentifier{2, 5, 29, 17}, Value: san}},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return nil, fmt.Errorf("issue %s: %w", h.Name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", h.Name, err)
	}
	return &Issued{Cert: cert, Key: key}, nil
}

// CertPEM is the certificate in PEM.
func (i *Issued) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: i.Cert.Raw})
}

// KeyPEM is the private key in PKCS#8 PEM.
func (i *Issued) KeyPEM() ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(i.Key)
	if err != nil {
		return nil, fmt.Errorf("encode key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// WriteFiles writes the certificate to dir/base.pem and, when withKey, the key to dir/base.key.
func (i *Issued) WriteFiles(dir, base string, withKey bool) error {
	if err := os.WriteFile(filepath.Join(dir, base+".pem"), i.CertPEM(), 0o644); err != nil {
		return fmt.Errorf("write %s.pem: %w", base, err)
	}
	if !withKey {
		return nil
	}
	key, err := i.KeyPEM()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, base+".key"), key, 0o644); err != nil {
		return fmt.Errorf("write %s.key: %w", base, err)
	}
	return nil
}
