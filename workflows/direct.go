package workflows

import "github.com/sobre-sign/sobre/envelope"

// noticeDirectCreated queues the owner's mail about a document made through a template's direct
// link (envelope.DirectCreatedNotices), once, as the envelope's first run starts. Its Message-ID
// names the envelope and the visitor, so a later run that picks the envelope up sends it no
// second time (SendNotice records each Message-ID sent).
func (r *run) noticeDirectCreated() {
	for _, n := range envelope.DirectCreatedNotices(r.snap.Meta, r.snap.DirectVisitor) {
		r.queue(envelope.Mailing{Kind: n.Mail, EnvelopeID: r.in.EnvelopeID, ActorID: n.About}, nil)
	}
}
