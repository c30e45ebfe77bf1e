package workflows

import (
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// RecipientState is one recipient in the workflow's view.
type RecipientState struct {
	ID             int64
	Email          string
	Role           envelope.Role
	SigningOrder   *int
	SigningStatus  envelope.SigningStatus
	SendStatus     envelope.SendStatus
	ExpiresAt      *time.Time
	Reminders      int
	NextReminderAt *time.Time
}

// State is what QueryState answers.
type State struct {
	EnvelopeID   string
	Status       envelope.Status
	SigningOrder envelope.SigningOrder
	MayActNow    []int64
	Recipients   []RecipientState
}

// run is one envelope workflow's state.
type run struct {
	in          Input
	snap        envelope.Progress
	initialized bool
	finished    bool
	refresh     bool
	version     int // bumped by every event
	processed   int // the version the main loop last acted on
	end         *ending
	outbox      []outgoing
	reminders   []reminder
	resends     int                 // requests sent again, numbering their Message-IDs
	notified    []int64             // recipients whose expiry was handled
	requested   []int64             // recipients sent their request (a recipient who opened a link early still gets it)
	codeLocks   []envelope.CodeLock // locked code entries the owner was mailed about
	mismatches  map[int64]int       // by recipient, how many refused RUNs the owner was mailed about
	mu          workflow.Mutex
	legacy      bool // started before "mail-outside-lock": replays the first release's steps
	// bounded: started after "bounded-history": refresh signals are coalesced and the run
	// continues as new when its history grows (continue.go).
	bounded      bool
	ends         bool // started after "end-when-abandoned": the run ends once the envelope is abandoned (abandoned.go)
	boundedLocal bool // started after "bounded-local": store calls hand over to a regular activity (local.go)
	cancelTimers bool // started after "cancel-timers": a wait's timer is cancelled once it is met (await.go)
	// endsAfterMail: started after "abandoned-acts-until-it-ends": a run that ends abandoned acts
	// on the events that arrive while its mails are in flight (abandoned.go).
	endsAfterMail bool
	urgent        int    // the version of the last event that is not a refresh signal
	sealAttempts  int    // the seal's first attempt number in this run (attempts given up before)
	sealWait      string // how the seal waits before its next attempt (sealNoWait: it does not)
	runs          int    // runs before this one
	// async: started after "async-mail": mails go out without the envelope waiting for them
	// (delivery.go); delivering holds those in flight, numbered by deliveries.
	async      bool
	delivering []outgoing
	deliveries int
	// current: started after currentShape (versions.go): every change before it taken, and a
	// step's mails sent in one activity (deliverAll).
	current bool
	// answersBeforeMail: started at currentShape's version 2: a distribute is answered once the
	// envelope is PENDING and its requests queued, without waiting for them to be sent (as
	// Documenso answers before its mail jobs run).
	answersBeforeMail bool
}

// bump records an event (not a refresh signal) for the main loop to act on.
func (r *run) bump() {
	r.version++
	r.urgent = r.version
}

// replaceSnapshot takes snap as the envelope's state, first queuing the "removed" mail for
// recipients it no longer holds (workflows of the first release did not, on this path). In a run
// that delivers asynchronously, a recipient whose request the run sent is SENT in its view even
// when the store has not recorded the mail yet: the plans that tell recipients waiting to act
// (a cancel, a rejection, a deletion) count them, as they did when the run waited for its mails.
func (r *run) replaceSnapshot(snap envelope.Progress) {
	if !r.legacy {
		r.noticeRemoved(snap)
		r.noticeReplacedLinks(snap)
	}
	if r.async {
		for i := range snap.Recipients {
			if rec := &snap.Recipients[i]; slices.Contains(r.requested, rec.ID) {
				rec.SendStatus = envelope.SendStatusSent
			}
		}
	}
	r.snap = snap
}

// state is the workflow's view for QueryState.
func (r *run) state() State {
	s := State{EnvelopeID: r.in.EnvelopeID, Status: r.snap.Status, SigningOrder: r.snap.Meta.SigningOrder,
		MayActNow: envelope.MayActNow(r.snap.Meta.SigningOrder, r.snap.Participants())}
	for _, rec := range r.snap.Recipients {
		rs := RecipientState{ID: rec.ID, Email: rec.Email, Role: rec.Role, SigningOrder: rec.SigningOrder,
			SigningStatus: rec.SigningStatus, SendStatus: rec.SendStatus, ExpiresAt: rec.ExpiresAt}
		for _, rm := range r.reminders {
			if rm.RecipientID == rec.ID {
				rs.Reminders = rm.Count
				if !rm.Next.IsZero() {
					next := rm.Next
					rs.NextReminderAt = &next
				}
			}
		}
		s.Recipients = append(s.Recipients, rs)
	}
	return s
}

// locked runs fn holding the workflow's lock: the main loop's steps and the Update handlers'
// changes happen one at a time, in the order they take it. The lock is released however fn
// returns.
func (r *run) locked(ctx workflow.Context, fn func() error) error {
	if err := r.mu.Lock(ctx); err != nil {
		return err
	}
	defer r.mu.Unlock()
	return fn()
}

// participant is recipient id as the signing-order rules read them, or nil when the envelope no
// longer holds them.
func (r *run) participant(id int64) *envelope.Participant {
	rec := r.snap.Recipient(id)
	if rec == nil {
		return nil
	}
	p := rec.Participant()
	return &p
}

// act runs an Update's change once the workflow is initialized, under the lock, then waits for
// the main loop to act on it: change returns the version to wait for.
func (r *run) act(ctx workflow.Context, change func() (int, error)) error {
	start := workflow.Now(ctx)
	if err := workflow.Await(ctx, func() bool { return r.initialized }); err != nil {
		return err
	}
	var v int
	err := r.locked(ctx, func() (err error) {
		v, err = change()
		return err
	})
	if err != nil {
		return err
	}
	r.wait(ctx, v, start)
	return nil
}
