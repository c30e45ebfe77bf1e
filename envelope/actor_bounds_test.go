package envelope

import (
	"strings"
	"testing"
)

func TestActorBounded(t *testing.T) {
	t.Parallel()
	name, email, ua, ip := strings.Repeat("ñ", 1000), strings.Repeat("a", 300)+"@x.cl", strings.Repeat("Mozilla ", 1<<17), strings.Repeat("1.2.3.4, ", 100)
	a := Actor{Name: &name, Email: &email, UserAgent: &ua, IPAddress: &ip}
	var before Problems
	a.CheckBounds(&before, "actor")
	if before.Len() != 4 {
		t.Fatalf("problems before: %v, want one per string", before.Err())
	}
	b := a.Bounded()
	var after Problems
	b.CheckBounds(&after, "actor")
	if err := after.Err(); err != nil {
		t.Fatalf("after Bounded: %v", err)
	}
	if len(*b.UserAgent) != MaxActorUserAgent || len(*b.IPAddress) != MaxActorIP || *b.Name != strings.Repeat("ñ", MaxActorName) {
		t.Errorf("cut to %d, %d bytes and %q", len(*b.UserAgent), len(*b.IPAddress), *b.Name)
	}
	if len(*a.UserAgent) != len(ua) {
		t.Error("Bounded changed the actor it was called on")
	}
	if got := (Actor{}).Bounded(); got.Name != nil || got.UserAgent != nil {
		t.Errorf("an empty actor became %+v", got)
	}
}
