package webhook

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The known answer of Standard Webhooks' own libraries (libraries/go/webhook_test.go,
// TestWebhookSign): the same secret, id, time and body give the same signature.
const (
	specSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	specID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	specUnix      = 1614265330
	specBody      = `{"test": 2432232314}`
	specSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignMatchesTheSpecification(t *testing.T) {
	if got := Sign(specID, time.Unix(specUnix, 0), []byte(specBody), specSecret); got != specSignature {
		t.Fatalf("Sign = %q, want %q", got, specSignature)
	}
}

func TestSignSeveralSecrets(t *testing.T) {
	other := NewSecret()
	ts := time.Unix(specUnix, 999_000_000) // the fraction of a second is not signed
	got := Sign(specID, ts, []byte(specBody), specSecret, other)
	want := specSignature + " " + Sign(specID, ts, []byte(specBody), other)
	if got != want {
		t.Fatalf("Sign with two secrets = %q, want %q", got, want)
	}
	if Sign(specID, ts, []byte(specBody)) != "" {
		t.Fatal("Sign without a secret is not empty")
	}
}

func signedHeader(id string, ts time.Time, signature string) http.Header {
	h := http.Header{}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, fmt.Sprint(ts.Unix()))
	h.Set(HeaderSignature, signature)
	return h
}

func TestVerify(t *testing.T) {
	sent := time.Unix(specUnix, 0)
	body := []byte(specBody)
	oldSecret, newSecret := NewSecret(), NewSecret()
	tests := []struct {
		name   string
		secret string
		header http.Header
		body   string
		now    time.Time
		want   string // part of the error; "" for none
	}{
		{"the specification's example", specSecret, signedHeader(specID, sent, specSignature), specBody, sent, ""},
		{"the key without its prefix is another key", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", signedHeader(specID, sent, specSignature), specBody, sent, "no signature matches"},
		{"5 minutes late", specSecret, signedHeader(specID, sent, specSignature), specBody, sent.Add(5 * time.Minute), ""},
		{"5 minutes early", specSecret, signedHeader(specID, sent, specSignature), specBody, sent.Add(-5 * time.Minute), ""},
		{"expired", specSecret, signedHeader(specID, sent, specSignature), specBody, sent.Add(5*time.Minute + time.Second), "5m1s old"},
		{"from the future", specSecret, signedHeader(specID, sent, specSignature), specBody, sent.Add(-5*time.Minute - time.Second), "5m1s ahead"},
		{"body changed", specSecret, signedHeader(specID, sent, specSignature), `{"test": 2432232315}`, sent, "no signature matches"},
		{"id changed", specSecret, signedHeader("msg_other", sent, specSignature), specBody, sent, "no signature matches"},
		{"timestamp changed", specSecret, signedHeader(specID, sent.Add(time.Second), specSignature), specBody, sent, "no signature matches"},
		{"another secret", NewSecret(), signedHeader(specID, sent, specSignature), specBody, sent, "no signature matches"},
		{"rotation: the old secret verifies", oldSecret, signedHeader(specID, sent, Sign(specID, sent, body, newSecret, oldSecret)), specBody, sent, ""},
		{"rotation: the new secret verifies", newSecret, signedHeader(specID, sent, Sign(specID, sent, body, newSecret, oldSecret)), specBody, sent, ""},
		{"other versions and junk ignored", specSecret, signedHeader(specID, sent, "v2,abc v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= junk  "+specSignature), specBody, sent, ""},
		{"the right digest under another version", specSecret, signedHeader(specID, sent, "v1a,"+strings.TrimPrefix(specSignature, "v1,")), specBody, sent, "no signature matches"},
		{"a truncated signature", specSecret, signedHeader(specID, sent, specSignature[:len(specSignature)-2]), specBody, sent, "no signature matches"},
		{"no id", specSecret, signedHeader("", sent, specSignature), specBody, sent, "no webhook-id"},
		{"no signature", specSecret, signedHeader(specID, sent, ""), specBody, sent, "no webhook-signature"},
		{"no timestamp", specSecret, func() http.Header { h := signedHeader(specID, sent, specSignature); h.Del(HeaderTimestamp); return h }(), specBody, sent, "no webhook-timestamp"},
		{"timestamp in milliseconds", specSecret, func() http.Header {
			h := signedHeader(specID, sent, specSignature)
			h.Set(HeaderTimestamp, fmt.Sprint(sent.UnixMilli()))
			return h
		}(), specBody, sent, "ahead"},
		{"timestamp not a number", specSecret, func() http.Header {
			h := signedHeader(specID, sent, specSignature)
			h.Set(HeaderTimestamp, "2021-02-25T15:02:10Z")
			return h
		}(), specBody, sent, "is not Unix seconds"},
		{"a Documenso-style secret signs with its text", "a-plain-text-secret-of-some-length",
			signedHeader(specID, sent, Sign(specID, sent, body, "whsec_YS1wbGFpbi10ZXh0LXNlY3JldC1vZi1zb21lLWxlbmd0aA==")), specBody, sent, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, Verify(tt.secret, tt.header, []byte(tt.body), tt.now), tt.want)
		})
	}
}

func BenchmarkSign(b *testing.B) {
	body := []byte(strings.Repeat(`{"event":"DOCUMENT_SIGNED","payload":{}}`, 100)) // about 4 KiB
	secret := NewSecret()
	ts := time.Unix(specUnix, 0)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		Sign(specID, ts, body, secret)
	}
}
