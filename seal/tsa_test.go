package seal_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/digitorus/pdfsign/verify"

	"github.com/sobre-sign/sobre/internal/tsatest"
	"github.com/sobre-sign/sobre/seal"
)

// testTSA is an RFC 3161 timestamp authority on loopback, with a certificate of its own.
func testTSA(t *testing.T) string {
	t.Helper()
	tsa, err := tsatest.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(tsa)
	t.Cleanup(srv.Close)
	return srv.URL
}

// With a TSA configured, the seal's signature carries an RFC 3161 timestamp that pdfsig reads.
func TestSealWithTimestamp(t *testing.T) {
	s := signer(t)
	s.TSAURL = testTSA(t)
	out, err := seal.Seal(context.Background(), input(t), s)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "sealed.pdf")
	if err := os.WriteFile(file, out[0].PDF, 0o600); err != nil {
		t.Fatal(err)
	}
	sig, err := run(t, "pdfsig", file)
	if err != nil || !strings.Contains(sig, "Signature is Valid") {
		t.Fatalf("pdfsig: %v\n%s", err, sig)
	}
	// pdfsig (poppler 22) does not print timestamps: read it with pdfsign's verifier.
	v, err := verify.Verify(bytes.NewReader(out[0].PDF), int64(len(out[0].PDF)))
	if err != nil || len(v.Signers) != 1 {
		t.Fatalf("verify: %v %+v", err, v)
	}
	sg := v.Signers[0]
	if !sg.ValidSignature || sg.TimestampStatus != "valid" || sg.TimeStamp == nil || time.Since(sg.TimeStamp.Time) > time.Minute {
		t.Fatalf("signature valid %v, timestamp %q %+v", sg.ValidSignature, sg.TimestampStatus, sg.TimeStamp)
	}
}

// A timestamp authority that cannot be reached, or answers 5xx or 429, is unavailable
// (seal.ErrTSAUnavailable: an outage that may pass); one that answers 4xx is not, and a seal
// whose context ended stops with the context's error.
func TestTSAUnavailable(t *testing.T) {
	answering := func(status int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "down", status)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name        string
		url         string
		ctx         context.Context
		unavailable bool
	}{
		{"a closed port", closedURL, context.Background(), true},
		{"503", answering(http.StatusServiceUnavailable), context.Background(), true},
		{"500", answering(http.StatusInternalServerError), context.Background(), true},
		{"429", answering(http.StatusTooManyRequests), context.Background(), true},
		{"400: the TSA answers and means it", answering(http.StatusBadRequest), context.Background(), false},
		{"context cancelled", testTSA(t), cancelled, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := signer(t)
			s.TSAURL = tt.url
			_, err := seal.Seal(tt.ctx, input(t), s)
			if err == nil {
				t.Fatal("sealed without its timestamp")
			}
			if got := errors.Is(err, seal.ErrTSAUnavailable); got != tt.unavailable {
				t.Errorf("errors.Is(%v, ErrTSAUnavailable) = %v, want %v", err, got, tt.unavailable)
			}
			if tt.ctx.Err() != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("%v does not wrap context.Canceled", err)
			}
		})
	}
}

// A seal made without its timestamp because the TSA was unavailable says so in its certificate
// of completion.
func TestUnstampedSealSaysSo(t *testing.T) {
	in := input(t)
	in.UnstampedTSA = "https://tsa.example.cl/tsr"
	out, err := seal.Seal(context.Background(), in, signer(t))
	if err != nil {
		t.Fatal(err)
	}
	text := normalizeSpace(pdftext(t, out[0].PDF))
	// The input is in Spanish; pdftotext breaks the URL where the line wraps.
	if want := "Sello de tiempo: ninguno; la autoridad de sellado de tiempo no estaba disponible al sellar: https://tsa.example."; !strings.Contains(text, want) {
		t.Errorf("the sealed PDF does not say %q:\n%s", want, text)
	}
	plain, err := seal.Certificate(context.Background(), input(t), signer(t))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(pdftext(t, plain), "Sello de tiempo") {
		t.Error("a seal without a TSA speaks of a timestamp")
	}
}
