package pdf

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"maps"
	"time"
	"unicode/utf16"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Prepared is a document with room for its signature: Data[ContentsStart] is the '<' and
// Data[ContentsEnd-1] the '>' of the signature's /Contents, and its /ByteRange is
// [0 ContentsStart ContentsEnd len(Data)-ContentsEnd].
type Prepared struct {
	Data                       []byte
	ContentsStart, ContentsEnd int
}

// Signature describes the certification signature SignatureRoom prepares.
type Signature struct {
	Name, Reason string
	Date         time.Time
	// Room is how many bytes the DER signature may take in /Contents.
	Room int
}

// Markers of the signature dictionary SignatureRoom writes, for the signer to find: PAdES
// (ETSI EN 319 142-1) names its CMS signatures ETSI.CAdES.detached.
var (
	SubFilterCAdES = []byte("/SubFilter /ETSI.CAdES.detached")
	byteRangeRoom  = "/ByteRange [" + string(bytes.Repeat([]byte(" "), 40)) + "]"
)

// SignatureRoom appends to data one incremental update that makes room for a certification
// signature over the whole file, written by this package and read by pdfcpu (the engine that
// normalised and stamped the document), so that no other parser reads it on the way:
//
//   - a signature dictionary (/Type /Sig, /SubFilter /ETSI.CAdES.detached) with a DocMDP
//     reference that allows no change after it (P 1), and a /Contents hex string of zeros of
//     Room bytes;
//   - an invisible signature field (/Rect [0 0 0 0]; /F 132, print and locked), on the first
//     page but not among its annotations: nothing is drawn;
//   - a new version of the catalog with /AcroForm << /Fields [the field] /SigFlags 3 >> and
//     /Perms << /DocMDP the signature >>: the entries pdf.Prove lets a seal add.
//
// Its /ByteRange is filled in: everything but /Contents. The caller signs those bytes and writes
// the DER signature, hex-encoded, into /Contents, at the offsets returned: never found by
// searching the file, which holds the upload's own strings too. A document that already has a
// form or permissions is refused (normalised documents have none).
func SignatureRoom(data []byte, sig Signature) (room Prepared, err error) {
	defer func() {
		if v := recover(); v != nil {
			room, err = Prepared{}, fmt.Errorf("%w: pdfcpu failed while preparing the signature: %v", ErrNotPDF, v)
		}
	}()
	ctx, pages, err := read(data)
	if err != nil {
		return room, fmt.Errorf("read the document to sign: %w", err)
	}
	prevXRef, xrefStream, err := lastXRef(data)
	if err != nil {
		return room, err
	}
	if ctx.Read.RepairOffset != 0 || ctx.Root == nil {
		return room, fmt.Errorf("%w: the document cannot take an incremental update", errNoUpdate)
	}
	root, err := ctx.Catalog()
	if err != nil || root == nil {
		return room, fmt.Errorf("%w: no document catalog", ErrNotPDF)
	}
	for _, k := range []string{"AcroForm", "Perms"} {
		if _, ok := root.Find(k); ok {
			return room, fmt.Errorf("pdf: the document to sign already has /%s", k)
		}
	}
	_, pageRef, _, err := ctx.PageDict(1, false)
	if err != nil || pageRef == nil {
		return room, fmt.Errorf("%w: page 1: %v", ErrNotPDF, err)
	}

	u := newUpdate(data, ctx)
	sigNr, fieldNr := u.next, u.next+1
	u.next += 2

	// The signature dictionary, written by hand: the signer finds /Contents and /ByteRange in it.
	u.offsets[sigNr], u.gens[sigNr] = int64(u.buf.Len()), 0
	fmt.Fprintf(&u.buf, "%d 0 obj\n<< /Type /Sig /Filter /Adobe.PPKLite %s ", sigNr, SubFilterCAdES)
	byteRangeAt := u.buf.Len()
	fmt.Fprintf(&u.buf, "%s /Contents <", byteRangeRoom)
	contentsAt := u.buf.Len() - 1
	u.buf.Write(bytes.Repeat([]byte("0"), 2*sig.Room))
	u.buf.WriteString(">")
	contentsEnd := u.buf.Len()
	fmt.Fprintf(&u.buf, " /M (D:%s) /Name %s /Reason %s"+
		" /Reference [<< /Type /SigRef /TransformMethod /DocMDP /TransformParams << /Type /TransformParams /P 1 /V /1.2 >> >>] >>\nendobj\n",
		sig.Date.UTC().Format("20060102150405")+"+00'00'", textString(sig.Name), textString(sig.Reason))

	sigRef, fieldRef := *types.NewIndirectRef(sigNr, 0), *types.NewIndirectRef(fieldNr, 0)
	field := types.Dict{"FT": types.Name("Sig"), "Type": types.Name("Annot"), "Subtype": types.Name("Widget"), "F": types.Integer(132),
		"T": types.StringLiteral("Signature 1"), "V": sigRef, "P": *pageRef,
		"Rect": types.Array{types.Integer(0), types.Integer(0), types.Integer(0), types.Integer(0)}}
	u.object(fieldNr, 0, field.PDFString())
	catalog := maps.Clone(root)
	catalog["AcroForm"] = types.Dict{"Fields": types.Array{fieldRef}, "SigFlags": types.Integer(3)}
	catalog["Perms"] = types.Dict{"DocMDP": sigRef}
	u.object(ctx.Root.ObjectNumber.Value(), genOf(ctx.XRefTable, ctx.Root.ObjectNumber.Value()), catalog.PDFString())
	u.end(ctx, prevXRef, xrefStream)
	out := u.buf.Bytes()

	// Everything but /Contents (its brackets included) is signed.
	ranges := fmt.Sprintf("/ByteRange [0 %d %d %d", contentsAt, contentsEnd, len(out)-contentsEnd)
	if len(ranges) > len(byteRangeRoom)-1 {
		return room, fmt.Errorf("pdf: no room for the byte range %q", ranges)
	}
	copy(out[byteRangeAt:], ranges)
	if err := check(out, len(pages)); err != nil {
		return room, fmt.Errorf("pdf: signature room: %w", err)
	}
	return Prepared{Data: out, ContentsStart: contentsAt, ContentsEnd: contentsEnd}, nil
}

// textString writes s as a PDF text string: UTF-16BE with its byte order mark, in hex, so that
// no character needs escaping.
func textString(s string) string {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2, 2+2*len(u))
	b[0], b[1] = 0xFE, 0xFF
	for _, c := range u {
		b = append(b, byte(c>>8), byte(c))
	}
	return "<" + hex.EncodeToString(b) + ">"
}
