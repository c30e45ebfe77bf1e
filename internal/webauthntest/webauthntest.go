// Package webauthntest is a software passkey authenticator and browser for tests: it answers the
// options of navigator.credentials.create and navigator.credentials.get (as the relying party
// sends them, JSON) with the PublicKeyCredential JSON a browser would post back, made with
// ECDSA P-256 keys (ES256) it holds in memory, "none" attestation.
//
// Each answer can be spoiled on purpose (Tweaks) so that a test checks the relying party refuses
// it: another origin, no user verification, a broken signature, a stale sign count.
//
// It is for tests only and imports nothing of Sobre.
package webauthntest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fxamacker/cbor/v2"
)

// Authenticator flags (WebAuthn §6.1).
const (
	flagUP = 0x01 // user present
	flagUV = 0x04 // user verified
	flagAT = 0x40 // attested credential data included
)

var b64 = base64.RawURLEncoding

// Credential is a passkey the authenticator holds.
type Credential struct {
	ID         []byte
	Key        *ecdsa.PrivateKey
	RPID       string
	UserHandle []byte
	SignCount  uint32
}

// Authenticator is a software authenticator behind a browser at Origin.
type Authenticator struct {
	// Origin is the page the browser says the ceremony runs on (clientDataJSON.origin), e.g.
	// "http://localhost:8080".
	Origin      string
	Credentials []*Credential
}

// New is an authenticator with no credential, behind a browser at origin.
func New(origin string) *Authenticator { return &Authenticator{Origin: origin} }

// Tweaks spoil an answer on purpose. The zero value gives a right answer.
type Tweaks struct {
	Origin         string  // claim this origin instead of the Authenticator's
	Challenge      string  // claim this challenge (base64url) instead of the options'
	NoUserVerified bool    // leave the UV flag off
	BreakSignature bool    // flip a bit of the assertion's signature
	SignCount      *uint32 // use this sign count instead of the next one
	RPID           string  // hash this relying party id instead of the options'
}

// creationOptions are the parts of PublicKeyCredentialCreationOptionsJSON it reads.
type creationOptions struct {
	Challenge string `json:"challenge"`
	RP        struct {
		ID string `json:"id"`
	} `json:"rp"`
	User struct {
		ID string `json:"id"`
	} `json:"user"`
	Exclude []struct {
		ID string `json:"id"`
	} `json:"excludeCredentials"`
}

// requestOptions are the parts of PublicKeyCredentialRequestOptionsJSON it reads.
type requestOptions struct {
	Challenge string `json:"challenge"`
	RPID      string `json:"rpId"`
	Allow     []struct {
		ID string `json:"id"`
	} `json:"allowCredentials"`
}

// unwrap reads options that may come wrapped as {"publicKey": {...}} (the WebAuthn library's
// CredentialCreation and CredentialAssertion) or bare.
func unwrap(options []byte, v any) error {
	var wrapped struct {
		PublicKey json.RawMessage `json:"publicKey"`
	}
	if err := json.Unmarshal(options, &wrapped); err == nil && len(wrapped.PublicKey) > 0 {
		options = wrapped.PublicKey
	}
	if err := json.Unmarshal(options, v); err != nil {
		return fmt.Errorf("webauthntest: read options: %w", err)
	}
	return nil
}

func (a *Authenticator) clientData(typ, challenge string, t Tweaks) []byte {
	origin := a.Origin
	if t.Origin != "" {
		origin = t.Origin
	}
	if t.Challenge != "" {
		challenge = t.Challenge
	}
	b, _ := json.Marshal(struct {
		Type        string `json:"type"`
		Challenge   string `json:"challenge"`
		Origin      string `json:"origin"`
		CrossOrigin bool   `json:"crossOrigin"`
	}{typ, challenge, origin, false})
	return b
}

func authData(rpID string, flags byte, count uint32, attested []byte) []byte {
	h := sha256.Sum256([]byte(rpID))
	out := append(h[:], flags)
	out = binary.BigEndian.AppendUint32(out, count)
	return append(out, attested...)
}

func flagsOf(t Tweaks, extra byte) byte {
	f := byte(flagUP) | extra
	if !t.NoUserVerified {
		f |= flagUV
	}
	return f
}

// coseKey is key as a COSE_Key (EC2, ES256, P-256).
func coseKey(key *ecdsa.PublicKey) ([]byte, error) {
	raw, err := key.ECDH()
	if err != nil {
		return nil, err
	}
	pt := raw.Bytes() // 0x04 || X || Y
	return cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: pt[1:33], -3: pt[33:65]})
}

// Create answers creation options (navigator.credentials.create) with a new credential, as the
// JSON of the PublicKeyCredential a browser posts back. An authenticator that holds a credential
// the options exclude refuses, as a real one does.
func (a *Authenticator) Create(options []byte, t Tweaks) ([]byte, error) {
	var o creationOptions
	if err := unwrap(options, &o); err != nil {
		return nil, err
	}
	for _, ex := range o.Exclude {
		for _, c := range a.Credentials {
			if ex.ID == b64.EncodeToString(c.ID) {
				return nil, errors.New("webauthntest: this authenticator holds an excluded credential")
			}
		}
	}
	user, err := b64.DecodeString(o.User.ID)
	if err != nil {
		return nil, fmt.Errorf("webauthntest: user id: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	id := make([]byte, 32)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	cose, err := coseKey(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	rpID := o.RP.ID
	if t.RPID != "" {
		rpID = t.RPID
	}
	var count uint32
	if t.SignCount != nil {
		count = *t.SignCount
	}
	attested := make([]byte, 16) // AAGUID: none
	attested = binary.BigEndian.AppendUint16(attested, uint16(len(id)))
	attested = append(append(attested, id...), cose...)
	att, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": authData(rpID, flagsOf(t, flagAT), count, attested)})
	if err != nil {
		return nil, err
	}
	a.Credentials = append(a.Credentials, &Credential{ID: id, Key: key, RPID: o.RP.ID, UserHandle: user, SignCount: count})
	return json.Marshal(map[string]any{
		"id": b64.EncodeToString(id), "rawId": b64.EncodeToString(id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(a.clientData("webauthn.create", o.Challenge, t)),
			"attestationObject": b64.EncodeToString(att),
			"transports":        []string{"internal"},
		},
	})
}

// Get answers request options (navigator.credentials.get) with an assertion by the first held
// credential they allow (any of the relying party's when they allow all), as the JSON of the
// PublicKeyCredential a browser posts back. Each assertion raises the credential's sign count.
func (a *Authenticator) Get(options []byte, t Tweaks) ([]byte, error) {
	var o requestOptions
	if err := unwrap(options, &o); err != nil {
		return nil, err
	}
	var cred *Credential
	for _, c := range a.Credentials {
		if c.RPID != o.RPID {
			continue
		}
		if len(o.Allow) == 0 {
			cred = c
			break
		}
		for _, al := range o.Allow {
			if al.ID == b64.EncodeToString(c.ID) {
				cred = c
			}
		}
		if cred != nil {
			break
		}
	}
	if cred == nil {
		return nil, errors.New("webauthntest: no credential for these options")
	}
	cred.SignCount++
	count := cred.SignCount
	if t.SignCount != nil {
		count = *t.SignCount
	}
	rpID := o.RPID
	if t.RPID != "" {
		rpID = t.RPID
	}
	ad := authData(rpID, flagsOf(t, 0), count, nil)
	cd := a.clientData("webauthn.get", o.Challenge, t)
	cdHash := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, ad...), cdHash[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, cred.Key, digest[:])
	if err != nil {
		return nil, err
	}
	if t.BreakSignature {
		sig[len(sig)-1] ^= 0x01
	}
	return json.Marshal(map[string]any{
		"id": b64.EncodeToString(cred.ID), "rawId": b64.EncodeToString(cred.ID), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(cd),
			"authenticatorData": b64.EncodeToString(ad),
			"signature":         b64.EncodeToString(sig),
			"userHandle":        b64.EncodeToString(cred.UserHandle),
		},
	})
}
