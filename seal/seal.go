// Package seal makes the evidence of a completed envelope: each item's PDF with every field's
// value drawn where the field was, the certificate of completion appended, and a CMS digital
// signature over the whole file.
//
// The pipeline: gopdf draws an overlay, one page per stamped page (a white box under each field
// so placeholder text does not show through, then the value: text in the Go fonts, embedded and
// subset, which cover Latin-1 and Latin Extended-A: Ñ, Ğ, Ł...; drawn signatures as images),
// then the certificate pages. pdf.Stamp appends the overlay to the stored document (the
// normalised upload the signers were shown) as one incremental update: the stored bytes stay a
// prefix of the result and no page's own content or resources change. pdf.SignatureRoom, the
// same engine, appends the signature's dictionary, field and certification permissions, and the
// seal signs it as PAdES (subFilter ETSI.CAdES.detached, SHA-256, the ESS
// signing-certificate-v2 attribute, an RFC 3161 timestamp when a TSA is configured: see
// cades.go). No other PDF parser reads the document on the way. Before it is returned, the signed item is proved
// against the shown document (pdf.Prove): a difference outside the stamped fields is refused.
// The output of one input is the same document each time but for the signature's time, so a
// retried seal is harmless.
//
// It may import the domain (envelope), Sobre's pdf package and its PDF libraries; nothing else.
package seal

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/png" // signature images
	"strings"
	"time"

	"github.com/signintech/gopdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/pdf"
)

// Size is a page's displayed size in points.
type Size struct{ Width, Height float64 }

// Document is one envelope item as distributed.
type Document struct {
	ItemID string
	Title  string
	PDF    []byte // the normalised document the signers were shown
	Pages  []Size
	SHA256 string // of the original upload, for the certificate
	// ShownSHA256, when set, is the SHA-256 of the document as every recipient who completed
	// was shown it (their audit entries); the seal refuses a PDF with another.
	ShownSHA256 string
}

// Mark is one filled field: where (item, page from 1, box in percent of the page, origin top
// left) and what (text, or a PNG image for drawn signatures).
type Mark struct {
	ItemID   string
	Page     int
	X, Y     float64
	W, H     float64
	Type     envelope.FieldType
	Text     string
	PNG      []byte
	FontSize float64 // 0: fit the box
	Options  []string
}

// Party is a recipient as the certificate tells it.
type Party struct {
	Name, Email  string
	Role         envelope.Role
	Sent         *time.Time
	Opened       *time.Time
	Completed    *time.Time
	Rejected     bool
	IP           string
	UserAgent    string
	Auth         []string       // access and action auth that applied
	ClaveUnica   string         // "RUN 44444444-4, María Del Río" when verified
	Certificate  string         // "RUT 44444444-4, CN=…" for a FAO_HASH signature
	Revocation   string         // that certificate's revocation status: "good (OCSP, …)" or "not checked: …"
	Account      *AccountProofs // the signer account the completion rested on, if any
	Signature    string         // typed signature
	SignaturePNG []byte         // drawn signature
	// Prefilled are the fields an assistant filled for others, as sealed: "Bob <bob@x>: TEXT
	// «value»", each shown after "Filled in for".
	Prefilled []string
}

// AccountProofs are the signer account a recipient completed signed in to, and the proofs it
// gave just before: when, and which passkey (its credential id, base64url).
type AccountProofs struct {
	ID                            int64
	Email                         string
	PasswordAt, TOTPAt, PasskeyAt *time.Time
	PasskeyID                     string
}

// Input is everything a seal needs.
type Input struct {
	EnvelopeID string
	Title      string
	Language   envelope.Language
	Timezone   string
	Documents  []Document
	Marks      []Mark
	Parties    []Party
	AuditHash  string // the audit chain's hash when the envelope was sealed
	SealedAt   time.Time
	// UnstampedTSA, when set, is the timestamp authority (its URL) that was unavailable: the
	// signature carries no timestamp although a TSA is configured, and the certificate of
	// completion says so.
	UnstampedTSA string
}

// Signer is the seal's certificate and key, and the timestamp authority if any.
type Signer struct {
	Key    crypto.Signer
	Cert   *x509.Certificate
	Chain  []*x509.Certificate
	TSAURL string
	Name   string // shown as the signer: the seal's subject common name by default
}

// Sealed is one sealed item.
type Sealed struct {
	ItemID string
	PDF    []byte
}

// ErrNoPages is a document without pages to seal.
var ErrNoPages = errors.New("seal: the document has no pages")

// ErrNotShown is wrapped by the errors of a seal that would not show exactly what the signers
// were shown (see pdf.Prove) and by those of an item whose bytes are not those the signers
// completed on. Such a seal is never made; retrying cannot help.
var ErrNotShown = pdf.ErrNotShown

// Seal stamps, certifies and signs every item of in. Each signed item is proved against the
// document as distributed (pdf.Prove) before it is returned; a difference is an error wrapping
// ErrNotShown. It stops between items, and in the TSA's request, once ctx is done.
func Seal(ctx context.Context, in Input, s *Signer) ([]Sealed, error) {
	var out []Sealed
	for _, d := range in.Documents {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("seal: %w", err)
		}
		if d.ShownSHA256 != "" && d.ShownSHA256 != sha256Hex(d.PDF) {
			return nil, fmt.Errorf("%w: item %s is not the document its recipients completed on", ErrNotShown, d.ItemID)
		}
		doc, ov, boxes, err := stamp(in, d)
		if err != nil {
			return nil, fmt.Errorf("seal item %s: %w", d.ItemID, err)
		}
		signed, err := s.sign(ctx, doc, in)
		if err != nil {
			return nil, fmt.Errorf("sign item %s: %w", d.ItemID, err)
		}
		if err := pdf.Prove(d.PDF, signed, ov, boxes); err != nil {
			return nil, fmt.Errorf("prove item %s: %w", d.ItemID, err)
		}
		out = append(out, Sealed{ItemID: d.ItemID, PDF: signed})
	}
	return out, nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Certificate is the certificate of completion alone, signed.
func Certificate(ctx context.Context, in Input, s *Signer) ([]byte, error) {
	pdf := newDoc()
	if err := certificatePages(pdf, in); err != nil {
		return nil, err
	}
	return s.sign(ctx, pdf.GetBytesPdf(), in)
}

func newDoc() *gopdf.GoPdf {
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitPT})
	pdf.SetCompressLevel(9)
	// The Go fonts are valid TrueType; a failure here is a programming error caught by tests.
	_ = pdf.AddTTFFontData("regular", goregular.TTF)
	_ = pdf.AddTTFFontData("bold", gobold.TTF)
	_ = pdf.AddTTFFontData("italic", goitalic.TTF)
	return pdf
}

// stamp draws the marks of document d over its pages and appends the certificate, as one
// incremental update of the stored bytes (pdf.Stamp): the overlay is a PDF of the seal's own
// making, one page per stamped page, drawn with gopdf; the document itself is read only by the
// engine that normalised it. It returns the stamped PDF, the overlay and the stamped boxes.
func stamp(in Input, d Document) ([]byte, pdf.Overlay, []pdf.Match, error) {
	ov := pdf.Overlay{OnPage: map[int]int{}}
	if len(d.Pages) == 0 {
		return nil, ov, nil, ErrNoPages
	}
	overlay := newDoc()
	overlay.SetInfo(gopdf.PdfInfo{Producer: "Sobre", CreationDate: in.SealedAt})
	var boxes []pdf.Match
	for i, size := range d.Pages {
		var marks []Mark
		for _, m := range in.Marks {
			if m.ItemID == d.ItemID && m.Page == i+1 && m.W > 0 && m.H > 0 {
				marks = append(marks, m)
			}
		}
		if len(marks) == 0 {
			continue
		}
		overlay.AddPageWithOption(gopdf.PageOption{PageSize: &gopdf.Rect{W: size.Width, H: size.Height}})
		ov.OnPage[i+1] = overlay.GetNumberOfPages()
		for _, m := range marks {
			if err := drawMark(overlay, m, size); err != nil {
				return nil, ov, nil, fmt.Errorf("page %d, %s field: %w", i+1, m.Type, err)
			}
			boxes = append(boxes, pdf.Match{Page: m.Page, X: m.X, Y: m.Y, Width: m.W, Height: m.H})
		}
	}
	before := overlay.GetNumberOfPages()
	if err := certificatePages(overlay, in); err != nil {
		return nil, ov, nil, err
	}
	for p := before + 1; p <= overlay.GetNumberOfPages(); p++ {
		ov.Append = append(ov.Append, p)
	}
	ov.PDF = overlay.GetBytesPdf()
	out, err := pdf.Stamp(d.PDF, ov)
	if err != nil {
		return nil, ov, nil, err
	}
	return out, ov, boxes, nil
}

// drawMark paints a white box over the field, then its value.
func drawMark(pdf *gopdf.GoPdf, m Mark, page Size) error {
	x, y := m.X/100*page.Width, m.Y/100*page.Height
	w, h := m.W/100*page.Width, m.H/100*page.Height
	if w <= 0 || h <= 0 {
		return nil
	}
	// The white box reaches a little past the field: a placeholder's glyphs (braces, accents)
	// can stand out of the text box it was found in.
	padX, padY := 0.5, min(2, max(1, h*0.1))
	pdf.SetFillColor(255, 255, 255)
	pdf.RectFromUpperLeftWithStyle(x-padX, y-padY, w+2*padX, h+2*padY, "F")
	pdf.SetTextColor(20, 20, 20)
	if len(m.PNG) > 0 {
		if err := drawImage(pdf, m.PNG, x, y, w, h); err == nil {
			return nil
		}
		// An image that cannot be drawn must not hold the seal up for ever: the signature is
		// recorded (and the certificate says who signed); the field shows that it was signed.
		if m.Text == "" {
			m.Text = "(signed)"
		}
		m.PNG = nil
	}
	text := m.Text
	font := "regular"
	switch m.Type {
	case envelope.FieldSignature, envelope.FieldFreeSignature, envelope.FieldInitials:
		font = "italic"
	case envelope.FieldCheckbox:
		text = strings.Join(m.Options, ", ")
		if text != "" {
			text = "X " + text
		}
	case envelope.FieldRadio:
		if text != "" {
			text = "• " + text
		}
	}
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return fitText(pdf, font, text, x, y, w, h, m.FontSize)
}

// fitText writes text in the box, in the largest size up to max (or 70% of the box's height)
// whose width fits inside the box. There is no smallest size: text drawn past its box would be
// outside every field, which the seal's proof refuses, so a long name in a small box is drawn
// small rather than left unsealable.
func fitText(pdf *gopdf.GoPdf, font, text string, x, y, w, h, max float64) error {
	pad := min(1, w*0.1)
	size := h * 0.7
	if max > 0 && max < size {
		size = max
	}
	if err := pdf.SetFont(font, "", size); err != nil {
		return err
	}
	tw, err := pdf.MeasureTextWidth(text)
	if err != nil {
		return err
	}
	if room := w - 2*pad; tw > room && tw > 0 {
		// Width grows with the size in proportion; 2% spare for rounding in the font's metrics.
		if err := pdf.SetFont(font, "", size*room/tw*0.98); err != nil {
			return err
		}
	}
	pdf.SetXY(x+pad, y)
	return pdf.CellWithOption(&gopdf.Rect{W: w - 2*pad, H: h}, text, gopdf.CellOption{Align: gopdf.Left | gopdf.Middle})
}

// drawImage fits a PNG in the box, keeping its shape, centred.
func drawImage(pdf *gopdf.GoPdf, png []byte, x, y, w, h float64) error {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(png))
	if err != nil || cfg.Width == 0 || cfg.Height == 0 {
		return fmt.Errorf("signature image: %w", err)
	}
	scale := min(w/float64(cfg.Width), h/float64(cfg.Height))
	iw, ih := float64(cfg.Width)*scale, float64(cfg.Height)*scale
	holder, err := gopdf.ImageHolderByBytes(png)
	if err != nil {
		return err
	}
	return pdf.ImageByHolder(holder, x+(w-iw)/2, y+(h-ih)/2, &gopdf.Rect{W: iw, H: ih})
}

// sign adds the PAdES signature over the whole file as an incremental update: pdf.SignatureRoom
// (the engine that normalised and stamped the document) writes the signature dictionary, field
// and certification permissions, and signRoom fills its /Contents.
func (s *Signer) sign(ctx context.Context, doc []byte, in Input) ([]byte, error) {
	name := s.Name
	if name == "" {
		name = s.Cert.Subject.CommonName
	}
	// Room for the CMS: its attributes and signature, the certificates it carries, and the
	// timestamp token when a TSA is configured.
	room := 8192 + len(s.Cert.Raw)
	for _, c := range s.Chain {
		room += len(c.Raw)
	}
	if s.TSAURL != "" {
		room += tokenRoom
	}
	prepared, err := pdf.SignatureRoom(doc, pdf.Signature{Name: name, Reason: "Sealed by Sobre: " + in.EnvelopeID, Date: in.SealedAt, Room: room})
	if err != nil {
		return nil, fmt.Errorf("prepare the signature: %w", err)
	}
	return s.signRoom(ctx, prepared)
}
