package webhook

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// zone is what the test's DNS server answers: the addresses of each name (lower case, no
// trailing dot). A name not in it is NXDOMAIN. Set changes it while the resolver is in use.
type zone struct {
	mu    sync.Mutex
	names map[string][]netip.Addr
}

// Set makes name resolve to addrs from now on.
func (z *zone) Set(name string, addrs ...netip.Addr) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.names[name] = addrs
}

func (z *zone) lookup(name string) ([]netip.Addr, bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	addrs, ok := z.names[name]
	return addrs, ok
}

// testResolver is a real Go resolver whose DNS server is z, spoken to over an in-memory stream
// (DNS over TCP's framing); it caches nothing, so a changed zone shows at the next lookup.
func testResolver(t *testing.T, z *zone) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			if err := z.serve(server); err != nil && err != io.EOF && err != io.ErrClosedPipe {
				t.Errorf("test DNS server: %v", err)
			}
		}()
		return client, nil
	}}
}

// serve answers the DNS queries of one stream: A and AAAA from the zone, nothing else.
func (z *zone) serve(c net.Conn) error {
	for {
		var size [2]byte
		if _, err := io.ReadFull(c, size[:]); err != nil {
			return err
		}
		q := make([]byte, binary.BigEndian.Uint16(size[:]))
		if _, err := io.ReadFull(c, q); err != nil {
			return err
		}
		answer := z.answer(q)
		if _, err := c.Write(binary.BigEndian.AppendUint16(nil, uint16(len(answer)))); err != nil {
			return err
		}
		if _, err := c.Write(answer); err != nil {
			return err
		}
	}
}

// answer is the response to query q (RFC 1035 section 4): its one question repeated, and one
// record per address of the asked type, the name given by a pointer to the question's.
func (z *zone) answer(q []byte) []byte {
	var labels []string
	i := 12
	for i < len(q) && q[i] != 0 {
		n := int(q[i])
		labels = append(labels, strings.ToLower(string(q[i+1:i+1+n])))
		i += 1 + n
	}
	question := q[12 : i+5] // the name, its zero byte, type and class
	qtype := binary.BigEndian.Uint16(q[i+1 : i+3])
	addrs, known := z.lookup(strings.Join(labels, "."))
	var records []byte
	count := 0
	for _, a := range addrs {
		if (qtype == 1 && a.Is4()) || (qtype == 28 && a.Is6()) {
			count++
			records = append(records, 0xc0, 12)                     // the question's name
			records = binary.BigEndian.AppendUint16(records, qtype) // type
			records = binary.BigEndian.AppendUint16(records, 1)     // class IN
			records = binary.BigEndian.AppendUint32(records, 0)     // TTL
			records = binary.BigEndian.AppendUint16(records, uint16(a.BitLen()/8))
			records = append(records, a.AsSlice()...)
		}
	}
	rcode := byte(0)
	if !known {
		rcode = 3 // NXDOMAIN
	}
	h := []byte{q[0], q[1], 0x81, 0x80 | rcode, 0, 1, 0, 0, 0, 0, 0, 0} // response, RD, RA
	binary.BigEndian.PutUint16(h[6:], uint16(count))
	return append(append(h, question...), records...)
}
