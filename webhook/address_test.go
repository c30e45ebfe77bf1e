package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

func TestPolicyAllows(t *testing.T) {
	tests := []struct {
		addr       string
		production bool // Policy{}
		dev        bool // Policy{AllowPrivate: true}
	}{
		{"93.184.215.14", true, true},
		{"8.8.8.8", true, true},
		{"2606:4700::6810:85e5", true, true},
		{"127.0.0.1", false, true},
		{"127.1.2.3", false, true},
		{"::1", false, true},
		{"10.1.2.3", false, true},
		{"172.16.0.1", false, true},
		{"172.31.255.255", false, true},
		{"172.32.0.1", true, true},
		{"192.168.1.1", false, true},
		{"fd00::1", false, true},
		{"fc00::1", false, true},
		{"169.254.169.254", false, true},
		{"fe80::1", false, true},
		{"fe80::1%eth0", false, true},
		{"100.64.0.1", false, false},
		{"100.127.255.254", false, false},
		{"100.128.0.1", true, true},
		{"0.0.0.0", false, false},
		{"0.1.2.3", false, false},
		{"::", false, false},
		{"224.0.0.1", false, false},
		{"239.255.255.250", false, false},
		{"ff02::1", false, false},
		{"255.255.255.255", false, false},
		{"240.0.0.1", false, false},
		{"192.0.0.8", false, false},
		{"192.0.2.1", false, false},
		{"198.51.100.7", false, false},
		{"203.0.113.9", false, false},
		{"198.18.0.1", false, false},
		{"198.19.255.1", false, false},
		{"198.20.0.1", true, true},
		{"192.88.99.1", false, false},
		{"2001:db8::1", false, false},
		{"3fff::1", false, false},
		{"2001::1", false, false},
		{"2001:20::1", false, false},
		{"100::1", false, false},  // discard-only
		{"fec0::1", false, false}, // site-local (deprecated), outside 2000::/3
		{"::ffff:127.0.0.1", false, true},
		{"::ffff:10.0.0.1", false, true},
		{"::ffff:169.254.169.254", false, true},
		{"::ffff:100.64.0.1", false, false},
		{"::ffff:8.8.8.8", true, true},
		{"64:ff9b::7f00:1", false, true}, // NAT64 of 127.0.0.1
		{"64:ff9b::a9fe:a9fe", false, true},
		{"64:ff9b::c000:201", false, false}, // NAT64 of 192.0.2.1
		{"64:ff9b::808:808", true, true},    // NAT64 of 8.8.8.8
		{"2002:7f00:1::1", false, true},     // 6to4 of 127.0.0.1
		{"2002:0808:0808::1", true, true},   // 6to4 of 8.8.8.8
		{"::7f00:1", false, false},          // IPv4-compatible (deprecated), outside 2000::/3
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		if got := (Policy{}).Allows(a); got != tt.production {
			t.Errorf("Policy{}.Allows(%s) = %v, want %v", tt.addr, got, tt.production)
		}
		if got := (Policy{AllowPrivate: true}).Allows(a); got != tt.dev {
			t.Errorf("Policy{AllowPrivate: true}.Allows(%s) = %v, want %v", tt.addr, got, tt.dev)
		}
	}
	if (Policy{AllowPrivate: true}).Allows(netip.Addr{}) {
		t.Error("the zero Addr is allowed")
	}
}

func TestCheckURL(t *testing.T) {
	z := &zone{names: map[string][]netip.Addr{
		"hook.example":     {netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("2606:4700::6810:85e5")},
		"mixed.example":    {netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("10.0.0.7")},
		"internal.example": {netip.MustParseAddr("fd12::5")},
		"metadata.example": {netip.MustParseAddr("169.254.169.254")},
		"empty.example":    {},
	}}
	resolver := testResolver(t, z)
	tests := []struct {
		url        string
		production string // part of the error with Policy{}; "" for none
		dev        string // with Policy{AllowPrivate: true}
	}{
		{"https://hook.example/sobre", "", ""},
		{"https://HOOK.example.:8443/sobre?x=1#frag", "", ""},
		{"https://93.184.215.14/", "", ""},
		{"https://[2606:4700::6810:85e5]:443/", "", ""},
		{"http://hook.example/", "must use https", ""},
		{"ftp://hook.example/", "must use https, not ftp", "must use https or http, not ftp"},
		{"HTTPS://hook.example/", "", ""},
		{"//hook.example/", "must be an absolute URL", "must be an absolute URL"},
		{"/sobre", "must be an absolute URL", "must be an absolute URL"},
		{"https:hook.example", "must name a host", "must name a host"},
		{"https:///sobre", "must name a host", "must name a host"},
		{"https://user:pass@hook.example/", "user name or password", "user name or password"},
		{"https://user@hook.example/", "user name or password", "user name or password"},
		{"https://hook.example:0/", "port 0", "port 0"},
		{"https://hook.example:70000/", "port 70000", "port 70000"},
		{"https://hook.example:x/", "must be a URL", "must be a URL"},
		{"https://hook.example/" + strings.Repeat("a", MaxURLLength), "at most 2048 bytes", "at most 2048 bytes"},
		{"https://hook.example/" + strings.Repeat("a", MaxURLLength-len("https://hook.example/")), "", ""},
		{"https://nothing.example/", "host nothing.example does not resolve", "does not resolve"},
		{"https://empty.example/", "does not resolve", "does not resolve"},
		{"https://mixed.example/", "host mixed.example resolves to 10.0.0.7, which is not public", ""},
		{"https://internal.example/", "resolves to fd12::5, which is not public", ""},
		{"https://metadata.example/", "resolves to 169.254.169.254, which is not public", ""},
		{"https://127.0.0.1:9911/", "address 127.0.0.1 is not public", ""},
		{"http://127.0.0.1:9911/", "must use https", ""},
		{"https://[::1]/", "address ::1 is not public", ""},
		{"https://[::ffff:169.254.169.254]/", "is not public", ""},
		{"https://100.64.0.1/", "address 100.64.0.1 is not public", "address 100.64.0.1 is not public"},
		{"https://0.0.0.0/", "is not public", "is not public"},
		{"https://[fe80::1%25eth0]/", "is not public", ""},
		{"https://[2606:4700::6810:85e5%25lo]/", "must not name an interface (zone lo)", "must not name an interface (zone lo)"},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			policy Policy
			want   string
		}{{Policy{}, tt.production}, {Policy{AllowPrivate: true}, tt.dev}} {
			name := fmt.Sprintf("%.60s AllowPrivate=%v", tt.url, c.policy.AllowPrivate)
			t.Run(name, func(t *testing.T) {
				err := c.policy.CheckURL(context.Background(), tt.url, resolver)
				wantError(t, err, c.want)
				if strings.Contains(c.want, "not public") && !errors.Is(err, ErrNotPublic) {
					t.Errorf("%q is not ErrNotPublic", err)
				}
			})
		}
	}
}
