package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of Standard Webhooks 1.0.
const (
	HeaderID        = "webhook-id"        // the event's id, the same on every attempt
	HeaderTimestamp = "webhook-timestamp" // the attempt's Unix seconds
	HeaderSignature = "webhook-signature" // "v1,<base64>", several separated by spaces
)

// Tolerance is how far a webhook-timestamp may be from the receiver's clock, either side,
// for Verify to accept it.
const Tolerance = 5 * time.Minute

// signatureVersion prefixes each signature: v1 is HMAC-SHA256.
const signatureVersion = "v1,"

// Sign is the webhook-signature header of a message under Standard Webhooks 1.0: for each
// secret, "v1," and the standard base64 of HMAC-SHA256(SigningKey(secret), msgID + "." +
// Unix seconds of ts + "." + body), separated by single spaces, in the order of secrets (during
// a rotation, the new and the old secret both sign).
func Sign(msgID string, ts time.Time, body []byte, secrets ...string) string {
	sigs := make([]string, len(secrets))
	for i, secret := range secrets {
		sigs[i] = signatureVersion + base64.StdEncoding.EncodeToString(mac(SigningKey(secret), msgID, ts.Unix(), body))
	}
	return strings.Join(sigs, " ")
}

// mac is the HMAC-SHA256 of the signed content: id.timestamp.body.
func mac(key []byte, msgID string, unix int64, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msgID))
	h.Write([]byte{'.'})
	h.Write(strconv.AppendInt(nil, unix, 10))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Verify checks a received webhook as a Standard Webhooks 1.0 consumer does: webhook-id,
// webhook-timestamp (decimal Unix seconds) and webhook-signature are present, the timestamp is
// within Tolerance of now either side, and at least one of the space-separated "v1,"
// signatures equals the HMAC of secret over id.timestamp.body (compared in constant time);
// signatures of other versions are ignored.
func Verify(secret string, header http.Header, body []byte, now time.Time) error {
	id, stamp, sigs := header.Get(HeaderID), header.Get(HeaderTimestamp), header.Get(HeaderSignature)
	switch {
	case id == "":
		return errors.New("no " + HeaderID + " header")
	case stamp == "":
		return errors.New("no " + HeaderTimestamp + " header")
	case sigs == "":
		return errors.New("no " + HeaderSignature + " header")
	}
	unix, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return fmt.Errorf("%s %q is not Unix seconds", HeaderTimestamp, stamp)
	}
	if age := now.Sub(time.Unix(unix, 0)); age > Tolerance {
		return fmt.Errorf("%s is %s old, more than %s", HeaderTimestamp, age.Truncate(time.Second), Tolerance)
	} else if age < -Tolerance {
		return fmt.Errorf("%s is %s ahead, more than %s", HeaderTimestamp, (-age).Truncate(time.Second), Tolerance)
	}
	want := []byte(signatureVersion + base64.StdEncoding.EncodeToString(mac(SigningKey(secret), id, unix, body)))
	for sig := range strings.FieldsSeq(sigs) {
		if hmac.Equal([]byte(sig), want) {
			return nil
		}
	}
	return errors.New("no signature matches the secret")
}
