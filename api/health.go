package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/envelope"
)

// Check is one dependency check: a name and a function that fails when the dependency is down.
type Check struct {
	Name string
	Run  func(ctx context.Context) error
}

// reportEvery is how old a reported dependency's last result may be before it is checked again;
// reportTimeout bounds one check.
const (
	reportEvery   = 5 * time.Second
	reportTimeout = 2 * time.Second
)

// Dependency statuses in /healthz.
const (
	depOK          = "ok"
	depUnavailable = "unavailable"
	depUnknown     = "unknown" // not checked yet
)

// reported is a dependency the process reports but does not need to be ready (Temporal, for the
// API): its status is shown in /healthz and as the gauge sobre_<name>_up. Reading it never waits
// for the check: a stale result starts a check in the background and the last result is shown.
// A change of status is logged.
type reported struct {
	check Check
	log   *slog.Logger

	mu       sync.Mutex
	status   string
	checked  time.Time
	checking bool
}

// Status returns the dependency's last known status, starting a check when it is stale.
func (d *reported) Status() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.checking && time.Since(d.checked) >= reportEvery {
		d.checking = true
		go d.refresh()
	}
	if d.status == "" {
		return depUnknown
	}
	return d.status
}

func (d *reported) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), reportTimeout)
	defer cancel()
	status, err := depOK, d.check.Run(ctx)
	if err != nil {
		status = depUnavailable
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if status != d.status {
		if err != nil {
			d.log.Warn("dependency unavailable", "dependency", d.check.Name, "err", err)
		} else if d.status != "" {
			d.log.Info("dependency back", "dependency", d.check.Name)
		}
	}
	d.status, d.checked, d.checking = status, time.Now(), false
}

// Away returns a function that reports whether the reported dependency name was found
// unavailable by its last check (not while unknown); nil when the server reports no such
// dependency. Reading it starts a check when the last result is stale, as /healthz does.
func (s *Server) Away(name string) func() bool {
	for _, d := range s.reported {
		if d.check.Name == name {
			return func() bool { return d.Status() == depUnavailable }
		}
	}
	return nil
}

// newReported returns the reported dependencies of checks, their gauges registered in reg.
func newReported(checks []Check, log *slog.Logger, reg prometheus.Registerer) ([]*reported, error) {
	var out []*reported
	for _, c := range checks {
		d := &reported{check: c, log: log}
		gauge := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "sobre_" + c.Name + "_up",
			Help: fmt.Sprintf("1 when %s answered its last check, 0 when it did not or is not checked yet.", c.Name),
		}, func() float64 {
			if d.Status() == depOK {
				return 1
			}
			return 0
		})
		if err := reg.Register(gauge); err != nil {
			return nil, fmt.Errorf("register %s gauge: %w", c.Name, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// healthz answers liveness: always ok while the process serves, with the status of each reported
// dependency ("temporal": "ok", "unavailable" or "unknown").
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	body := map[string]string{"status": "ok"}
	for _, d := range s.reported {
		body[d.check.Name] = d.Status()
	}
	writeJSON(w, http.StatusOK, body)
}

// readyz runs every readiness check and answers 503 naming those that fail. Each failure's
// error is logged, never answered: it may name hosts, users or addresses.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	results := map[string]string{}
	for _, c := range s.checks {
		if err := c.Run(r.Context()); err != nil {
			results[c.Name] = "failing"
			s.log.WarnContext(r.Context(), "readiness check failed", "check", c.Name, "err", err)
			continue
		}
		results[c.Name] = "ok"
	}
	if failed := countFailed(results); failed > 0 {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{
			"message": fmt.Sprintf("Not ready: %d of %d checks fail", failed, len(s.checks)),
			"code":    envelope.CodeUnavailable,
			"checks":  results,
		})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "checks": results})
}

func countFailed(results map[string]string) int {
	n := 0
	for _, v := range results {
		if v != "ok" {
			n++
		}
	}
	return n
}
