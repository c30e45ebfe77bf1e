// Package payloadcodec encrypts every Temporal payload Sobre writes (workflow inputs, Update
// arguments and results, activity inputs and results, memos, failure messages) with the
// server's keyring, so that Temporal's history, its database and its Web UI hold ciphertext only.
// Search attributes are not payloads of the codec: Temporal indexes them, and they stay readable.
//
// An encrypted payload is the original payload, marshalled, sealed with AES-256-GCM by the ring's
// first key: its metadata says "encoding: binary/encrypted" and names the key
// ("encryption-key-id"), so a payload sealed before a rotation still opens with the old key
// kept in the file. Payloads that are not encrypted (histories written before the codec) pass
// through Decode unchanged.
//
// Every Temporal client of one deployment (API, worker, `sobre dev`, `sobre codec-server`) must
// load the same keys. It imports the keyring and Temporal's converter only.
package payloadcodec

import (
	"errors"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"

	"github.com/sobre-sign/sobre/internal/keyring"
)

// Metadata of an encrypted payload.
const (
	Encoding      = "binary/encrypted"  // the value of the "encoding" metadata
	MetadataKeyID = "encryption-key-id" // the id of the key that sealed it
)

// sealContext binds a sealed payload to its use: a value the same ring sealed for another
// purpose (a signing token) never opens as a payload, nor the other way round.
var sealContext = []byte("sobre/temporal-payload/v1")

// ErrNotEncrypted is returned by Open for a payload this codec did not encrypt.
var ErrNotEncrypted = errors.New("payloadcodec: payload is not encrypted")

// Codec is a converter.PayloadCodec that seals payloads with a keyring.
type Codec struct {
	ring *keyring.Ring
}

// New returns the codec of ring.
func New(ring *keyring.Ring) *Codec {
	return &Codec{ring: ring}
}

// Encode seals each payload with the ring's first key.
func (c *Codec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		plain, err := proto.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("payloadcodec: marshal payload: %w", err)
		}
		keyID, sealed := c.ring.Seal(plain, sealContext)
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{
				converter.MetadataEncoding: []byte(Encoding),
				MetadataKeyID:              []byte(keyID),
			},
			Data: sealed,
		}
	}
	return out, nil
}

// Decode opens each encrypted payload; others are returned as they are.
func (c *Codec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if !Encrypted(p) {
			out[i] = p
			continue
		}
		plain, err := c.Open(p)
		if err != nil {
			return nil, err
		}
		out[i] = plain
	}
	return out, nil
}

// Open decrypts one encrypted payload. A payload sealed with a key the ring does not hold fails
// with an error wrapping keyring.ErrUnknownKey and naming the key.
func (c *Codec) Open(p *commonpb.Payload) (*commonpb.Payload, error) {
	if !Encrypted(p) {
		return nil, ErrNotEncrypted
	}
	keyID := string(p.GetMetadata()[MetadataKeyID])
	plain, err := c.ring.Open(keyID, p.GetData(), sealContext)
	if err != nil {
		return nil, fmt.Errorf("payloadcodec: decrypt payload sealed with key %q: %w", keyID, err)
	}
	var orig commonpb.Payload
	if err := proto.Unmarshal(plain, &orig); err != nil {
		return nil, fmt.Errorf("payloadcodec: unmarshal payload sealed with key %q: %w", keyID, err)
	}
	return &orig, nil
}

// Encrypted reports whether p is a payload this codec encrypted.
func Encrypted(p *commonpb.Payload) bool {
	return string(p.GetMetadata()[converter.MetadataEncoding]) == Encoding
}

// DataConverter is Temporal's default data converter with every payload sealed by ring.
func DataConverter(ring *keyring.Ring) converter.DataConverter {
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), New(ring))
}

// FailureConverter encodes failures' messages and stack traces with dc (so an error's text,
// which may quote a name or an address, is sealed too); their types (the domain error codes the
// API reads back) stay readable.
func FailureConverter(dc converter.DataConverter) converter.FailureConverter {
	return temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{DataConverter: dc, EncodeCommonAttributes: true})
}
