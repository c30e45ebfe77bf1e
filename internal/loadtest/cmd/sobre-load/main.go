// Command sobre-load drives running Sobre processes through their public API and prints what it
// measured (scripts/load.sh starts the processes; `make load` runs both):
//
//	sobre-load lifecycle -api URL[,URL] -key KEY -mailpit URL -n 200 -c 30
//	sobre-load pending   -api URL -key KEY -n 10000 -c 30 -procs api-1=PID,worker-1=PID
//	sobre-load sustained -api URL -key KEY -duration 5m -procs ...
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/internal/loadtest"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sobre-load lifecycle|pending|sustained [flags]")
		os.Exit(2)
	}
	mode, args := os.Args[1], os.Args[2:]
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch mode {
	case "lifecycle":
		err = lifecycle(ctx, args)
	case "pending":
		err = pending(ctx, args)
	case "sustained":
		err = sustained(ctx, args)
	default:
		err = fmt.Errorf("unknown mode %q: want lifecycle, pending or sustained", mode)
	}
	if err != nil {
		slog.Error("sobre-load "+mode, "err", err)
		os.Exit(1)
	}
}

// common are the flags every mode reads.
type common struct {
	apis, key, mailpit, procs, domain string
	remote                            bool
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.apis, "api", "http://127.0.0.1:8080", "comma-separated base URLs of the API processes; envelopes go round-robin")
	fs.StringVar(&c.key, "key", os.Getenv("SOBRE_LOAD_KEY"), "API key (default $SOBRE_LOAD_KEY)")
	fs.StringVar(&c.mailpit, "mailpit", "http://127.0.0.1:8025", "mailpit's HTTP API")
	fs.StringVar(&c.procs, "procs", "", "processes whose memory is printed: name=pid,name=pid")
	fs.StringVar(&c.domain, "domain", "load.test", "domain of every recipient's address")
	fs.BoolVar(&c.remote, "remote", false, "allow API URLs that are not on this machine (refused by default: the load is for a test stack)")
}

var httpClient = &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 200}}

func (c *common) clients() ([]*loadtest.Client, error) {
	if c.key == "" {
		return nil, fmt.Errorf("no API key: give -key or SOBRE_LOAD_KEY")
	}
	var out []*loadtest.Client
	for _, base := range strings.Split(c.apis, ",") {
		if base = strings.TrimRight(strings.TrimSpace(base), "/"); base != "" {
			if !c.remote {
				if err := loadtest.CheckLocal(base); err != nil {
					return nil, fmt.Errorf("-api %w; give -remote to load it anyway", err)
				}
			}
			out = append(out, &loadtest.Client{Base: base, Key: c.key, HTTP: httpClient})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no API base URL")
	}
	return out, nil
}

// parse reads args into fs (on which register was called) and returns the API clients and the
// processes whose memory is printed.
func (c *common) parse(fs *flag.FlagSet, args []string) ([]*loadtest.Client, []loadtest.Process, error) {
	_ = fs.Parse(args) // flag.ExitOnError
	clients, err := c.clients()
	if err != nil {
		return nil, nil, err
	}
	procs, err := loadtest.ParseProcesses(c.procs)
	return clients, procs, err
}

func runID() string { return fmt.Sprintf("%x", time.Now().UnixNano()&0xffffffff) }
