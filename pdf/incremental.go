package pdf

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// lastXRef finds the offset that the file's last startxref points to and whether a
// cross-reference stream (rather than a table) is there.
func lastXRef(data []byte) (offset int64, stream bool, err error) {
	tail := data[max(0, len(data)-4096):]
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return 0, false, fmt.Errorf("%w: no startxref", errNoUpdate)
	}
	fields := strings.Fields(string(tail[i+len("startxref"):]))
	if len(fields) == 0 {
		return 0, false, fmt.Errorf("%w: no offset after startxref", errNoUpdate)
	}
	offset, err = strconv.ParseInt(fields[0], 10, 64)
	if err != nil || offset <= 0 || offset >= int64(len(data)) {
		return 0, false, fmt.Errorf("%w: bad startxref offset %q", errNoUpdate, fields[0])
	}
	at := bytes.TrimLeft(data[offset:min(int64(len(data)), offset+64)], " \t\r\n\f\x00")
	if bytes.HasPrefix(at, []byte("xref")) {
		return offset, false, nil
	}
	// A cross-reference stream starts as an object: "12 0 obj".
	if f := strings.Fields(string(at)); len(f) >= 3 && isDigits(f[0]) && isDigits(f[1]) && strings.HasPrefix(f[2], "obj") {
		return offset, true, nil
	}
	return 0, false, fmt.Errorf("%w: startxref does not point to a cross-reference section", errNoUpdate)
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// update accumulates an incremental update after the original file's bytes.
type update struct {
	buf     bytes.Buffer
	next    int           // the next free object number
	offsets map[int]int64 // where each written object starts
	gens    map[int]int   // and its generation
}

// newUpdate starts an update after data, numbering new objects after every object of ctx.
func newUpdate(data []byte, ctx *model.Context) *update {
	u := &update{offsets: map[int]int64{}, gens: map[int]int{}}
	if ctx.Size != nil {
		u.next = *ctx.Size
	}
	for nr := range ctx.Table {
		u.next = max(u.next, nr+1)
	}
	u.buf.Grow(len(data) + 64<<10)
	u.buf.Write(data)
	if last := data[len(data)-1]; last != '\n' && last != '\r' {
		u.buf.WriteByte('\n')
	}
	return u
}

// end closes the update with its trailer, pointing back at the section at prevXRef, as a
// cross-reference stream or table like the file's last one.
func (u *update) end(ctx *model.Context, prevXRef int64, xrefStream bool) {
	trailer := types.Dict{"Root": *ctx.Root, "Prev": types.Integer(prevXRef)}
	if ctx.Info != nil {
		trailer["Info"] = *ctx.Info
	}
	if len(ctx.ID) == 2 {
		trailer["ID"] = ctx.ID
	}
	if xrefStream {
		u.xrefStream(trailer)
	} else {
		u.xrefTable(trailer)
	}
}

// withXObjects returns a copy of resources whose /XObject also holds each of forms, under names
// starting with prefix that the resources do not use yet, and those names. The resources' own
// entries are kept as they are.
func withXObjects(x *model.XRefTable, resources types.Dict, prefix string, forms ...types.IndirectRef) (types.Dict, []string) {
	res := maps.Clone(resources)
	if res == nil {
		res = types.Dict{}
	}
	xo := types.Dict{}
	if old, _ := x.DereferenceDict(res["XObject"]); old != nil {
		maps.Copy(xo, old)
	}
	names := make([]string, len(forms))
	k := 0
	for i, f := range forms {
		for xo[fmt.Sprintf("%s%d", prefix, k)] != nil {
			k++
		}
		names[i] = fmt.Sprintf("%s%d", prefix, k)
		xo[names[i]] = f
	}
	res["XObject"] = xo
	return res, names
}

// object writes an object with the given number and generation.
func (u *update) object(nr, gen int, body string) {
	u.offsets[nr], u.gens[nr] = int64(u.buf.Len()), gen
	fmt.Fprintf(&u.buf, "%d %d obj\n%s\nendobj\n", nr, gen, body)
}

// stream writes a new uncompressed stream object and returns a reference to it.
func (u *update) stream(content []byte) types.IndirectRef {
	nr := u.next
	u.next++
	u.object(nr, 0, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	return *types.NewIndirectRef(nr, 0)
}

// runs groups the written object numbers into runs of consecutive numbers, as the subsections
// of a cross-reference section list them: pairs of first number and count.
func (u *update) runs() (nrs []int, pairs [][2]int) {
	nrs = slices.Sorted(maps.Keys(u.offsets))
	for _, nr := range nrs {
		if n := len(pairs); n > 0 && pairs[n-1][0]+pairs[n-1][1] == nr {
			pairs[n-1][1]++
			continue
		}
		pairs = append(pairs, [2]int{nr, 1})
	}
	return nrs, pairs
}

// xrefTable ends the update with a classic cross-reference table and trailer.
func (u *update) xrefTable(trailer types.Dict) {
	start := u.buf.Len()
	trailer["Size"] = types.Integer(u.next)
	nrs, pairs := u.runs()
	u.buf.WriteString("xref\n")
	k := 0
	for _, p := range pairs {
		fmt.Fprintf(&u.buf, "%d %d\n", p[0], p[1])
		for range p[1] {
			nr := nrs[k]
			k++
			fmt.Fprintf(&u.buf, "%010d %05d n \n", u.offsets[nr], u.gens[nr])
		}
	}
	fmt.Fprintf(&u.buf, "trailer\n%s\nstartxref\n%d\n%%%%EOF\n", trailer.PDFString(), start)
}

// xrefStream ends the update with a cross-reference stream, which also carries the trailer.
func (u *update) xrefStream(trailer types.Dict) {
	nr := u.next
	u.next++
	start := int64(u.buf.Len())
	u.offsets[nr], u.gens[nr] = start, 0
	nrs, pairs := u.runs()

	width := 1 // bytes for an offset
	for v := start; v > 0xff; v >>= 8 {
		width++
	}
	var rows bytes.Buffer
	for _, n := range nrs {
		rows.WriteByte(1) // type 1: an uncompressed object at an offset
		for s := width - 1; s >= 0; s-- {
			rows.WriteByte(byte(u.offsets[n] >> (8 * s)))
		}
		rows.WriteByte(byte(u.gens[n] >> 8))
		rows.WriteByte(byte(u.gens[n]))
	}
	index := types.Array{}
	for _, p := range pairs {
		index = append(index, types.Integer(p[0]), types.Integer(p[1]))
	}
	trailer["Type"] = types.Name("XRef")
	trailer["Size"] = types.Integer(u.next)
	trailer["Index"] = index
	trailer["W"] = types.Array{types.Integer(1), types.Integer(width), types.Integer(2)}
	trailer["Length"] = types.Integer(rows.Len())
	fmt.Fprintf(&u.buf, "%d 0 obj\n%s\nstream\n", nr, trailer.PDFString())
	u.buf.Write(rows.Bytes())
	fmt.Fprintf(&u.buf, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", start)
}
