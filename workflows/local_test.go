package workflows

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

func TestRetryable(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"a refused connection", errDatabaseDown, true},
		{"a retryable application error", temporal.NewApplicationError("busy", "BUSY"), true},
		{"a domain error", temporal.NewNonRetryableApplicationError("The envelope is COMPLETED", string(envelope.CodeEnvelopeCompleted), nil), false},
		{"a domain error, wrapped", fmt.Errorf("activity: %w", temporal.NewNonRetryableApplicationError("no", "RECIPIENT_OUT_OF_TURN", nil)), false},
		{"a timeout", temporal.NewTimeoutError(0, errDatabaseDown), true},
		{"a cancellation", temporal.NewCanceledError(), false},
		{"no error", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := retryable(c.err); got != c.want {
				t.Errorf("retryable(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
}

// errDatabaseDown is what the store answers while PostgreSQL is down: a refused connection,
// worth retrying.
var errDatabaseDown = errors.New("failed to connect to `host=127.0.0.1 user=sobre database=sobre`: dial error (dial tcp 127.0.0.1:5432: connect: connection refused)")

// outage makes the store's activities fail with errDatabaseDown while down holds (noting each
// attempt in cost); after, the backend's answer.
func outage(down func() bool, cost *storeCost) func(*testsuite.TestWorkflowEnvironment) {
	return func(env *testsuite.TestWorkflowEnvironment) {
		d := mock.MatchedBy(func(any) bool { return down() })
		fail := func(ctx context.Context) error {
			cost.failed(activity.GetInfo(ctx), env.Now())
			return errDatabaseDown
		}
		env.OnActivity(acts.LoadSnapshot, mock.Anything, d).Return(func(ctx context.Context, _ string) (envelope.Progress, error) {
			return envelope.Progress{}, fail(ctx)
		})
		env.OnActivity(acts.MarkPending, mock.Anything, d).Return(func(ctx context.Context, _ envelope.Distribution) (envelope.Progress, error) {
			return envelope.Progress{}, fail(ctx)
		})
		env.OnActivity(acts.MarkSent, mock.Anything, d).Return(func(ctx context.Context, _ envelope.Sent) error { return fail(ctx) })
		env.OnActivity(acts.CompleteRecipient, mock.Anything, d).Return(func(ctx context.Context, _ envelope.RecipientCompletion) (envelope.Progress, error) {
			return envelope.Progress{}, fail(ctx)
		})
		env.OnActivity(acts.FinishEnvelope, mock.Anything, d).Return(func(ctx context.Context, _ envelope.Ending) error { return fail(ctx) })
		env.OnActivity(acts.ExpireRecipients, mock.Anything, mock.Anything, d).Return(func(ctx context.Context, _ string, _ time.Time) ([]envelope.ProgressRecipient, error) {
			return nil, fail(ctx)
		})
	}
}

// storeCost estimates, from the failed attempts of the store's activities, the events an outage
// adds to a real server's history. The test environment retries a local activity on workflow
// timers; a real worker retries it inside the workflow task and, past the task timeout (10 s),
// extends the task: three events every 8 s for as long as the local attempts go on. A handover
// to a regular activity costs its marker, the activity's three events and a workflow task's
// three, whatever its retries.
type storeCost struct {
	mu        sync.Mutex
	retrying  map[string][2]time.Time // by activity, the first and last failed local attempt
	localSpan time.Duration           // the longest time a store call was retried locally
	extended  int                     // the workflow task extensions those retries would cost
	handovers map[string]bool         // regular activities, by id
	local     int                     // failed local attempts
}

// failed notes a failed attempt at now. Local attempts of one activity less than a minute apart
// are the retries of one call (they back off 10 s at most).
func (c *storeCost) failed(info activity.Info, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.retrying == nil {
		c.retrying, c.handovers = map[string][2]time.Time{}, map[string]bool{}
	}
	name := info.ActivityType.Name
	if !info.IsLocalActivity {
		c.handovers[info.ActivityID] = true
		c.stopped(name)
		return
	}
	c.local++
	if s, ok := c.retrying[name]; ok && now.Sub(s[1]) < time.Minute {
		c.retrying[name] = [2]time.Time{s[0], now}
		return
	}
	c.stopped(name)
	c.retrying[name] = [2]time.Time{now, now}
}

// stopped ends the local retries of activity name.
func (c *storeCost) stopped(name string) {
	s, ok := c.retrying[name]
	if !ok {
		return
	}
	delete(c.retrying, name)
	span := s[1].Sub(s[0])
	c.localSpan = max(c.localSpan, span)
	c.extended += int(span / (8 * time.Second))
}

// events is the estimate, once the workflow ended.
func (c *storeCost) events() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name := range c.retrying {
		c.stopped(name)
	}
	return 3*c.extended + 7*len(c.handovers)
}

// Two 2-hour PostgreSQL outages, one while the workflow starts and one while a recipient
// completes: the envelope completes after each, and the outages cost a few events each, where
// local attempts retried for the whole outage cost thousands (the runs before "bounded-local").
func TestDatabaseOutageOfHoursKeepsTheHistoryBounded(t *testing.T) {
	for _, bounded := range []bool{true, false} {
		t.Run(fmt.Sprintf("bounded-local %v", bounded), func(t *testing.T) {
			b := newBackend(envelope.SigningOrderParallel, rec(1, envelope.RoleSigner, nil), rec(2, envelope.RoleSigner, nil))
			var start time.Time
			var env *testsuite.TestWorkflowEnvironment
			down := func() bool {
				since := env.Now().Sub(start)
				return since < 2*time.Hour || (since >= 5*time.Hour && since < 7*time.Hour)
			}
			var cost storeCost
			env = newEnv(t, b, outage(down, &cost))
			start = env.Now()
			if !bounded {
				env.OnGetVersion(currentShape, workflow.DefaultVersion, currentShapeVersion).Return(workflow.DefaultVersion)
				env.OnGetVersion("bounded-local", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
			}
			var completed []time.Duration
			env.SetOnActivityCompletedListener(func(info *activity.Info, _ converter.EncodedValue, err error) {
				if info.ActivityType.Name == actCompleteRecipient && err == nil {
					completed = append(completed, env.Now().Sub(start))
				}
			})
			update(t, env, 3*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
			update(t, env, 6*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
			env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatalf("workflow failed: %v", err)
			}
			if !slices.Equal(b.finished, []envelope.Status{envelope.StatusCompleted}) {
				t.Fatalf("finished %v", b.finished)
			}
			if got := b.mailsOf(envelope.MailSigningRequest); !slices.Equal(got, []int64{1, 2}) {
				t.Fatalf("signing requests %v", got)
			}
			t.Logf("local attempts %d, longest local retries %s, handovers %d: the outages cost about %d events",
				cost.local, cost.localSpan, len(cost.handovers), cost.events())
			if !bounded {
				if cost.events() < 2_000 {
					t.Fatalf("local retries for the whole outage estimated at %d events: the estimate misses them", cost.events())
				}
				return
			}
			if cost.localSpan > localBudget || len(cost.handovers) == 0 || len(cost.handovers) > 4 || cost.events() > 100 {
				t.Fatalf("local retries up to %s (budget %s), %d handovers: about %d events", cost.localSpan, localBudget, len(cost.handovers), cost.events())
			}
			if len(completed) != 1 || completed[0] < 7*time.Hour {
				t.Fatalf("the completion during the second outage was recorded at %v, want once, after it", completed)
			}
		})
	}
}

// runningTimers follows a test environment's timers: those started and neither fired nor
// cancelled yet.
type runningTimers map[string]bool

func (r runningTimers) listen(env *testsuite.TestWorkflowEnvironment) {
	env.SetOnTimerScheduledListener(func(id string, _ time.Duration) { r[id] = true })
	env.SetOnTimerFiredListener(func(id string) { delete(r, id) })
	env.SetOnTimerCanceledListener(func(id string) { delete(r, id) })
}

// The main loop has one deadline timer at a time: its waits (for the next reminder, for more
// refresh signals) and the Update handlers' cancel their timers when their condition comes
// first (the runs before "cancel-timers" left them running, each to fire later in a workflow
// task of its own).
func TestWaitsCancelTheirTimers(t *testing.T) {
	for _, cancels := range []bool{true, false} {
		t.Run(fmt.Sprintf("cancel-timers %v", cancels), func(t *testing.T) {
			b := newBackend(envelope.SigningOrderSequential, rec(1, envelope.RoleSigner, order(1)), rec(2, envelope.RoleSigner, order(2)))
			b.snap.Meta.ReminderSettings = &envelope.ReminderSettings{SendAfter: envelope.Duration{Unit: envelope.UnitDay, Amount: 1}, RepeatEvery: envelope.Duration{Unit: envelope.UnitDay, Amount: 1}}
			env := newEnv(t, b)
			if !cancels {
				env.OnGetVersion(currentShape, workflow.DefaultVersion, currentShapeVersion).Return(workflow.DefaultVersion)
				env.OnGetVersion("cancel-timers", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
			}
			running := runningTimers{}
			running.listen(env)
			most := 0
			for _, at := range []time.Duration{11 * time.Hour, 51 * time.Hour, 59 * time.Hour} {
				env.RegisterDelayedCallback(func() { most = max(most, len(running)) }, at)
			}
			env.RegisterDelayedCallback(func() { env.SignalWorkflow(SignalRefresh, nil) }, 10*time.Hour)
			update(t, env, 50*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 1}, false)
			update(t, env, 60*time.Hour, UpdateComplete, CompleteRequest{RecipientID: 2}, false)
			env.ExecuteWorkflow(EnvelopeWorkflow, Input{EnvelopeID: "envelope_test"})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			if cancels && most != 1 {
				t.Fatalf("%d timers running at once after a signal and a completion, want the deadline's only", most)
			}
			if !cancels && most < 2 {
				t.Fatalf("%d timers running at once: the runs before cancel-timers leave more", most)
			}
		})
	}
}
