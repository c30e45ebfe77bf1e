package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/config"
)

// The client address: X-Forwarded-For is read only from a trusted peer, from the right, and the
// first address outside the trusted list is the client; whatever stands to its left (which the
// client writes) is never taken.
func TestClientIP(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted string // SOBRE_TRUSTED_PROXIES
		peer    string // RemoteAddr
		xff     []string
		want    string
	}{
		{"no proxies trusted: the header is ignored", "", "203.0.113.9:5000", []string{"6.6.6.6"}, "203.0.113.9"},
		{"no proxies trusted, IPv6 peer", "", "[2001:db8::5]:443", []string{"6.6.6.6"}, "2001:db8::5"},
		{"an untrusted peer writes what it likes", "10.0.0.0/8", "203.0.113.9:5000", []string{"198.51.100.7, 10.0.0.3"}, "203.0.113.9"},
		{"one proxy: its entry is the client", "10.0.0.0/8", "10.0.0.2:5000", []string{"198.51.100.7"}, "198.51.100.7"},
		{"spoofed leftmost entries are skipped", "10.0.0.0/8", "10.0.0.2:5000", []string{"6.6.6.6, 1.1.1.1, 198.51.100.7"}, "198.51.100.7"},
		{"a chain of proxies", "10.0.0.0/8, 192.168.0.0/16", "10.0.0.2:5000",
			[]string{"6.6.6.6, 198.51.100.7, 192.168.1.1, 10.1.1.1"}, "198.51.100.7"},
		{"several headers are one list", "10.0.0.0/8", "10.0.0.2:5000", []string{"6.6.6.6", "198.51.100.7, 10.1.1.1"}, "198.51.100.7"},
		{"a single trusted address", "127.0.0.1", "127.0.0.1:5000", []string{"6.6.6.6, 198.51.100.7"}, "198.51.100.7"},
		{"IPv6 proxies and client", "fd00::/8", "[fd00::1]:443", []string{"2001:db8::6, 2001:db8::1, fd00::2"}, "2001:db8::1"},
		{"IPv6 client behind an IPv4 proxy", "10.0.0.0/8", "10.0.0.2:5000", []string{"2001:db8::1"}, "2001:db8::1"},
		{"a v4-mapped proxy entry is the proxy", "10.0.0.0/8", "10.0.0.2:5000", []string{"198.51.100.7, ::ffff:10.0.0.3"}, "198.51.100.7"},
		{"a v4-mapped peer is the proxy", "10.0.0.0/8", "[::ffff:10.0.0.2]:5000", []string{"198.51.100.7"}, "198.51.100.7"},
		{"an IPv6 zone is dropped", "10.0.0.0/8", "10.0.0.2:5000", []string{"fe80::1%eth0"}, "fe80::1"},
		{"garbage right of the client: the peer", "10.0.0.0/8", "10.0.0.2:5000", []string{"198.51.100.7, not-an-ip"}, "10.0.0.2"},
		{"garbage left of the client is never read", "10.0.0.0/8", "10.0.0.2:5000", []string{"<script>, 198.51.100.7"}, "198.51.100.7"},
		{"an entry with a port is garbage", "10.0.0.0/8", "10.0.0.2:5000", []string{"198.51.100.7:1234"}, "10.0.0.2"},
		{"empty entries are skipped", "10.0.0.0/8", "10.0.0.2:5000", []string{"198.51.100.7, , "}, "198.51.100.7"},
		{"only trusted addresses: the peer", "10.0.0.0/8", "10.0.0.2:5000", []string{"10.9.9.9, 10.0.0.3"}, "10.0.0.2"},
		{"no header from a trusted peer: the peer", "10.0.0.0/8", "10.0.0.2:5000", nil, "10.0.0.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Load(func(k string) string {
				if k == "SOBRE_TRUSTED_PROXIES" {
					return tc.trusted
				}
				return ""
			})
			if err != nil {
				t.Fatal(err)
			}
			s := &Server{cfg: cfg}
			var got string
			h := s.withClientIP()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = s.clientIP(r) }))
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tc.peer
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			h.ServeHTTP(httptest.NewRecorder(), r)
			if got != tc.want {
				t.Errorf("client %q, want %q", got, tc.want)
			}
			if want, err := netip.ParseAddr(tc.want); err != nil || want.String() != got {
				t.Errorf("client %q is not an address in canonical form", got)
			}
		})
	}
}

// The request log names both the client and the connection's peer.
func TestRequestLogNamesClientAndPeer(t *testing.T) {
	var buf bytes.Buffer
	a := newTestAPIWith(t, func(d *Deps) {
		d.Config.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
		d.Log = slog.New(slog.NewJSONHandler(&buf, nil))
	})
	req, _ := http.NewRequest(http.MethodGet, a.srv.URL+"/api/v2/envelope", nil)
	req.Header.Set("X-Forwarded-For", "6.6.6.6, 198.51.100.7")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var line map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "http request" {
			line = m
		}
	}
	if line == nil {
		t.Fatalf("no request line in the log: %s", buf.String())
	}
	if line["remote"] != "198.51.100.7" || line["peer"] != "127.0.0.1" {
		t.Errorf("logged remote %v, peer %v; want 198.51.100.7 and 127.0.0.1", line["remote"], line["peer"])
	}
}
