package workflows

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/sobre-sign/sobre/envelope"
)

// Client is how the API starts and talks to envelope workflows.
// Every call runs under a deadline (CallTimeout), and a Temporal that is away or busy is told to
// the caller as SERVICE_UNAVAILABLE with Retry-After (temporalAway, awayError).
type Client struct {
	Temporal  client.Client
	TaskQueue string
	// CallTimeout is the longest one call may take (SOBRE_TEMPORAL_CALL_TIMEOUT);
	// DefaultCallTimeout when zero.
	CallTimeout time.Duration
	// Away, when set, reports whether the last check of Temporal found it unavailable (the API's
	// health check, api.Server.Away): calls are then refused at once, without waiting out their
	// deadline against a server that does not answer.
	Away func() bool
}

// errAwayChecked is why a call refused at once was refused.
var errAwayChecked = errors.New("the last check found Temporal unavailable")

// call returns ctx bounded by the call deadline (CallTimeout), or SERVICE_UNAVAILABLE at once
// while Away says so.
func (c *Client) call(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if c.Away != nil && c.Away() {
		return ctx, func() {}, awayError(errAwayChecked)
	}
	return c.callAnyway(ctx)
}

// callAnyway is call without Away: for a signal that tells the workflow of a change already
// committed (Refresh), which a check that failed once must not drop.
func (c *Client) callAnyway(ctx context.Context) (context.Context, context.CancelFunc, error) {
	d := c.CallTimeout
	if d <= 0 {
		d = DefaultCallTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, cancel, nil
}

// Distribute starts the envelope's workflow (or finds the running one) and waits until it has
// marked the envelope PENDING and sent what is due. Starting and the first step are one
// Update-With-Start: a crash of the caller after it leaves a running workflow that finishes the
// job, and calling again is harmless. A PENDING envelope whose workflow ended or was lost gets a
// new run, which picks it up from PostgreSQL (pickup.go).
func (c *Client) Distribute(ctx context.Context, envelopeID string, teamID int64) error {
	ctx, cancel, err := c.call(ctx)
	defer cancel()
	if err != nil {
		return err
	}
	return c.updateWithStart(ctx, Input{EnvelopeID: envelopeID, TeamID: teamID}, "", UpdateDistribute, nil)
}

// updateWithStart runs the named Update (with arg, when not nil) on the envelope's running
// workflow, or starts one with in (startOptions) to run it, and waits for its result.
func (c *Client) updateWithStart(ctx context.Context, in Input, updateID, name string, arg any) error {
	id := in.EnvelopeID
	start := c.Temporal.NewWithStartWorkflowOperation(c.startOptions(in), EnvelopeWorkflow, in)
	opts := client.UpdateWorkflowOptions{UpdateID: updateID, WorkflowID: id, UpdateName: name, WaitForStage: client.WorkflowUpdateStageCompleted}
	if arg != nil {
		opts.Args = []any{arg}
	}
	h, err := c.Temporal.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{StartWorkflowOperation: start, UpdateOptions: opts})
	if err != nil {
		return fromError(fmt.Errorf("%s %s: %w", name, id, err))
	}
	if err := h.Get(ctx, nil); err != nil {
		return fromError(fmt.Errorf("%s %s: %w", name, id, err))
	}
	return nil
}

// update runs the named Update of the envelope's workflow (with arg, when not nil) and waits for
// its result. When the workflow is closed or missing (closedOrMissing) the Update is run once
// more with a start (Update-With-Start of a pickup run, Input.Pickup): a PENDING envelope whose
// run ended or was lost gets a new one, which picks it up from PostgreSQL; any other envelope
// is left as it is and the Update answered as its status says (a finished one as finished, a
// draft as ENVELOPE_DRAFT).
func (c *Client) update(ctx context.Context, envelopeID, name string, arg any) error {
	ctx, cancel, err := c.call(ctx)
	defer cancel()
	if err != nil {
		return err
	}
	// One id for every delivery of this call's Update: Temporal answers a repeat with the first's
	// outcome, and a completion recorded by a delivery it aborted is recognised (decidedByThis).
	opts := client.UpdateWorkflowOptions{
		UpdateID:     rand.Text(),
		WorkflowID:   envelopeID,
		UpdateName:   name,
		WaitForStage: client.WorkflowUpdateStageCompleted,
	}
	if arg != nil {
		opts.Args = []any{arg}
	}
	h, err := c.Temporal.UpdateWorkflow(ctx, opts)
	if err == nil {
		err = h.Get(ctx, nil)
	}
	if closedOrMissing(err) {
		return c.updateWithStart(ctx, Input{EnvelopeID: envelopeID, Pickup: true}, opts.UpdateID, name, arg)
	}
	if err != nil {
		return fromError(fmt.Errorf("%s %s: %w", name, envelopeID, err))
	}
	return nil
}

// Complete records a recipient's completion through the workflow, which checks the turn. The
// actor's strings are cut to their bounds (envelope.Actor.Bounded) first.
func (c *Client) Complete(ctx context.Context, envelopeID string, req CompleteRequest) error {
	req.Actor = req.Actor.Bounded()
	return c.update(ctx, envelopeID, UpdateComplete, req)
}

// Reject records a recipient's rejection; the workflow ends the envelope REJECTED. The actors'
// strings are cut to their bounds first.
func (c *Client) Reject(ctx context.Context, envelopeID string, req RejectRequest) error {
	req.Actor = req.Actor.Bounded()
	if req.OnBehalfOf != nil {
		a := req.OnBehalfOf.Bounded()
		req.OnBehalfOf = &a
	}
	return c.update(ctx, envelopeID, UpdateReject, req)
}

// Cancel ends the envelope CANCELLED. The actor's strings are cut to their bounds first.
func (c *Client) Cancel(ctx context.Context, envelopeID string, req CancelRequest) error {
	req.Actor = req.Actor.Bounded()
	return c.update(ctx, envelopeID, UpdateCancel, req)
}

// Delete ends a PENDING envelope and removes it; recipients who were sent it are told.
func (c *Client) Delete(ctx context.Context, envelopeID string) error {
	return c.update(ctx, envelopeID, UpdateDelete, nil)
}

// Resend sends the envelope again to recipients who have not acted.
func (c *Client) Resend(ctx context.Context, envelopeID string, req ResendRequest) error {
	return c.update(ctx, envelopeID, UpdateResend, req)
}

// Refresh tells a running workflow that the envelope's recipients changed, or that a
// recipient's access-code entry locked (the workflow then mails the owner). An envelope whose
// workflow never ran, or whose runs were deleted (a draft, an old finished envelope), needs no
// telling; one whose workflow is closed gets a pickup run (Input.Pickup), which acts on the
// change when the envelope is PENDING (its run ended abandoned) and does nothing otherwise.
func (c *Client) Refresh(ctx context.Context, envelopeID string) error {
	ctx, cancel, err := c.callAnyway(ctx)
	defer cancel()
	if err != nil {
		return err
	}
	err = c.Temporal.SignalWorkflow(ctx, envelopeID, "", SignalRefresh, nil)
	if closedOrMissing(err) {
		err = c.refreshClosed(ctx, envelopeID)
	}
	if err != nil {
		return fromError(fmt.Errorf("refresh %s: %w", envelopeID, err))
	}
	return nil
}

// State asks the running workflow for its view.
func (c *Client) State(ctx context.Context, envelopeID string) (State, error) {
	ctx, cancel, err := c.call(ctx)
	defer cancel()
	if err != nil {
		return State{}, err
	}
	var s State
	v, err := c.Temporal.QueryWorkflow(ctx, envelopeID, "", QueryState)
	if err != nil {
		return s, fromError(fmt.Errorf("query %s: %w", envelopeID, err))
	}
	return s, v.Get(&s)
}

// fromError turns what the workflow refused (an application error whose type is a domain
// code) back into the domain error, and a Temporal that is away into SERVICE_UNAVAILABLE
// (awayError); anything else stays as it is.
func fromError(err error) error {
	if temporalAway(err) {
		return awayError(err)
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() != "" && isDomainCode(app.Type()) {
		e := &envelope.Error{Code: envelope.Code(app.Type()), Message: app.Message()}
		if app.HasDetails() {
			_ = app.Details(&e.Issues) // the issues appError carried, if any
		}
		return e
	}
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return envelope.Errorf(envelope.CodeEnvelopeDraft, "The envelope has not been distributed")
	}
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return envelope.Errorf(envelope.CodeInvalidRequest, "The envelope has already finished")
	}
	return err
}

func isDomainCode(t string) bool {
	for _, c := range []envelope.Code{envelope.CodeInvalidBody, envelope.CodeInvalidRequest, envelope.CodeNotFound,
		envelope.CodeRecipientOutOfTurn, envelope.CodeRecipientExpired, envelope.CodeRecipientAlreadySigned,
		envelope.CodeRecipientHasUnsignedFields, envelope.CodeEnvelopeDraft, envelope.CodeEnvelopeCompleted,
		envelope.CodeEnvelopeRejected, envelope.CodeEnvelopeCancelled, envelope.CodeMissingSignatureField,
		// What the completion's proof check refuses (persistence.CompleteRecipient).
		envelope.CodeUnauthorized, envelope.CodeAuthUnavailable, envelope.CodeRUTMismatch, envelope.CodeLinkReplaced,
		envelope.CodeAccountRequired, envelope.CodeAccountMismatch, envelope.CodeEmailUnverified} {
		if string(c) == t {
			return true
		}
	}
	return false
}
