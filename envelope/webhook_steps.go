package envelope

import "time"

// The steps a webhook's delivery workflow asks its activities to take, as plain data. The
// workflow's history keeps each of them, so they name calls by id and carry no secret, no
// payload and no URL: the activities read those from PostgreSQL.

// WebhookNext is what the step that looks for a route's (WebhookRoute) next call found. The step
// delivers, oldest first, the pending calls whose first attempt succeeds (Delivered counts them),
// so that calls delivered at once cost one activity between them, and stops at:
//   - a call it cannot deliver at once (Found): CallID, with Attempts made; First is the outcome
//     of the first attempt when the step made it (failed, gone, inactive), empty when the call
//     had attempts already (its next waits its delay);
//   - no call pending, or the webhook disabled or deleted (not Found);
//   - its time running out (not Found, More): the workflow looks again at once.
type WebhookNext struct {
	WebhookID string
	CallID    string
	Attempts  int
	Found     bool
	First     WebhookOutcome
	Delivered int
	More      bool
}

// WebhookSweep asks for every line of an envelope's route (WebhookRoute without a webhook) to be
// delivered as far as it goes at once, except the webhooks in Skip, whose lines wait on their
// retry schedule.
type WebhookSweep struct {
	Route WebhookRoute
	Skip  []string
}

// WebhookSwept is what a sweep did: Delivered calls in all; for each line it could not deliver
// at once, where it stopped (Stuck, a WebhookNext with its WebhookID); the webhooks it looked at
// (Webhooks); More when a line's time ran out with calls left, so that the workflow sweeps again
// at once.
type WebhookSwept struct {
	Delivered int
	Stuck     []WebhookNext
	Webhooks  []string
	More      bool
}

// WebhookAttemptStep asks for attempt Attempt (1-based) of call CallID.
type WebhookAttemptStep struct {
	CallID  string
	Attempt int
}

// WebhookOutcome is what an attempt of a call came to, as the delivery workflow acts on it.
type WebhookOutcome string

// The outcomes of an attempt. Success, gone and failed are also the outcomes recorded with the
// attempt and the metrics' labels.
const (
	WebhookSuccess  = WebhookOutcome("success")  // a 2xx answer: the call is delivered, the next goes
	WebhookGone     = WebhookOutcome("gone")     // a 410 answer: the webhook is to be disabled
	WebhookFailed   = WebhookOutcome("failed")   // anything else: the next attempt on the schedule
	WebhookInactive = WebhookOutcome("inactive") // the webhook is disabled or deleted: delivery ends
	WebhookDone     = WebhookOutcome("done")     // another attempt recorded it meanwhile: read the call again
)

// WebhookAttemptOutcome is what an attempt came to.
type WebhookAttemptOutcome struct {
	Outcome WebhookOutcome
}

// WebhookCallFailure marks call CallID, of team TeamID, FAILED after its last attempt.
type WebhookCallFailure struct {
	CallID string
	TeamID int64
}

// WebhookAttempts is how many attempts a call gets: the ninth failure fails it.
const WebhookAttempts = 9

// webhookDelays are the waits before each attempt, the first immediate.
var webhookDelays = [WebhookAttempts]time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// WebhookRetryDelay is how long a call waits before its attempt n (1-based), after the attempt
// before it: Standard Webhooks' schedule, now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 10 h,
// 37 h 35 min 5 s from the first attempt to the ninth. ok is false past attempt WebhookAttempts
// (the call is given up) and for an attempt below 1.
func WebhookRetryDelay(attempt int) (delay time.Duration, ok bool) {
	if attempt < 1 || attempt > WebhookAttempts {
		return 0, false
	}
	return webhookDelays[attempt-1], true
}

// WebhookRetention is how long a call and its attempts are kept, from the call's creation: the
// purge deletes older ones.
const WebhookRetention = 30 * 24 * time.Hour
