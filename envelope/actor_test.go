package envelope

import (
	"strings"
	"testing"
)

func TestActorCapped(t *testing.T) {
	long, empty, ip := strings.Repeat("a", MaxClientText+10), "", "203.0.113.7"
	name := strings.Repeat("ñ", MaxClientText) // a name is not a client's text: kept whole
	str := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	tests := []struct {
		name   string
		in     Actor
		ua, ip string
		named  bool
	}{
		{"nothing to cap", Actor{UserAgent: &ip, IPAddress: &ip}, ip, ip, false},
		{"a long User-Agent is cut", Actor{UserAgent: &long, IPAddress: &ip}, long[:MaxClientText], ip, false},
		{"a long address is cut", Actor{IPAddress: &long}, "<nil>", long[:MaxClientText], false},
		{"an empty text is none", Actor{UserAgent: &empty}, "<nil>", "<nil>", false},
		{"the name is left alone", Actor{Name: &name}, "<nil>", "<nil>", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.Capped()
			if str(got.UserAgent) != tt.ua || str(got.IPAddress) != tt.ip {
				t.Errorf("Capped() = %s / %s, want %s / %s", str(got.UserAgent), str(got.IPAddress), tt.ua, tt.ip)
			}
			if tt.named && str(got.Name) != name {
				t.Error("Capped cut the name")
			}
		})
	}
}
