package seal_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/pdf"
	"github.com/sobre-sign/sobre/seal"
)

// tool finds a command-line checker; make test installs them (poppler-utils, qpdf).
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatalf("%s is missing", name)
		}
		t.Skipf("%s is missing: run make test", name)
	}
	return p
}

func run(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(tool(t, name), args...).CombinedOutput()
	return string(out), err
}

func drawnSignature() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 300, 100))
	for x := 20; x < 280; x++ {
		y := 50 + int(30*float64((x%60)-30)/30)
		for d := -2; d <= 2; d++ {
			img.Set(x, y+d, color.NRGBA{0, 0, 0, 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// input is an envelope of two signers with every field type, as the workflow's seal activity
// would build it.
func input(t *testing.T) seal.Input {
	return inputFrom(t, testpdf.Minimal("CONTRATO {{firma}}"))
}

func inputFrom(t *testing.T, original []byte) seal.Input {
	t.Helper()
	boxes, err := pdf.FindText(original, "{{firma}}")
	if err != nil {
		t.Fatal(err)
	}
	// The placeholder is left in the document (not whited out at distribution): the seal's own
	// white box under the field must hide it. The document is normalised, as every stored one.
	norm, err := pdf.Normalize(t.Context(), original, pdf.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	doc := norm.Data
	if len(boxes) != 1 {
		boxes = []pdf.Match{placeholderBox}
	}
	sig := drawnSignature()
	at := time.Date(2026, 11, 23, 15, 4, 5, 0, time.UTC)
	mark := func(y float64, ft envelope.FieldType, text string) seal.Mark {
		return seal.Mark{ItemID: "item1", Page: 1, X: 10, Y: y, W: 50, H: 4, Type: ft, Text: text}
	}
	return seal.Input{
		EnvelopeID: "envelope_test", Title: "Contrato de arriendo", Language: envelope.LanguageSpanish, Timezone: "America/Santiago",
		Documents: []seal.Document{{ItemID: "item1", Title: "contrato.pdf", PDF: doc, Pages: []seal.Size{{Width: 595.28, Height: 841.89}}, SHA256: "abc123"}},
		Marks: []seal.Mark{
			{ItemID: "item1", Page: 1, X: boxes[0].X, Y: boxes[0].Y, W: 30, H: 6, Type: envelope.FieldSignature, PNG: sig},
			mark(20, envelope.FieldSignature, "Zoë Łukasz-Ğüç"),
			mark(25, envelope.FieldInitials, "ZŁ"),
			mark(30, envelope.FieldName, "José Ñúñez"),
			mark(35, envelope.FieldEmail, "jose@example.cl"),
			mark(40, envelope.FieldDate, "2026-11-23 12:04 PM"),
			mark(45, envelope.FieldText, "Gerente de operaciones"),
			mark(50, envelope.FieldNumber, "1.234,50"),
			{ItemID: "item1", Page: 1, X: 10, Y: 55, W: 50, H: 4, Type: envelope.FieldCheckbox, Options: []string{"Mascotas", "Estacionamiento"}},
			mark(60, envelope.FieldRadio, "Mensual"),
			mark(65, envelope.FieldDropdown, "Valparaíso"),
			mark(70, envelope.FieldRUT, "12345678-5"),
			mark(75, envelope.FieldRUTFirmado, "44444444-4"),
		},
		Parties: []seal.Party{
			{Name: "José Ñúñez", Email: "jose@example.cl", Role: envelope.RoleSigner, Sent: &at, Opened: &at, Completed: &at, IP: "203.0.113.7", UserAgent: "Mozilla/5.0",
				Auth: []string{"CLAVE_UNICA"}, ClaveUnica: "RUN 44444444-4, José Ñúñez", SignaturePNG: sig},
			{Name: "Zoë Łukasz-Ğüç", Email: "zoe@example.com", Role: envelope.RoleSigner, Sent: &at, Opened: &at, Completed: &at, Signature: "Zoë Łukasz-Ğüç",
				Certificate: "RUT 55555555-5, CN=Zoë", Revocation: "good (OCSP, http://ocsp.test, 2026-01-02T03:04:05Z)"},
			{Name: "Ana", Email: "ana@example.cl", Role: envelope.RoleApprover, Sent: &at, Opened: &at, Completed: &at, Auth: []string{"PASSKEY", "PASSWORD"},
				Account: &seal.AccountProofs{ID: 12, Email: "ana@example.cl", PasskeyAt: &at, PasskeyID: "q1w2e3r4"}},
		},
		AuditHash: strings.Repeat("ab", 32),
		SealedAt:  at,
	}
}

// placeholderBox is where "{{firma}}" sits in testpdf.Minimal("CONTRATO {{firma}}").
var placeholderBox = func() pdf.Match {
	b, err := pdf.FindText(testpdf.Minimal("CONTRATO {{firma}}"), "{{firma}}")
	if err != nil || len(b) != 1 {
		panic("no placeholder in the test document")
	}
	return b[0]
}()

// placeholderCovered compares, pixel by pixel, the placeholder's box in the sealed page with
// the same box sealed from a document that never had the placeholder: the signature drawn over
// it must be all that shows (tolerance: 2 of 255 per channel, for anti-aliasing).
func placeholderCovered(t *testing.T, in seal.Input, sealed []byte) {
	t.Helper()
	clean := inputFrom(t, testpdf.Minimal("CONTRATO"))
	ref, err := seal.Seal(context.Background(), clean, signer(t))
	if err != nil {
		t.Fatal(err)
	}
	render := func(doc []byte) image.Image {
		b, err := pdf.RenderPage(doc, 1, 600)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	got, want := render(sealed), render(ref[0].PDF)
	bx := got.Bounds()
	x0, y0 := int(placeholderBox.X/100*float64(bx.Dx())), int(placeholderBox.Y/100*float64(bx.Dy()))
	x1, y1 := int((placeholderBox.X+placeholderBox.Width)/100*float64(bx.Dx())), int((placeholderBox.Y+placeholderBox.Height)/100*float64(bx.Dy()))
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			r1, g1, b1, _ := got.At(x, y).RGBA()
			r2, g2, b2, _ := want.At(x, y).RGBA()
			if diff(r1, r2) > 2*257 || diff(g1, g2) > 2*257 || diff(b1, b2) > 2*257 {
				t.Fatalf("the placeholder shows through at (%d, %d)", x, y)
			}
		}
	}
}

func diff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

func signer(t *testing.T) *seal.Signer {
	t.Helper()
	s, created, err := seal.DevSeal(t.TempDir())
	if err != nil || !created {
		t.Fatalf("dev seal: %v %v", created, err)
	}
	return s
}

func TestSealedPDFIsValidAndShowsEveryValue(t *testing.T) {
	in := input(t)
	out, err := seal.Seal(context.Background(), in, signer(t))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "sealed.pdf")
	if err := os.WriteFile(file, out[0].PDF, 0o600); err != nil {
		t.Fatal(err)
	}
	if sig, err := run(t, "pdfsig", file); err != nil || !strings.Contains(sig, "Signature is Valid") ||
		!strings.Contains(sig, "Signature Type: ETSI.CAdES.detached") || !strings.Contains(sig, "Hash Algorithm: SHA-256") {
		t.Fatalf("pdfsig: %v\n%s", err, sig)
	}
	if check, err := run(t, "qpdf", "--check", file); err != nil {
		t.Fatalf("qpdf --check: %v\n%s", err, check)
	}
	text, err := run(t, "pdftotext", file, "-")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CONTRATO", "José Ñúñez", "Zoë Łukasz-Ğüç", "jose@example.cl", "Gerente de operaciones", "1.234,50",
		"Mascotas", "Mensual", "Valparaíso", "12345678-5", "44444444-4", "Certificado de finalización", "203.0.113.7", in.AuditHash,
		"subido: " + in.Documents[0].SHA256, "Revocación: good (OCSP, http://ocsp.test, 2026-01-02T03:04:05Z)", "mostrado y sellado: " + hexSHA256(in.Documents[0].PDF),
		"Con sesión iniciada en la cuenta de ana@example.cl (12)", "llave de acceso:", "(q1w2e3r4)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the sealed PDF's text lacks %q", want)
		}
	}
	placeholderCovered(t, in, out[0].PDF)
	// One flipped byte inside the signed range breaks the signature.
	tampered := bytes.Clone(out[0].PDF)
	i := bytes.Index(tampered, []byte("/MediaBox"))
	if i < 0 {
		t.Fatal("no /MediaBox to tamper with")
	}
	tampered[i+2] ^= 0x01
	if err := os.WriteFile(file, tampered, 0o600); err != nil {
		t.Fatal(err)
	}
	if sig, _ := run(t, "pdfsig", file); !strings.Contains(sig, "Digest Mismatch") {
		t.Fatalf("pdfsig on a flipped byte:\n%s", sig)
	}
}

func TestCertificateAlone(t *testing.T) {
	cert, err := seal.Certificate(context.Background(), input(t), signer(t))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "certificate.pdf")
	if err := os.WriteFile(file, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	if sig, err := run(t, "pdfsig", file); err != nil || !strings.Contains(sig, "Signature is Valid") {
		t.Fatalf("pdfsig: %v\n%s", err, sig)
	}
}

func sealOnce(t *testing.T) ([]byte, error) {
	t.Helper()
	out, err := seal.Seal(context.Background(), input(t), signer(t))
	if err != nil {
		return nil, err
	}
	return out[0].PDF, nil
}

// A signature image that cannot be drawn never holds the seal up: the field shows it was signed.
func TestUnreadableImageDoesNotStopTheSeal(t *testing.T) {
	in := input(t)
	in.Marks[0].PNG = []byte("\x89PNG\r\n\x1a\n broken")
	in.Marks[0].Text = ""
	in.Parties[0].SignaturePNG = in.Marks[0].PNG
	out, err := seal.Seal(context.Background(), in, signer(t))
	if err != nil {
		t.Fatalf("seal with an unreadable image: %v", err)
	}
	file := filepath.Join(t.TempDir(), "sealed.pdf")
	if err := os.WriteFile(file, out[0].PDF, 0o600); err != nil {
		t.Fatal(err)
	}
	if text, _ := run(t, "pdftotext", file, "-"); !strings.Contains(text, "(signed)") {
		t.Fatalf("the field does not say it was signed:\n%s", text)
	}
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// A name longer than its box can hold at a readable size is drawn smaller, inside the box: the
// seal's proof refuses anything drawn outside the fields, and a signer's long name must not make
// an envelope unsealable.
func TestLongTextInASmallFieldSeals(t *testing.T) {
	in := input(t)
	in.Marks = append(in.Marks, seal.Mark{ItemID: "item1", Page: 1, X: 70, Y: 20, W: 2, H: 0.8,
		Type: envelope.FieldSignature, Text: "Bartolomé Undurraga Firmante de la Fuente y Errázuriz"})
	if _, err := seal.Seal(context.Background(), in, signer(t)); err != nil {
		t.Fatalf("a long name in a small field: %v", err)
	}
}

// Processes starting at once on one directory share one development seal, each reading it
// whole: one makes it, the others read the pair it made.
func TestDevSealMadeOnceUnderConcurrentStarts(t *testing.T) {
	dir := t.TempDir()
	const starts = 16
	subjects := make(chan string, starts)
	made := make(chan bool, starts)
	var wg sync.WaitGroup
	for range starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, created, err := seal.DevSeal(dir)
			if err != nil {
				t.Error(err)
				return
			}
			subjects <- string(s.Cert.Raw)
			made <- created
		}()
	}
	wg.Wait()
	close(subjects)
	close(made)
	distinct := map[string]bool{}
	for s := range subjects {
		distinct[s] = true
	}
	creators := 0
	for c := range made {
		if c {
			creators++
		}
	}
	if len(distinct) != 1 || creators != 1 {
		t.Fatalf("%d certificates, %d makers; want one of each", len(distinct), creators)
	}
}
