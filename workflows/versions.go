package workflows

import "go.temporal.io/sdk/workflow"

// currentShape is the change a run records first since it was made. A run that records it took
// every change before it, at version 1, without a marker of its own for each: mail-outside-lock,
// bounded-history, async-mail, end-when-abandoned, pickup-from-store, bounded-local,
// cancel-timers, abandoned-acts-until-it-ends, direct-link-owner-mail, seal-outside-lock,
// seal-legacy, seal-queue, seal-classified, end-on-recorded-rejection. It also sends the mails of
// one step in one activity (deliverAll). A run without it (it started before) reads each change
// from its own marker, in the order and at the place it always did.
//
// The SDK records every version marker with an upsert of the TemporalChangeVersion search
// attribute, a visibility write on the server: a run that completed recorded twelve of them, and
// now records one.
const currentShape = "current-shape-2026-11"

// currentShapeVersion is the version of currentShape a new run records. Version 2 (2026-11-27):
// a distribute is answered without waiting for its requests to be sent (run.answersBeforeMail).
// A run that recorded version 1 replays as it ran.
const currentShapeVersion = 2

// since reports whether the run took change (a workflow.GetVersion change at version 1): yes
// for a run of currentShape, else as its own marker says (recording it in a new run).
func (r *run) since(ctx workflow.Context, change string) bool {
	if r.current {
		return true
	}
	return workflow.GetVersion(ctx, change, workflow.DefaultVersion, 1) == 1
}
