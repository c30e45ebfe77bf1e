package workflows

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sobre-sign/sobre/envelope"
)

// hookBackend is the store and the endpoint of a webhook's delivery, in memory: pending calls in
// their order, and for each the outcome of each attempt (success once the list runs out).
type hookBackend struct {
	mu       sync.Mutex
	env      *testsuite.TestWorkflowEnvironment
	pending  []string
	attempts map[string]int
	script   map[string][]envelope.WebhookOutcome
	made     []hookAttempt
	failed   []string
	disabled []envelope.WebhookRoute
	inactive bool
	nexts    int               // sweeps
	hooks    map[string]string // the webhook of a call, when not wh_1
	failNext int               // steps to fail before the next one answers
}

type hookAttempt struct {
	call string
	n    int
	at   time.Time
}

func newHookBackend(calls ...string) *hookBackend {
	return &hookBackend{pending: calls, attempts: map[string]int{}, script: map[string][]envelope.WebhookOutcome{}, hooks: map[string]string{}}
}

func (b *hookBackend) add(call string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending = append(b.pending, call)
}

func (b *hookBackend) register(env *testsuite.TestWorkflowEnvironment) {
	b.env = env
	env.RegisterWorkflow(WebhookWorkflow)
	env.RegisterActivityWithOptions(func(_ context.Context, sw envelope.WebhookSweep) (envelope.WebhookSwept, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		// As the real sweep does, each line not skipped is delivered one call after another
		// while their first attempt succeeds.
		b.nexts++
		if b.failNext > 0 {
			b.failNext--
			return envelope.WebhookSwept{}, errors.New("the attempt's claim is held by another worker")
		}
		var swept envelope.WebhookSwept
		for _, hook := range b.lines() {
			if slices.Contains(sw.Skip, hook) || b.inactive {
				continue
			}
			swept.Webhooks = append(swept.Webhooks, hook)
			for _, id := range b.lineOf(hook) {
				if b.attempts[id] > 0 {
					swept.Stuck = append(swept.Stuck, envelope.WebhookNext{WebhookID: hook, CallID: id, Attempts: b.attempts[id], Found: true})
					break
				}
				if out := b.attempt(envelope.WebhookAttemptStep{CallID: id, Attempt: 1}); out.Outcome != envelope.WebhookSuccess {
					swept.Stuck = append(swept.Stuck, envelope.WebhookNext{WebhookID: hook, CallID: id, Attempts: 1, Found: true, First: out.Outcome})
					break
				}
				swept.Delivered++
			}
		}
		return swept, nil
	}, activity.RegisterOptions{Name: actSweepWebhookCalls})
	env.RegisterActivityWithOptions(func(_ context.Context, s envelope.WebhookAttemptStep) (envelope.WebhookAttemptOutcome, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.attempt(s), nil
	}, activity.RegisterOptions{Name: actAttemptWebhookCall})
	env.RegisterActivityWithOptions(func(_ context.Context, f envelope.WebhookCallFailure) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.failed = append(b.failed, f.CallID)
		b.pending = slices.DeleteFunc(b.pending, func(id string) bool { return id == f.CallID })
		return nil
	}, activity.RegisterOptions{Name: actFailWebhookCall})
	env.RegisterActivityWithOptions(func(_ context.Context, r envelope.WebhookRoute) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.disabled = append(b.disabled, r)
		b.inactive = true
		return nil
	}, activity.RegisterOptions{Name: actDisableWebhook})
}

// hookOf is the webhook of call id: "wh_1" unless the test said otherwise.
func (b *hookBackend) hookOf(id string) string {
	if h, ok := b.hooks[id]; ok {
		return h
	}
	return "wh_1"
}

// lines are the webhooks with calls pending, in the order of their first pending call.
func (b *hookBackend) lines() []string {
	var out []string
	for _, id := range b.pending {
		if h := b.hookOf(id); !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// lineOf is webhook hook's pending calls, in order (a copy: delivering changes b.pending).
func (b *hookBackend) lineOf(hook string) []string {
	var out []string
	for _, id := range b.pending {
		if b.hookOf(id) == hook {
			out = append(out, id)
		}
	}
	return out
}

// attempt makes attempt s, as the script says, with b locked.
func (b *hookBackend) attempt(s envelope.WebhookAttemptStep) envelope.WebhookAttemptOutcome {
	if b.inactive {
		return envelope.WebhookAttemptOutcome{Outcome: envelope.WebhookInactive}
	}
	b.made = append(b.made, hookAttempt{s.CallID, s.Attempt, b.env.Now()})
	b.attempts[s.CallID] = s.Attempt
	out := envelope.WebhookSuccess
	if script := b.script[s.CallID]; s.Attempt <= len(script) {
		out = script[s.Attempt-1]
	}
	if out == envelope.WebhookSuccess {
		b.pending = slices.DeleteFunc(b.pending, func(id string) bool { return id == s.CallID })
	}
	return envelope.WebhookAttemptOutcome{Outcome: out}
}

func newHookEnv(b *hookBackend) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := suite.NewTestWorkflowEnvironment()
	b.register(env)
	return env
}

var testRoute = envelope.WebhookRoute{EnvelopeID: "envelope_1", TeamID: 7}

// Three calls of one route are delivered one after the other, in their order, each at its first
// attempt, by one step; with nothing left the workflow ends after a minute idle.
func TestWebhookWorkflowDeliversInOrder(t *testing.T) {
	b := newHookBackend("call_1", "call_2", "call_3")
	env := newHookEnv(b)
	start := env.Now()
	env.ExecuteWorkflow(WebhookWorkflow, testRoute)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range b.made {
		got = append(got, a.call)
		if a.n != 1 {
			t.Errorf("%s attempt %d, want 1", a.call, a.n)
		}
	}
	if !slices.Equal(got, []string{"call_1", "call_2", "call_3"}) {
		t.Errorf("attempts %v, want the three calls in order", got)
	}
	if b.nexts != 1 {
		t.Errorf("%d steps, want one step delivering the three calls", b.nexts)
	}
	if idle := env.Now().Sub(start); idle < webhookIdle || idle > webhookIdle+time.Second {
		t.Errorf("ended %v after the start, want after %v idle", idle, webhookIdle)
	}
}

// A call whose endpoint keeps failing is attempted nine times on Standard Webhooks' schedule
// (Temporal timers, 37 h 35 min 5 s from the first to the last), then marked failed, and the next
// call goes.
func TestWebhookWorkflowRetriesOnTheSchedule(t *testing.T) {
	b := newHookBackend("call_1", "call_2")
	for range envelope.WebhookAttempts {
		b.script["call_1"] = append(b.script["call_1"], envelope.WebhookFailed)
	}
	env := newHookEnv(b)
	start := env.Now()
	env.ExecuteWorkflow(WebhookWorkflow, testRoute)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(b.made) != envelope.WebhookAttempts+1 {
		t.Fatalf("%d attempts, want %d of the failing call and one of the next", len(b.made), envelope.WebhookAttempts+1)
	}
	prev := start
	for i, a := range b.made[:envelope.WebhookAttempts] {
		want, _ := envelope.WebhookRetryDelay(i + 1)
		if a.call != "call_1" || a.n != i+1 || a.at.Sub(prev) != want {
			t.Errorf("attempt %d: %s #%d %v after the one before; want call_1 #%d after %v", i+1, a.call, a.n, a.at.Sub(prev), i+1, want)
		}
		prev = a.at
	}
	if span := prev.Sub(start); span != 37*time.Hour+35*time.Minute+5*time.Second {
		t.Errorf("the attempts spanned %v", span)
	}
	if !slices.Equal(b.failed, []string{"call_1"}) {
		t.Errorf("failed %v, want call_1", b.failed)
	}
	if last := b.made[envelope.WebhookAttempts]; last.call != "call_2" || last.n != 1 || last.at != prev {
		t.Errorf("then %+v, want call_2 at once", last)
	}
}

// A call that had attempts before (a run that continued as new, or was restarted) goes on with
// the next attempt, after that attempt's delay.
func TestWebhookWorkflowResumesAtTheNextAttempt(t *testing.T) {
	b := newHookBackend("call_1")
	b.attempts["call_1"] = 3
	env := newHookEnv(b)
	start := env.Now()
	env.ExecuteWorkflow(WebhookWorkflow, testRoute)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(b.made) != 1 || b.made[0].n != 4 || b.made[0].at.Sub(start) != 30*time.Minute {
		t.Errorf("attempts %+v, want #4 after 30 min", b.made)
	}
}

// A 410 disables the webhook (once) and ends delivery: the calls after it wait, pending.
func TestWebhookWorkflowGoneDisables(t *testing.T) {
	b := newHookBackend("call_1", "call_2")
	b.script["call_1"] = []envelope.WebhookOutcome{envelope.WebhookFailed, envelope.WebhookGone}
	env := newHookEnv(b)
	env.ExecuteWorkflow(WebhookWorkflow, testRoute)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(b.made) != 2 || b.made[1].call != "call_1" {
		t.Errorf("attempts %+v, want two of call_1", b.made)
	}
	line := envelope.WebhookRoute{WebhookID: "wh_1", EnvelopeID: testRoute.EnvelopeID, TeamID: testRoute.TeamID}
	if !slices.Equal(b.disabled, []envelope.WebhookRoute{line}) {
		t.Errorf("disabled %v, want the route's webhook once", b.disabled)
	}
	if !slices.Equal(b.pending, []string{"call_1", "call_2"}) {
		t.Errorf("pending %v, want both calls", b.pending)
	}
}

// A webhook found disabled or deleted at an attempt ends delivery without a disabling.
func TestWebhookWorkflowEndsWhenInactive(t *testing.T) {
	b := newHookBackend("call_1")
	b.script["call_1"] = []envelope.WebhookOutcome{envelope.WebhookFailed}
	env := newHookEnv(b)
	env.RegisterDelayedCallback(func() {
		b.mu.Lock()
		b.inactive = true
		b.mu.Unlock()
	}, time.Second)
	env.ExecuteWorkflow(WebhookWorkflow, testRoute)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(b.made) != 1 || len(b.disabled) != 0 || len(b.failed) != 0 {
		t.Errorf("attempts %+v, disabled %v, failed %v; want one attempt and nothing else", b.made, b.disabled, b.failed)
	}
}

// Idle, the workflow waits for a wake signal on its idle timer: one has it deliver the new call
// and wait again on the same timer; when the timer fires after a delivery, it looks once more and
// starts a new one; when it fires with nothing delivered since it started, the workflow ends: at
// least a minute, at most two, after its last delivery.
func TestWebhookWorkflowWakesWhileIdle(t *testing.T) {
	b := newHookBackend()
	env := newHookEnv(b)
	start := env.Now()
	env.RegisterDelayedCallback(func() {
		b.add("call_1")
		env.SignalWorkflow(WebhookWakeSignal, nil)
		env.SignalWorkflow(WebhookWakeSignal, nil)
	}, 40*time.Second)
	env.ExecuteWorkflow(WebhookWorkflow, testRoute)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(b.made) != 1 || b.made[0].call != "call_1" || b.made[0].at.Sub(start) != 40*time.Second {
		t.Errorf("attempts %+v, want call_1 at 40 s", b.made)
	}
	if end := env.Now().Sub(start); end != 2*webhookIdle {
		t.Errorf("ended at %v, want at the second idle timer (the first fired after a delivery)", end)
	}
}

// A busy route's run continues as new after webhookStepsPerRun steps.
func TestWebhookWorkflowContinuesAsNew(t *testing.T) {
	b := newHookBackend()
	for i := range webhookStepsPerRun + 5 {
		id := "call_" + string(rune('a'+i/26)) + string(rune('a'+i%26))
		b.add(id)
		b.script[id] = []envelope.WebhookOutcome{envelope.WebhookFailed} // one step each
	}
	env := newHookEnv(b)
	env.ExecuteWorkflow(WebhookWorkflow, testRoute)
	if !workflow.IsContinueAsNewError(env.GetWorkflowError()) {
		t.Fatalf("ended with %v, want a continue-as-new", env.GetWorkflowError())
	}
	if b.nexts != webhookStepsPerRun || len(b.pending) != 5 {
		t.Errorf("%d steps, %d pending; want %d and 5", b.nexts, len(b.pending), webhookStepsPerRun)
	}
}

// The step that looks for the next call runs locally once; when it fails (a claim another worker
// holds, the store away), it runs again as a regular activity, and the call is delivered.
func TestWebhookWorkflowFallsBackToARegularStep(t *testing.T) {
	b := newHookBackend("call_1")
	b.failNext = 1
	env := newHookEnv(b)
	env.ExecuteWorkflow(WebhookWorkflow, testRoute)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(b.made) != 1 || b.made[0].call != "call_1" || b.nexts != 2 {
		t.Errorf("attempts %+v after %d steps; want call_1 delivered by the second, regular, step", b.made, b.nexts)
	}
}

// One envelope's lines go side by side: while wh_1's call waits on its retry schedule, wh_2's
// calls, and a call of wh_2 that comes later (a wake), are delivered at once; wh_1's next call
// waits for the one before it.
func TestWebhookWorkflowAFailingLineHoldsBackOnlyItself(t *testing.T) {
	b := newHookBackend("a_1", "b_1", "a_2")
	b.hooks = map[string]string{"a_1": "wh_1", "a_2": "wh_1", "b_1": "wh_2", "b_2": "wh_2"}
	b.script["a_1"] = []envelope.WebhookOutcome{envelope.WebhookFailed, envelope.WebhookFailed, envelope.WebhookFailed}
	env := newHookEnv(b)
	start := env.Now()
	env.RegisterDelayedCallback(func() {
		b.add("b_2")
		env.SignalWorkflow(WebhookWakeSignal, nil)
	}, time.Minute)
	env.ExecuteWorkflow(WebhookWorkflow, testRoute)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	at := map[string]time.Duration{}
	for _, a := range b.made {
		if _, seen := at[a.call]; !seen || b.attempts[a.call] == a.n {
			at[a.call] = a.at.Sub(start)
		}
	}
	if at["b_1"] != 0 || at["b_2"] != time.Minute {
		t.Errorf("wh_2's calls delivered at %v and %v, want at once and at the wake", at["b_1"], at["b_2"])
	}
	// a_1: attempts at 0, 5 s, 5 min 5 s, then the fourth, successful, 30 min later.
	if want := 35*time.Minute + 5*time.Second; at["a_1"] != want || at["a_2"] != want {
		t.Errorf("wh_1's calls delivered at %v and %v, want both at %v (a_2 right after a_1)", at["a_1"], at["a_2"], want)
	}
	if len(b.pending) != 0 {
		t.Errorf("pending %v", b.pending)
	}
}

// The idle timer that ran before a line retried does not end the workflow once the retry
// delivered: it ends a minute or more after its last delivery, whoever made it.
func TestWebhookWorkflowIdlesAfterARetry(t *testing.T) {
	b := newHookBackend("call_1")
	env := newHookEnv(b)
	start := env.Now()
	env.RegisterDelayedCallback(func() {
		b.mu.Lock()
		b.script["call_2"] = []envelope.WebhookOutcome{envelope.WebhookFailed}
		b.mu.Unlock()
		b.add("call_2")
		env.SignalWorkflow(WebhookWakeSignal, nil)
	}, 30*time.Second)
	env.ExecuteWorkflow(WebhookWorkflow, testRoute)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	last := b.made[len(b.made)-1]
	if end := env.Now(); end.Sub(last.at) < webhookIdle {
		t.Errorf("ended %v after its last delivery (%v after the start), want at least %v", end.Sub(last.at), last.at.Sub(start), webhookIdle)
	}
}

// A run started by its wake signal (signal-with-start) sweeps once, not once more for that signal.
func TestWebhookWorkflowStartSignalCostsOneSweep(t *testing.T) {
	b := newHookBackend("call_1")
	env := newHookEnv(b)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(WebhookWakeSignal, nil) }, 0)
	env.ExecuteWorkflow(WebhookWorkflow, testRoute)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if b.nexts != 1 {
		t.Errorf("%d sweeps, want 1", b.nexts)
	}
}
