// Package fea verifies FAO_HASH signatures: a recipient's advanced electronic signature (firma
// electrónica avanzada, Ley 19.799) over a digest of what they sign. The digest covers the
// envelope's documents as distributed and the recipient's field values, in the canonical form
// written down here and in docs/fao-hash.md; the signer returns a detached CMS (PKCS#7)
// signature over the digest's hex text; Verify checks the signature and its algorithms (no SHA-1,
// no MD5), the certificate's key usage, extended key usage and policy, its chain to the configured
// trust roots, its validity now and its revocation by OCSP, and reads the holder's RUT from the
// certificate (Decreto 181: subjectAltName otherName 1.3.6.1.4.1.8321.1).
//
// This meaning of FAO_HASH (Firma Avanzada Online over a hash) is Sobre's own; no public source
// defines the name.
//
// It may import the domain (envelope), the CMS library and golang.org/x/crypto/ocsp; nothing else
// of Sobre's. Package featest makes test CAs, holders and OCSP responders for its tests.
package fea

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Version is the canonical form's version, its first line.
const Version = "sobre-fao-hash v1"

// Item is one envelope item as distributed: its id and the SHA-256 (hex) of its PDF.
type Item struct {
	ID     string
	SHA256 string
}

// Field is one of the recipient's fields: its id, type and value (customText; for a signature
// its typed text, or the SHA-256 hex of its PNG image).
type Field struct {
	ID    int64
	Type  string
	Value string
}

// DigestInput is what a FAO_HASH digest covers.
type DigestInput struct {
	EnvelopeID  string
	RecipientID int64
	Items       []Item  // in the envelope's item order
	Fields      []Field // in field id order
}

// Canonical is the text whose SHA-256 is the digest: UTF-8, one element per line, each line
// ending in "\n":
//
//	sobre-fao-hash v1
//	envelope <byte length>:<envelope id>
//	recipient <recipient id>
//	item <byte length>:<item id> <sha256 hex of the PDF>      (one per item, in order)
//	field <field id> <TYPE> <byte length>:<value>             (one per field, by id)
//
// Every free text is prefixed by its length in bytes, so no two inputs share a canonical text
// whatever characters (spaces, newlines) their values hold.
func Canonical(in DigestInput) string {
	var b strings.Builder
	b.WriteString(Version + "\n")
	fmt.Fprintf(&b, "envelope %d:%s\n", len(in.EnvelopeID), in.EnvelopeID)
	fmt.Fprintf(&b, "recipient %d\n", in.RecipientID)
	for _, it := range in.Items {
		fmt.Fprintf(&b, "item %d:%s %s\n", len(it.ID), it.ID, strings.ToLower(it.SHA256))
	}
	for _, f := range in.Fields {
		fmt.Fprintf(&b, "field %d %s %d:%s\n", f.ID, f.Type, len(f.Value), f.Value)
	}
	return b.String()
}

// Digest is the SHA-256 of the canonical text, as 64 lower-case hex digits: what the signer signs.
func Digest(in DigestInput) string {
	sum := sha256.Sum256([]byte(Canonical(in)))
	return hex.EncodeToString(sum[:])
}
