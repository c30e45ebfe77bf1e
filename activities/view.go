package activities

import (
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// The workflow's view of an envelope is envelope.Progress: every activity result is kept in the
// workflow's history, so the activities answer with it, which has no place for a signing token,
// an access code, a session or an expected RUN.

// SnapshotOf is s as the workflow holds it (persistence.Snapshot without the owner, the title
// and the recipients' secrets).
func SnapshotOf(s persistence.Snapshot) envelope.Progress {
	p := envelope.Progress{EnvelopeID: s.EnvelopeID, Status: s.Status, Meta: s.Meta, Recipients: envelope.ProgressOfAll(s.Recipients), LinkVersions: s.LinkVersions,
		DirectVisitor: s.DirectVisitor}
	for _, l := range s.CodeLocks {
		p.CodeLocks = append(p.CodeLocks, envelope.CodeLock{RecipientID: l.RecipientID, Lock: l.Lock})
	}
	for _, m := range s.IdentityMismatches {
		p.IdentityMismatches = append(p.IdentityMismatches, envelope.IdentityMismatch{RecipientID: m.RecipientID, RUNs: m.RUNs})
	}
	return p
}
