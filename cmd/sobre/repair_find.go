package main

import (
	"context"
	"time"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/workflows"
)

// stuckFinder finds the envelopes that PostgreSQL says are PENDING and that no workflow moves
// (workflows.Stuck).
type stuckFinder struct {
	store *persistence.Store
	flows *workflows.Client
}

// verdict is how one envelope stands.
type verdict struct {
	ID     string
	Status envelope.Status
	Run    workflows.Run
	Stuck  bool
	// Owed: a stuck direct-link document whose workflow never ran. Its visitor's submit made it
	// PENDING and then could not start the run (Temporal away, the API killed), so the run is
	// owed to it, and the watcher starts it without waiting for an operator.
	Owed bool
}

// examine reads envelope id's status from PostgreSQL and its workflow's from Temporal, and
// whether it is stuck; whether it is abandoned is read at now.
func (f stuckFinder) examine(ctx context.Context, id string, now time.Time) (verdict, error) {
	snap, err := f.store.LoadSnapshot(ctx, id)
	if err != nil {
		return verdict{}, err
	}
	run, err := f.flows.RunOf(ctx, id)
	if err != nil {
		return verdict{}, err
	}
	abandoned := envelope.Abandoned(snap.Meta.SigningOrder, snap.Participants(), envelope.ExpiryNoted(snap.Recipients), now)
	stuck := workflows.Stuck(snap.Status, run, abandoned)
	return verdict{ID: id, Status: snap.Status, Run: run, Stuck: stuck, Owed: stuck && run == workflows.RunMissing && snap.DirectVisitor != 0}, nil
}

// pendingPage is how many PENDING envelopes are read at a time.
const pendingPage = 500

// stuck lists the stuck envelopes among the PENDING ones, at now: one DescribeWorkflowExecution
// each, and a read of the envelope for those whose workflow is not running. An envelope that cannot be
// examined (it was deleted meanwhile) is skipped; Temporal unreachable ends the search.
func (f stuckFinder) stuck(ctx context.Context, now time.Time) ([]verdict, error) {
	var out []verdict
	after := ""
	for {
		ids, err := f.store.PendingEnvelopeIDs(ctx, after, pendingPage)
		if err != nil {
			return out, err
		}
		for _, id := range ids {
			// Most PENDING envelopes have a running workflow: they are passed over without
			// reading them.
			if run, err := f.flows.RunOf(ctx, id); err != nil {
				return out, err
			} else if run == workflows.RunRunning {
				continue
			}
			v, err := f.examine(ctx, id, now)
			if envelope.ErrorCode(err) == envelope.CodeNotFound {
				continue
			}
			if err != nil {
				return out, err
			}
			if v.Stuck {
				out = append(out, v)
			}
		}
		if len(ids) < pendingPage {
			return out, nil
		}
		after = ids[len(ids)-1]
	}
}
