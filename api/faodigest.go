package api

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// faoProofPart is one piece of a recipient's FAO_HASH proof as the owner downloads it.
type faoProofPart struct {
	contentType string
	file        string // file name, with %d for the recipient id
	missing     string // why there is nothing, with %d for the recipient id
	bytes       func(persistence.Identity) []byte
}

// The pieces a third party needs to check a FAO_HASH signature (docs/fao-hash.md): the exact
// bytes whose SHA-256 is the signed digest, the CMS signature, and the OCSP response about the
// certificate. All are Sobre extensions.
var (
	faoDigestInputPart = faoProofPart{contentType: "application/octet-stream", file: "fao-digest-input-%d.txt",
		missing: "Recipient %d has not completed with a FAO_HASH signature",
		bytes:   func(id persistence.Identity) []byte { return id.FEADigestInput }}
	faoSignaturePart = faoProofPart{contentType: "application/pkcs7-signature", file: "fao-signature-%d.p7s",
		missing: "Recipient %d has not completed with a FAO_HASH signature",
		bytes:   func(id persistence.Identity) []byte { return id.FEACMS }}
	faoOCSPPart = faoProofPart{contentType: "application/ocsp-response", file: "fao-ocsp-%d.der",
		missing: "No OCSP response is kept for recipient %d (their certificate's revocation was not checked, or they did not complete with FAO_HASH)",
		bytes:   func(id persistence.Identity) []byte { return id.FEAOCSP }}
)

// faoProof answers GET /envelope/recipient/{recipientId}/fao-{digest-input,signature,ocsp}:
// part of the recipient's FAO_HASH proof as their completion recorded it. The recipient must
// belong to an envelope of the key's team and have completed with a FAO_HASH signature (404
// otherwise). Repr-Digest (RFC 9530) carries the SHA-256 of the body: for the digest input,
// the signed digest itself.
func (s *Server) faoProof(part faoProofPart) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "recipientId")
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if _, err := s.store.EnvelopeIDOfRecipient(r.Context(), scope(r), id); err != nil {
			s.writeError(w, r, err)
			return
		}
		identity, err := s.store.RecipientIdentity(r.Context(), id)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		// A proof counts only with its digest input, which completion records: without it the
		// recipient did not complete with this signature.
		body := part.bytes(identity)
		if len(identity.FEADigestInput) == 0 || len(body) == 0 {
			s.writeError(w, r, envelope.Errorf(envelope.CodeNotFound, part.missing, id))
			return
		}
		sum := sha256.Sum256(body)
		w.Header().Set("Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
		writeFile(w, part.contentType, "attachment", envelope.FileName(fmt.Sprintf(part.file, id), ""), body)
	}
}
