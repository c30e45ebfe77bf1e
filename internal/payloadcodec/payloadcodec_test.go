package payloadcodec_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/sobre-sign/sobre/internal/keyring"
	"github.com/sobre-sign/sobre/internal/payloadcodec"
)

func ring(t testing.TB, ids ...string) *keyring.Ring {
	t.Helper()
	var keys []keyring.Key
	for _, id := range ids {
		keys = append(keys, key(id))
	}
	r, err := keyring.New(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// keys are made once per id, so that two rings naming the same id hold the same key.
var keyCache = map[string]keyring.Key{}

func key(id string) keyring.Key {
	if k, ok := keyCache[id]; ok {
		return k
	}
	secret := make([]byte, keyring.KeySize)
	_, _ = rand.Read(secret)
	keyCache[id] = keyring.Key{ID: id, Secret: secret}
	return keyCache[id]
}

type recipient struct {
	Email string
	Name  string
}

func TestEncryptsEveryPayloadAndDecodesItBack(t *testing.T) {
	dc := payloadcodec.DataConverter(ring(t, "k1"))
	in := recipient{Email: "ana.perez@example.cl", Name: "Ana Pérez"}
	p, err := dc.ToPayload(in)
	if err != nil {
		t.Fatal(err)
	}
	if !payloadcodec.Encrypted(p) || string(p.Metadata[payloadcodec.MetadataKeyID]) != "k1" {
		t.Fatalf("metadata %v: want encoding %s and key k1", p.Metadata, payloadcodec.Encoding)
	}
	for _, clear := range []string{in.Email, "Ana", "json/plain"} {
		if bytes.Contains(p.Data, []byte(clear)) {
			t.Errorf("the encrypted payload holds %q in clear", clear)
		}
	}
	var out recipient
	if err := dc.FromPayload(p, &out); err != nil {
		t.Fatal(err)
	}
	if out != in {
		t.Fatalf("decoded %+v, want %+v", out, in)
	}
	// Two encodings of one value differ (a fresh nonce each time).
	q, _ := dc.ToPayload(in)
	if bytes.Equal(p.Data, q.Data) {
		t.Error("two encodings of one value are the same bytes")
	}
}

// A payload written before the codec (plain JSON in an older history) decodes as it is.
func TestPlainPayloadsPassThrough(t *testing.T) {
	plain, err := converter.GetDefaultDataConverter().ToPayload(recipient{Email: "a@b.cl"})
	if err != nil {
		t.Fatal(err)
	}
	var out recipient
	if err := payloadcodec.DataConverter(ring(t, "k1")).FromPayload(plain, &out); err != nil || out.Email != "a@b.cl" {
		t.Fatalf("plain payload: %+v %v", out, err)
	}
}

func TestRotation(t *testing.T) {
	before := payloadcodec.New(ring(t, "old"))
	sealed, err := before.Encode([]*commonpb.Payload{{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(`"secreto"`)}})
	if err != nil {
		t.Fatal(err)
	}
	// The key file after a rotation: a new first key, the old one kept.
	after := payloadcodec.New(ring(t, "new", "old"))
	got, err := after.Decode(sealed)
	if err != nil {
		t.Fatalf("a payload sealed with the old key after rotation: %v", err)
	}
	if string(got[0].Data) != `"secreto"` || string(got[0].Metadata["encoding"]) != "json/plain" {
		t.Fatalf("decoded %v", got[0])
	}
	fresh, err := after.Encode(got)
	if err != nil {
		t.Fatal(err)
	}
	if id := string(fresh[0].Metadata[payloadcodec.MetadataKeyID]); id != "new" {
		t.Errorf("after rotation payloads are sealed with %q, want the new first key", id)
	}

	// The old key removed too soon: the payload fails, naming the key it needs.
	_, err = payloadcodec.New(ring(t, "new")).Decode(sealed)
	if !errors.Is(err, keyring.ErrUnknownKey) || !strings.Contains(err.Error(), `"old"`) {
		t.Fatalf("a payload sealed with a key no longer in the ring: %v, want ErrUnknownKey naming \"old\"", err)
	}
}

func TestTamperedOrMisusedPayloadsFail(t *testing.T) {
	r := ring(t, "k1")
	c := payloadcodec.New(r)
	sealed, err := c.Encode([]*commonpb.Payload{{Data: []byte("x")}})
	if err != nil {
		t.Fatal(err)
	}
	bad := &commonpb.Payload{Metadata: sealed[0].Metadata, Data: bytes.Clone(sealed[0].Data)}
	bad.Data[len(bad.Data)-1] ^= 1
	if _, err := c.Decode([]*commonpb.Payload{bad}); err == nil {
		t.Error("a tampered payload decoded")
	}
	// A value the same ring sealed for another purpose does not open as a payload.
	keyID, other := r.Seal([]byte("token"), []byte("recipients.token"))
	misused := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte(payloadcodec.Encoding), payloadcodec.MetadataKeyID: []byte(keyID)}, Data: other}
	if _, err := c.Decode([]*commonpb.Payload{misused}); err == nil {
		t.Error("a value sealed for another context decoded as a payload")
	}
	if _, err := c.Open(&commonpb.Payload{Data: []byte("x")}); !errors.Is(err, payloadcodec.ErrNotEncrypted) {
		t.Errorf("Open of a plain payload: %v, want ErrNotEncrypted", err)
	}
}

// BenchmarkCodec measures sealing and opening one payload of the size of an envelope's snapshot
// (about 2 KiB of JSON); "overhead-B" is what encryption adds to the payload's size.
func BenchmarkCodec(b *testing.B) {
	c := payloadcodec.New(ring(b, "k1"))
	data := bytes.Repeat([]byte(`{"id":12,"email":"ana.perez@example.cl","name":"Ana Pérez"},`), 34)
	p := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: data}
	in := []*commonpb.Payload{p}
	sealed, err := c.Encode(in)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := c.Encode(in); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(sealed[0].Size()-p.Size()), "overhead-B")
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := c.Decode(sealed); err != nil {
				b.Fatal(err)
			}
		}
	})
}
