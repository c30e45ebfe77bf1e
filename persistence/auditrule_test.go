package persistence

import (
	"strings"
	"testing"
)

// The rule of what an audit entry must carry, around a cut-over at seq 100.
func TestAuditEntryRule(t *testing.T) {
	t.Parallel()
	const from = 100
	for _, c := range []struct {
		name   string
		from   int64
		m      entryMarks
		want   entryKind
		reason string // part of the break's reason
	}{
		{"keyed at the cut-over", from, entryMarks{Seq: 100, Hash: true, PrevHash: true, MAC: true, CheckMAC: true}, entryKeyed, ""},
		{"keyed below it", from, entryMarks{Seq: 5, Hash: true, PrevHash: true, MAC: true, CheckMAC: true}, entryKeyed, ""},
		{"unkeyed below it", from, entryMarks{Seq: 99, Hash: true, PrevHash: true, CheckMAC: true}, entryUnkeyed, ""},
		{"unkeyed at it", from, entryMarks{Seq: 100, Hash: true, PrevHash: true, CheckMAC: true}, entryBroken, "every entry from seq 100 on"},
		{"unkeyed above it", from, entryMarks{Seq: 7000, Hash: true, PrevHash: true, Chained: true, CheckMAC: true}, entryBroken, "no HMAC"},
		{"unkeyed below it after a keyed one", from, entryMarks{Seq: 50, Hash: true, PrevHash: true, Chained: true, KeyedBefore: true, CheckMAC: true}, entryBroken, "HMACs were stripped"},
		{"legacy below it", from, entryMarks{Seq: 3, CheckMAC: true}, entryLegacy, ""},
		{"legacy below it, keyless verifier", from, entryMarks{Seq: 3}, entryLegacy, ""},
		{"no hash at it", from, entryMarks{Seq: 100, CheckMAC: true}, entryBroken, "no hash"},
		{"no hash at it, keyless verifier", from, entryMarks{Seq: 100}, entryBroken, "no hash"},
		{"no hash below it after a hashed one", from, entryMarks{Seq: 4, Chained: true, CheckMAC: true}, entryBroken, "hashes were stripped"},
		{"no hash below it but a previous hash", from, entryMarks{Seq: 4, PrevHash: true, CheckMAC: true}, entryBroken, "previous hash or an HMAC"},
		{"no hash below it but an HMAC", from, entryMarks{Seq: 4, MAC: true, CheckMAC: true}, entryBroken, "previous hash or an HMAC"},
		{"keyless verifier: unkeyed above it", from, entryMarks{Seq: 200, Hash: true, PrevHash: true}, entryHashed, ""},
		{"keyless verifier: keyed", from, entryMarks{Seq: 200, Hash: true, PrevHash: true, MAC: true}, entryHashed, ""},
		// The default: a fresh deployment holds every entry to both.
		{"default: first entry unkeyed", 0, entryMarks{Seq: 1, Hash: true, CheckMAC: true}, entryBroken, "every entry from seq 0 on"},
		{"default: first entry without a hash", 0, entryMarks{Seq: 1, CheckMAC: true}, entryBroken, "no hash"},
		{"default: keyed", 0, entryMarks{Seq: 1, Hash: true, MAC: true, CheckMAC: true}, entryKeyed, ""},
	} {
		got, reason := auditEntryRule(c.from, c.m)
		if got != c.want || (c.want == entryBroken) != (reason != "") || !strings.Contains(reason, c.reason) {
			t.Errorf("%s: %v %q, want %v with %q", c.name, got, reason, c.want, c.reason)
		}
	}
}
