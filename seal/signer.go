package seal

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// LoadP12 reads the seal's key and certificate (and its chain) from a PKCS#12 file.
func LoadP12(path, password string) (*Signer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read seal P12: %w", err)
	}
	key, cert, chain, err := pkcs12.DecodeChain(raw, password)
	if err != nil {
		return nil, fmt.Errorf("decode seal P12 %s: %w", path, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("seal P12 %s: its key cannot sign", path)
	}
	return &Signer{Key: signer, Cert: cert, Chain: chain}, nil
}

// LoadPEM reads the seal's certificate (followed by its chain) and key from PEM files.
func LoadPEM(certFile, keyFile string) (*Signer, error) {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("load seal certificate and key: %w", err)
	}
	signer, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, errors.New("seal key cannot sign")
	}
	var certs []*x509.Certificate
	for _, der := range pair.Certificate {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("parse seal certificate: %w", err)
		}
		certs = append(certs, c)
	}
	return &Signer{Key: signer, Cert: certs[0], Chain: certs[1:]}, nil
}

// DevSeal returns the self-signed development seal kept in dir (seal-dev.crt and seal-dev.key),
// making it on first use. Such a seal proves integrity but no identity: PDF readers show it as
// from an unknown issuer. created reports whether it was made now. Of processes starting at once
// on one dir, the one whose key is linked into place first makes the seal; the others wait (up to
// devSealWait) for its certificate, which is linked last, and read the pair whole.
func DevSeal(dir string) (s *Signer, created bool, err error) {
	certFile, keyFile := filepath.Join(dir, "seal-dev.crt"), filepath.Join(dir, "seal-dev.key")
	if _, err := os.Stat(certFile); err == nil {
		s, err := LoadPEM(certFile, keyFile)
		return s, false, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, false, err
	}
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 100))
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "Sobre development seal (self-signed)", Organization: []string{"Sobre"}},
		NotBefore:    now.Add(-time.Hour), NotAfter: now.AddDate(10, 0, 0),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageEmailProtection},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, false, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, err
	}
	won, err := linkInto(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
	if err != nil {
		return nil, false, err
	}
	if !won {
		return waitForDevSeal(certFile, keyFile)
	}
	if _, err := linkInto(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return nil, false, err
	}
	s, err = LoadPEM(certFile, keyFile)
	return s, true, err
}

// devSealWait is how long DevSeal waits for another process's development seal.
const devSealWait = 10 * time.Second

// waitForDevSeal reads the development seal another process is making, once its certificate
// is in place.
func waitForDevSeal(certFile, keyFile string) (*Signer, bool, error) {
	for deadline := time.Now().Add(devSealWait); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(certFile); err == nil {
			s, err := LoadPEM(certFile, keyFile)
			return s, false, err
		}
	}
	return nil, false, fmt.Errorf("development seal: %s exists without %s after %s (remove it to make a new seal)", keyFile, certFile, devSealWait)
}

// linkInto writes data aside and links it into place as path, so that no reader sees it half
// written; won is false when path existed already (left as it was).
func linkInto(path string, data []byte, perm os.FileMode) (won bool, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return false, err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err != nil {
		return false, err
	}
	err = os.Link(tmp, path)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	return err == nil, err
}
