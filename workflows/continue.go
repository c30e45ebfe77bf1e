package workflows

import (
	"errors"
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// Temporal keeps a workflow's whole history and terminates a workflow whose history passes its
// limit (51,200 events or 50 MB by default). An envelope's history grows with every event
// (recipient changes, code locks, completions, reminders, seal retries), so a run whose history
// is long continues as new: it waits for its Update handlers to finish, then hands its whole
// state to a new run of the same workflow id (Input.Continued), which goes on where it stopped.
// The API reaches the envelope by workflow id, so it talks to whichever run is current.

// Where a run continues as new when Temporal has not suggested it first (the dev server
// suggests it at about 4,100 events; Temporal warns at 10 Ki events or 10 MB).
const (
	continueAsNewAt   = 10_000
	continueAsNewSize = 8 << 20
)

// errContinue asks the main loop to continue as new (the seal's wait, in a long history).
var errContinue = errors.New("continue as new")

// Continuation is what a run hands to the next when it continues as new: the state its main
// loop and handlers act on.
type Continuation struct {
	Snapshot   envelope.Progress
	Reminders  []Reminder
	Outbox     []Outgoing `json:",omitempty"`
	Resends    int
	Notified   []int64             `json:",omitempty"`
	Requested  []int64             `json:",omitempty"`
	CodeLocks  []envelope.CodeLock `json:",omitempty"`
	Mismatches map[int64]int       `json:",omitempty"`
	// End is how the envelope ends once decided (a run continues while its seal waits).
	End          *Ending `json:",omitempty"`
	SealAttempts int     `json:",omitempty"`
	SealWait     string  `json:",omitempty"`
	// Runs counts the runs before the new one.
	Runs int
}

// Reminder is one recipient's reminders, as a run hands them on.
type Reminder = reminder

// Outgoing is a queued mail, as a run hands it on.
type Outgoing = outgoing

// Ending is how the envelope ends, as a run hands it on.
type Ending struct {
	Status      envelope.Status
	Deleted     bool
	RecipientID int64
	Reason      string
	Actor       envelope.Actor
}

// historyFull reports whether the run should continue as new: Temporal suggests it, or the
// history reached continueAsNewAt events (Input.ContinueAsNewAt) or continueAsNewSize bytes.
func (r *run) historyFull(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	at := r.in.ContinueAsNewAt
	if at <= 0 {
		at = continueAsNewAt
	}
	return info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() >= at || info.GetCurrentHistorySize() >= continueAsNewSize
}

// drain waits until no Update handler is running. It reports false when an event arrived first:
// the main loop acts on it (the handlers wait for that) and tries again.
func (r *run) drain(ctx workflow.Context) (bool, error) {
	if err := workflow.Await(ctx, func() bool { return r.version > r.processed || workflow.AllHandlersFinished(ctx) }); err != nil {
		return false, err
	}
	return r.version <= r.processed, nil
}

// continueAsNew ends this run and starts the next with its state.
func (r *run) continueAsNew(ctx workflow.Context) error {
	// The mails in flight go to the next run too: it sends each at most once (SendNotice's claim).
	c := Continuation{Snapshot: r.snap, Reminders: r.reminders, Outbox: append(slices.Clip(r.outbox), r.delivering...), Resends: r.resends,
		Notified: r.notified, Requested: r.requested, CodeLocks: r.codeLocks, Mismatches: r.mismatches,
		SealAttempts: r.sealAttempts, SealWait: r.sealWait, Runs: r.runs + 1}
	if e := r.end; e != nil {
		c.End = &Ending{Status: e.status, Deleted: e.deleted, RecipientID: e.recipientID, Reason: e.reason, Actor: e.actor}
	}
	info := workflow.GetInfo(ctx)
	workflow.GetLogger(ctx).Info("continuing as new", "envelope", r.in.EnvelopeID, "run", c.Runs,
		"events", info.GetCurrentHistoryLength(), "bytes", info.GetCurrentHistorySize())
	next := Input{EnvelopeID: r.in.EnvelopeID, TeamID: r.in.TeamID, ContinueAsNewAt: r.in.ContinueAsNewAt, Continued: &c}
	return workflow.NewContinueAsNewError(ctx, EnvelopeWorkflow, next)
}

// resume takes the state the run before handed on. The first step reads the envelope again: a
// change signalled while the run before was ending is not lost.
func (r *run) resume(c Continuation) {
	r.snap, r.reminders, r.outbox, r.resends = c.Snapshot, c.Reminders, c.Outbox, c.Resends
	r.notified, r.requested, r.codeLocks, r.mismatches = c.Notified, c.Requested, c.CodeLocks, c.Mismatches
	r.sealAttempts, r.sealWait, r.runs = c.SealAttempts, c.SealWait, c.Runs
	if e := c.End; e != nil {
		r.end = &ending{status: e.Status, deleted: e.Deleted, recipientID: e.RecipientID, reason: e.Reason, actor: e.Actor}
	}
	r.initialized = true
	r.refresh = true
}
