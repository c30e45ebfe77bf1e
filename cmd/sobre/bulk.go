package main

import (
	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/workflows"
)

// bulkSend is what the bulk send's activities need of this process: the workflows client's
// Distribute (a row is sent as POST /envelope/distribute sends), the ceremony's CheckSignable and
// the mail quota, as POST /envelope/use checks them.
func (p *process) bulkSend() (activities.BulkSend, error) {
	flows := &workflows.Client{Temporal: p.temporal, TaskQueue: p.cfg.TaskQueue, CallTimeout: p.cfg.TemporalCallTimeout}
	cer, err := p.ceremony(flows)
	if err != nil {
		return activities.BulkSend{}, err
	}
	return activities.BulkSend{Distribute: flows.Distribute, Signable: cer.CheckSignable, MailQuota: p.cfg.MailQuota}, nil
}
