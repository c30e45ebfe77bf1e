// Command featestca writes the test certification authority of FAO_HASH into a folder
// (testdata/fea): a root and an intermediate CA, advanced-signature certificates for sandbox
// RUNs (the RUT in a subjectAltName otherName 1.3.6.1.4.1.8321.1, as Decreto 181 puts it), an
// expired one, and one from a root nobody trusts. Holder keys are written too: they are test
// keys, committed on purpose, for tests that sign digests with openssl. CA keys are not kept.
//
//	go run ./scripts/featestca testdata/fea
package main

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

var oidRUT = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 8321, 1}

type issued struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: featestca DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "featestca:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(24 * time.Hour)
	long := now.AddDate(30, 0, 0)
	root, err := ca("Sobre Test FEA Root CA", nil, now.AddDate(-1, 0, 0), long)
	if err != nil {
		return err
	}
	inter, err := ca("Sobre Test FEA Issuing CA", root, now.AddDate(-1, 0, 0), long)
	if err != nil {
		return err
	}
	stranger, err := ca("Untrusted Test Root CA", nil, now.AddDate(-1, 0, 0), long)
	if err != nil {
		return err
	}
	holders := []struct {
		file, name, rut string
		issuer          *issued
		from, to        time.Time
	}{
		{"holder-44444444-4", "María Carmen Del Río González", "44444444-4", inter, now.AddDate(-1, 0, 0), long},
		{"holder-55555555-5", "José Miguel Ñúñez Pérez", "55555555-5", inter, now.AddDate(-1, 0, 0), long},
		{"holder-expired", "María Carmen Del Río González", "44444444-4", inter, now.AddDate(-3, 0, 0), now.AddDate(-1, 0, 0)},
		{"untrusted-holder", "María Carmen Del Río González", "44444444-4", stranger, now.AddDate(-1, 0, 0), long},
	}
	for _, h := range holders {
		leaf, err := holder(h.name, h.rut, h.issuer, h.from, h.to)
		if err != nil {
			return err
		}
		if err := writePEM(filepath.Join(dir, h.file+".pem"), "CERTIFICATE", leaf.cert.Raw); err != nil {
			return err
		}
		der, err := x509.MarshalPKCS8PrivateKey(leaf.key)
		if err != nil {
			return err
		}
		if err := writePEM(filepath.Join(dir, h.file+".key"), "PRIVATE KEY", der); err != nil {
			return err
		}
	}
	for file, c := range map[string]*issued{"root.pem": root, "intermediate.pem": inter, "untrusted-root.pem": stranger} {
		if err := writePEM(filepath.Join(dir, file), "CERTIFICATE", c.cert.Raw); err != nil {
			return err
		}
	}
	return nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 100))
	return n
}

func ca(name string, parent *issued, from, to time.Time) (*issued, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: name, Organization: []string{"Sobre test"}, Country: []string{"CL"}},
		NotBefore: from, NotAfter: to, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	signer, signerCert := key, tmpl
	if parent != nil {
		signer, signerCert = parent.key, parent.cert
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signerCert, &key.PublicKey, signer)
	if err != nil {
		return nil, fmt.Errorf("issue %s: %w", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	return &issued{cert: cert, key: key}, err
}

// subjectAltName holds the RUT as an otherName (IA5String), as Chilean advanced-signature
// certificates do.
func subjectAltName(rut string) ([]byte, error) {
	value, err := asn1.MarshalWithParams(rut, "ia5")
	if err != nil {
		return nil, err
	}
	other, err := asn1.Marshal(struct {
		TypeID asn1.ObjectIdentifier
		Value  asn1.RawValue
	}{oidRUT, asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: value}})
	if err != nil {
		return nil, err
	}
	// The otherName is the GeneralName [0]: re-tag the SEQUENCE as context-specific 0, constructed.
	other[0] = 0xA0
	return asn1.Marshal([]asn1.RawValue{{FullBytes: other}})
}

func holder(name, rut string, issuer *issued, from, to time.Time) (*issued, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	san, err := subjectAltName(rut)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name, SerialNumber: rut, Country: []string{"CL"}},
		NotBefore:    from, NotAfter: to,
		KeyUsage:        x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		ExtKeyUsage:     []x509.ExtKeyUsage{x509.ExtKeyUsageEmailProtection},
		ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{2, 5, 29, 17}, Value: san}},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer.cert, &key.PublicKey, issuer.key)
	if err != nil {
		return nil, fmt.Errorf("issue %s: %w", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	return &issued{cert: cert, key: key}, err
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o644)
}
