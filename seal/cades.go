package seal

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/digitorus/pkcs7"
	"github.com/digitorus/timestamp"

	"github.com/sobre-sign/sobre/pdf"
)

// The seal's CMS signature is PAdES (ETSI EN 319 142-1, ETSI.CAdES.detached): SHA-256, the ESS
// signing-certificate-v2 attribute that binds the seal's certificate, and the RFC 3161
// timestamp token as an unsigned attribute when a TSA is configured.
var byteRangeRE = regexp.MustCompile(`/ByteRange \[(\d+) (\d+) (\d+) (\d+) *\]`)

// tokenRoom is the room kept in the signature's /Contents for a timestamp token (bytes); a
// token with the TSA's certificate chain is usually 2 to 6 kB.
const tokenRoom = 12000

// ErrSignatureLayout is a prepared file whose signature dictionary is not as pdf.SignatureRoom
// writes it.
var ErrSignatureLayout = errors.New("seal: unexpected signature layout")

// signRoom signs a document prepared by pdf.SignatureRoom: the bytes around its /Contents, at
// the offsets SignatureRoom wrote it at (never searched for: the file also holds the upload's own
// strings), with the seal's CMS written into /Contents.
func (s *Signer) signRoom(ctx context.Context, p pdf.Prepared) ([]byte, error) {
	doc := p.Data
	br := [4]int{0, p.ContentsStart, p.ContentsEnd, len(doc) - p.ContentsEnd}
	if br[1] <= 0 || br[2] <= br[1]+2 || br[2] > len(doc) || doc[br[1]] != '<' || doc[br[2]-1] != '>' {
		return nil, fmt.Errorf("%w: /Contents at %d to %d of a %d-byte file", ErrSignatureLayout, br[1], br[2], len(doc))
	}
	if m := byteRangeRE.FindSubmatch(doc[max(0, br[1]-64):br[1]]); m == nil || string(m[2]) != strconv.Itoa(br[1]) ||
		string(m[3]) != strconv.Itoa(br[2]) || string(m[4]) != strconv.Itoa(br[3]) {
		return nil, fmt.Errorf("%w: the /ByteRange before /Contents is not %v", ErrSignatureLayout, br)
	}
	out := bytes.Clone(doc)

	signed := make([]byte, 0, br[1]+br[3])
	signed = append(signed, out[:br[1]]...)
	signed = append(signed, out[br[2]:]...)
	cms, err := s.cms(ctx, signed)
	if err != nil {
		return nil, err
	}
	room := br[2] - br[1] - 2
	if hex.EncodedLen(len(cms)) > room {
		return nil, fmt.Errorf("%w: the signature (%d bytes) does not fit its %d-byte room", ErrSignatureLayout, len(cms), room/2)
	}
	contents := out[br[1]+1 : br[2]-1]
	hex.Encode(contents, cms)
	for i := hex.EncodedLen(len(cms)); i < len(contents); i++ {
		contents[i] = '0'
	}
	return out, nil
}

// cms is the detached CAdES signature of content.
func (s *Signer) cms(ctx context.Context, content []byte) ([]byte, error) {
	sd, err := pkcs7.NewSignedData(content)
	if err != nil {
		return nil, fmt.Errorf("new signed data: %w", err)
	}
	sd.SetDigestAlgorithm(pkcs7.OIDDigestAlgorithmSHA256)
	certHash := sha256.Sum256(s.Cert.Raw)
	// SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 }, ESSCertIDv2 ::=
	// SEQUENCE { certHash OCTET STRING } (hashAlgorithm SHA-256 is the default, left out).
	essCert, err := asn1.Marshal(struct{ Certs []struct{ Hash []byte } }{Certs: []struct{ Hash []byte }{{Hash: certHash[:]}}})
	if err != nil {
		return nil, fmt.Errorf("signing certificate attribute: %w", err)
	}
	cfg := pkcs7.SignerInfoConfig{ExtraSignedAttributes: []pkcs7.Attribute{{
		Type:  asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 47}, // id-aa-signingCertificateV2
		Value: asn1.RawValue{FullBytes: essCert},
	}}}
	if err := sd.AddSignerChain(s.Cert, s.Key, s.Chain, cfg); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	sd.Detach()
	if s.TSAURL != "" {
		info := &sd.GetSignedData().SignerInfos[0]
		token, err := s.timestampToken(ctx, info.EncryptedDigest)
		if err != nil {
			return nil, err
		}
		err = info.SetUnauthenticatedAttributes([]pkcs7.Attribute{{
			Type:  asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 14}, // id-aa-timeStampToken
			Value: asn1.RawValue{FullBytes: token},
		}})
		if err != nil {
			return nil, fmt.Errorf("timestamp attribute: %w", err)
		}
	}
	return sd.Finish()
}

// tsaClient asks the timestamp authority; a TSA that does not answer in time is unavailable.
var tsaClient = &http.Client{Timeout: 30 * time.Second}

// ErrTSAUnavailable is wrapped by the errors of a seal whose timestamp authority could not be
// reached, did not answer in time, or answered 5xx or 429: an outage that may pass, unlike an
// answer the TSA gives and means (a 4xx, a token over another message).
var ErrTSAUnavailable = errors.New("seal: the timestamp authority is unavailable")

// timestampToken asks the TSA for an RFC 3161 token over the signature value.
func (s *Signer) timestampToken(ctx context.Context, signature []byte) ([]byte, error) {
	req, err := timestamp.CreateRequest(bytes.NewReader(signature), &timestamp.RequestOptions{Hash: crypto.SHA256, Certificates: true})
	if err != nil {
		return nil, fmt.Errorf("timestamp request: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, s.TSAURL, bytes.NewReader(req))
	if err != nil {
		return nil, fmt.Errorf("timestamp request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/timestamp-query")
	resp, err := tsaClient.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("timestamp authority: %w", ctx.Err())
		}
		return nil, fmt.Errorf("%w: %w", ErrTSAUnavailable, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: reading its answer: %w", ErrTSAUnavailable, err)
	}
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		return nil, fmt.Errorf("%w: it answered %s", ErrTSAUnavailable, resp.Status)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("timestamp authority answered %s", resp.Status)
	}
	ts, err := timestamp.ParseResponse(body)
	if err != nil {
		return nil, fmt.Errorf("timestamp authority's answer: %w", err)
	}
	if !bytes.Equal(ts.HashedMessage, sha256Of(signature)) {
		return nil, errors.New("timestamp authority stamped another message")
	}
	if len(ts.RawToken) > tokenRoom {
		return nil, fmt.Errorf("timestamp token of %d bytes exceeds the %d kept for it", len(ts.RawToken), tokenRoom)
	}
	return ts.RawToken, nil
}

func sha256Of(b []byte) []byte { h := sha256.Sum256(b); return h[:] }
