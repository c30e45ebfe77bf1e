package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"time"
)

// Policy says which destinations a webhook may reach. The zero Policy is production's.
type Policy struct {
	// AllowPrivate (SOBRE_WEBHOOK_ALLOW_PRIVATE, development only) also allows http, and
	// loopback, private and link-local addresses.
	AllowPrivate bool
}

// MaxURLLength is the longest webhook URL, in bytes.
const MaxURLLength = 2048

// lookupTimeout bounds the resolution of a URL's host in CheckURL.
const lookupTimeout = 5 * time.Second

// ErrNotPublic is wrapped by every refusal of an address (CheckURL, and a Sender's dials).
var ErrNotPublic = errors.New("not public")

// notPublic is the refusal of one address: "address 10.0.0.1 is not public".
type notPublic netip.Addr

func (e notPublic) Error() string {
	return fmt.Sprintf("address %s is %s", netip.Addr(e), ErrNotPublic)
}
func (e notPublic) Is(target error) bool { return target == ErrNotPublic }

// rangeOf is a range of addresses a webhook may not reach; devOK ranges are allowed with
// Policy.AllowPrivate.
type rangeOf struct {
	prefix netip.Prefix
	devOK  bool
}

// refusedRanges are the special-purpose ranges of IANA's registries that are not globally
// reachable. IPv4-mapped and NAT64 addresses are judged by the IPv4 address they carry, and an
// IPv6 address outside 2000::/3 (global unicast) is refused whatever this list says.
var refusedRanges = []rangeOf{
	{netip.MustParsePrefix("127.0.0.0/8"), true},      // loopback
	{netip.MustParsePrefix("10.0.0.0/8"), true},       // private (RFC 1918)
	{netip.MustParsePrefix("172.16.0.0/12"), true},    // private
	{netip.MustParsePrefix("192.168.0.0/16"), true},   // private
	{netip.MustParsePrefix("169.254.0.0/16"), true},   // link-local, cloud metadata at 169.254.169.254
	{netip.MustParsePrefix("::1/128"), true},          // loopback
	{netip.MustParsePrefix("fc00::/7"), true},         // unique local (private)
	{netip.MustParsePrefix("fe80::/10"), true},        // link-local
	{netip.MustParsePrefix("0.0.0.0/8"), false},       // "this network", unspecified
	{netip.MustParsePrefix("100.64.0.0/10"), false},   // shared address space (carrier-grade NAT)
	{netip.MustParsePrefix("192.0.0.0/24"), false},    // IETF protocol assignments
	{netip.MustParsePrefix("192.0.2.0/24"), false},    // documentation (TEST-NET-1)
	{netip.MustParsePrefix("192.88.99.0/24"), false},  // 6to4 relay anycast (deprecated)
	{netip.MustParsePrefix("198.18.0.0/15"), false},   // benchmarking
	{netip.MustParsePrefix("198.51.100.0/24"), false}, // documentation (TEST-NET-2)
	{netip.MustParsePrefix("203.0.113.0/24"), false},  // documentation (TEST-NET-3)
	{netip.MustParsePrefix("224.0.0.0/4"), false},     // multicast
	{netip.MustParsePrefix("240.0.0.0/4"), false},     // reserved, and the broadcast 255.255.255.255
	{netip.MustParsePrefix("2001::/32"), false},       // Teredo
	{netip.MustParsePrefix("2001:10::/28"), false},    // ORCHID (deprecated)
	{netip.MustParsePrefix("2001:20::/28"), false},    // ORCHIDv2
	{netip.MustParsePrefix("2001:db8::/32"), false},   // documentation
	{netip.MustParsePrefix("3fff::/20"), false},       // documentation
}

var (
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	nat64          = netip.MustParsePrefix("64:ff9b::/96") // the well-known NAT64 prefix: the IPv4 address in the last 4 bytes
	sixToFour      = netip.MustParsePrefix("2002::/16")    // 6to4: the IPv4 address in bytes 2 to 5
)

// Allows reports whether a webhook may connect to a: a public address, that is one outside
// every range of refusedRanges, judged by the IPv4 address it carries when it is IPv4-mapped
// (::ffff:0:0/96), NAT64 (64:ff9b::/96) or 6to4 (2002::/16), and in 2000::/3 when it is IPv6.
// With AllowPrivate, loopback, private and link-local addresses are allowed too.
func (p Policy) Allows(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	if !a.IsValid() {
		return false
	}
	if a.Is6() {
		raw := a.As16()
		switch {
		case nat64.Contains(a):
			return p.Allows(netip.AddrFrom4([4]byte(raw[12:16])))
		case sixToFour.Contains(a):
			return p.Allows(netip.AddrFrom4([4]byte(raw[2:6])))
		}
	}
	for _, r := range refusedRanges {
		if r.prefix.Contains(a) {
			return p.AllowPrivate && r.devOK
		}
	}
	return a.Is4() || globalUnicast6.Contains(a)
}

// CheckURL says whether raw may be a webhook's URL: at most MaxURLLength bytes, absolute, https
// (or http with AllowPrivate), with a host, no user or password, a port (when given) from 1 to
// 65535; and a host that resolves only to addresses the policy allows: a name that does not
// resolve, or that resolves to any address the policy does not allow, is refused; an IP literal
// is judged as it is, and may name an interface (a zone) only when it is link-local. resolver nil is net.DefaultResolver; the lookup is given at most 5
// seconds. The error's message follows the field's name (as in a 400 naming webhookUrl).
//
// A name may resolve elsewhere later (DNS rebinding): a Sender checks every address it dials
// again.
func (p Policy) CheckURL(ctx context.Context, raw string, resolver *net.Resolver) error {
	u, err := p.checkForm(raw)
	if err != nil {
		return err
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		switch {
		case !p.Allows(a):
			return notPublic(a)
		case a.Zone() != "" && !a.IsLinkLocalUnicast():
			// A zone means something only for a link-local address, which only development allows.
			return fmt.Errorf("must not name an interface (zone %s) with address %s", a.Zone(), a.WithZone(""))
		}
		return nil
	}
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("host %s does not resolve", host)
	}
	for _, a := range addrs {
		if !p.Allows(a) {
			return fmt.Errorf("host %s resolves to %s, which is %w", host, a, ErrNotPublic)
		}
	}
	return nil
}

// checkForm is the part of CheckURL that needs no resolution: the URL's form.
func (p Policy) checkForm(raw string) (*url.URL, error) {
	if len(raw) > MaxURLLength {
		return nil, fmt.Errorf("must be at most %d bytes long, got %d", MaxURLLength, len(raw))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("must be a URL")
	}
	switch {
	case !u.IsAbs():
		return nil, errors.New("must be an absolute URL")
	case u.Scheme == "http" && !p.AllowPrivate:
		return nil, errors.New("must use https")
	case u.Scheme != "https" && u.Scheme != "http" && p.AllowPrivate:
		return nil, fmt.Errorf("must use https or http, not %s", u.Scheme)
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("must use https, not %s", u.Scheme)
	case u.User != nil:
		return nil, errors.New("must not carry a user name or password")
	case u.Hostname() == "":
		return nil, errors.New("must name a host")
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("has port %s, not from 1 to 65535", port)
		}
	}
	return u, nil
}
