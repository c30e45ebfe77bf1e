package fea_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/auth/fea"
)

const dir = "../../testdata/fea"

// The worked example of docs/fao-hash.md: its canonical text and digest.
func TestDigestExample(t *testing.T) {
	in := fea.DigestInput{
		EnvelopeID:  "envelope_abc",
		RecipientID: 42,
		Items:       []fea.Item{{ID: "envelope_item_1", SHA256: "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"}},
		Fields: []fea.Field{
			{ID: 7, Type: "SIGNATURE", Value: "María Del Río"},
			{ID: 9, Type: "TEXT", Value: "two\nlines"},
		},
	}
	want := "sobre-fao-hash v1\n" +
		"envelope 12:envelope_abc\n" +
		"recipient 42\n" +
		"item 15:envelope_item_1 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n" +
		"field 7 SIGNATURE 15:María Del Río\n" +
		"field 9 TEXT 9:two\nlines\n"
	if got := fea.Canonical(in); got != want {
		t.Fatalf("canonical text:\n%q\nwant\n%q", got, want)
	}
	if got := fea.Digest(in); got != "cc938c1d4549d015bd039465b0df61e5907bcd54d8b8819f50bf9051b74704b2" {
		t.Fatalf("digest %q", got)
	}
	// Moving text between fields changes the digest: lengths keep values apart.
	moved := in
	moved.Fields = []fea.Field{{ID: 7, Type: "SIGNATURE", Value: "María Del Río\nfield 9 TEXT 9:two"}, {ID: 9, Type: "TEXT", Value: "lines"}}
	if fea.Digest(moved) == fea.Digest(in) {
		t.Fatal("two different inputs share a digest")
	}
}

// sign makes a detached CMS signature over content with openssl and a certificate of the test CA.
func sign(t *testing.T, content, holder string, form string) []byte {
	t.Helper()
	return opensslSign(t, content, filepath.Join(dir, holder), filepath.Join(dir, "intermediate.pem"), "sha256", form)
}

// opensslSign signs content with openssl cms: the certificate base+".pem", its key base+".key",
// the chain certfile, the digest md, in form DER, PEM or DER-attached.
func opensslSign(t *testing.T, content, base, certfile, md, form string) []byte {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatal("openssl is missing")
		}
		t.Skip("openssl is missing")
	}
	tmp := t.TempDir()
	in := filepath.Join(tmp, "digest.txt")
	if err := os.WriteFile(in, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "sig")
	args := []string{"cms", "-sign", "-binary", "-md", md, "-in", in, "-signer", base + ".pem",
		"-inkey", base + ".key", "-certfile", certfile, "-outform", form, "-out", out}
	if form == "DER-attached" {
		args[len(args)-3] = "DER"
		args = append(args, "-nodetach")
	}
	if b, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
		t.Fatalf("openssl: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if form == "PEM" {
		block, _ := pem.Decode(b)
		return block.Bytes
	}
	return b
}

func TestVerify(t *testing.T) {
	roots, err := fea.LoadTrustRoots(filepath.Join(dir, "root.pem"))
	if err != nil {
		t.Fatal(err)
	}
	v := fea.Verifier{Roots: roots}
	digest := "5d41402abc4b2a76b9719d911017c592ae7c2bb8e1b8f8f0b8fce7f6a3b6d2f1"
	now := time.Now()
	cases := []struct {
		name    string
		cms     []byte
		want    error
		wantRUT string
	}{
		{"valid, DER", sign(t, digest, "holder-44444444-4", "DER"), nil, "44444444-4"},
		{"valid, from PEM", sign(t, digest, "holder-55555555-5", "PEM"), nil, "55555555-5"},
		{"attached with the digest as content", sign(t, digest, "holder-44444444-4", "DER-attached"), nil, "44444444-4"},
		{"over another digest", sign(t, "0000000000000000000000000000000000000000000000000000000000000000", "holder-44444444-4", "DER"), fea.ErrDigestMismatch, ""},
		{"attached over another digest", sign(t, "something else", "holder-44444444-4", "DER-attached"), fea.ErrDigestMismatch, ""},
		{"untrusted CA", sign(t, digest, "untrusted-holder", "DER"), fea.ErrUntrusted, ""},
		{"expired certificate", sign(t, digest, "holder-expired", "DER"), fea.ErrExpired, ""},
		{"garbage", []byte("not a signature"), fea.ErrMalformed, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := v.Verify(context.Background(), c.cms, digest, now)
			if !errors.Is(err, c.want) {
				t.Fatalf("Verify = %+v, %v; want %v", h, err, c.want)
			}
			if c.want == nil && (h.RUT != c.wantRUT || h.Subject == "" || h.Issuer == "") {
				t.Fatalf("holder %+v, want RUT %s", h, c.wantRUT)
			}
		})
	}
	h, err := v.Verify(context.Background(), sign(t, digest, "holder-55555555-5", "DER"), digest, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := fea.CheckRUT(h, "44444444-4"); !errors.Is(err, fea.ErrRUTMismatch) {
		t.Fatalf("another RUT: %v", err)
	}
	if _, err := (fea.Verifier{}).Verify(context.Background(), sign(t, digest, "holder-44444444-4", "DER"), digest, now); !errors.Is(err, fea.ErrUntrusted) {
		t.Fatalf("no roots configured: %v", err)
	}
}

func TestRUTOf(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(dir, "root.pem"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	root, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fea.RUTOf(root); !errors.Is(err, fea.ErrNoRUT) {
		t.Fatalf("a CA certificate has no RUT, got %v", err)
	}
}
