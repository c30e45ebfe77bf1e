package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sobre-sign/sobre/webhook"
)

// maxWebhookBody bounds the body `sobre webhook-listen` reads.
const maxWebhookBody = 1 << 20

// webhookListen is `sobre webhook-listen [--addr 127.0.0.1:9911] [--any-address] --secret
// whsec_…`: a receiver of Sobre's webhooks for local development. The secret may come from
// SOBRE_WEBHOOK_SECRET instead; the address must be loopback unless --any-address.
func webhookListen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("webhook-listen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:9911", "the address to listen on")
	anyAddress := fs.Bool("any-address", false, "allow an address other than loopback")
	secret := fs.String("secret", os.Getenv("SOBRE_WEBHOOK_SECRET"), "the webhook's secret (default $SOBRE_WEBHOOK_SECRET)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := checkListenAddr(*addr, *anyAddress); err != nil {
		return err
	}
	if *secret == "" {
		return errors.New("webhook-listen: --secret (or SOBRE_WEBHOOK_SECRET) is required")
	}
	if err := webhook.CheckSecret(*secret, true); err != nil {
		return fmt.Errorf("webhook-listen: secret %w", err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("webhook-listen: listen on %s: %w", *addr, err)
	}
	return serveWebhookListen(ctx, ln, *secret, stdout, stderr)
}

// serveWebhookListen serves webhookReceiver on ln until ctx ends.
func serveWebhookListen(ctx context.Context, ln net.Listener, secret string, stdout, stderr io.Writer) error {
	fmt.Fprintf(stderr, "listening on http://%s/ (any path), verifying each webhook with the secret\n", ln.Addr())
	srv := &http.Server{Handler: webhookReceiver(secret, stdout, stderr), ReadHeaderTimeout: 10 * time.Second}
	if err := serveUntilDone(ctx, srv, ln, 5*time.Second); err != nil {
		return fmt.Errorf("webhook-listen: %w", err)
	}
	return nil
}

// checkListenAddr refuses an address that is not loopback ("localhost", 127.0.0.0/8, ::1)
// unless anyAddress: whoever reaches the receiver makes it print what they send.
func checkListenAddr(addr string, anyAddress bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("webhook-listen: --addr %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); anyAddress || host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	return fmt.Errorf("webhook-listen: --addr %q is not a loopback address; add --any-address to listen on it", addr)
}

// webhookReceiver answers POST on any path: a body of at most 1 MiB whose signature and
// timestamp verify with secret (webhook.Verify) is printed on stdout as one line (the time, its
// webhook-id, event, payload.id and payload.status) and answered 204; anything else is answered
// 401 (or 405, 413) with a line on stderr saying why, the path quoted (whoever can reach the
// receiver chooses it). A webhook-id among the last maxSeenIDs received is printed as a repeat
// and answered 204 too: Sobre delivers at least once, and a resend has the same webhook-id, so a
// consumer deduplicates by it.
func webhookReceiver(secret string, stdout, stderr io.Writer) http.Handler {
	var mu sync.Mutex // one line at a time
	var seen recentIDs
	say := func(w io.Writer, format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format+"\n", args...)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
		if err != nil {
			say(stderr, "%s refused a request to %q: body: %v", now.Format(time.RFC3339), r.URL.Path, err)
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if err := webhook.Verify(secret, r.Header, body, now); err != nil {
			say(stderr, "%s refused a request to %q: %v", now.Format(time.RFC3339), r.URL.Path, err)
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		id, repeat := r.Header.Get(webhook.HeaderID), ""
		if seen.add(id) {
			repeat = " (a repeat of " + id + ": deduplicate by webhook-id)"
		}
		say(stdout, "%s %s%s", now.Format(time.RFC3339), describeEvent(id, body), repeat)
		w.WriteHeader(http.StatusNoContent)
	})
}

// maxSeenIDs is how many webhook-ids the receiver remembers to tell a repeat.
const maxSeenIDs = 10000

// recentIDs are the last maxSeenIDs webhook-ids received, safe for concurrent use.
type recentIDs struct {
	mu    sync.Mutex
	set   map[string]bool
	order []string // oldest first
}

// add records id and reports whether it was recorded already.
func (r *recentIDs) add(id string) (seen bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.set[id] {
		return true
	}
	if r.set == nil {
		r.set = map[string]bool{}
	}
	if len(r.order) == maxSeenIDs {
		delete(r.set, r.order[0])
		r.order = r.order[1:]
	}
	r.set[id], r.order = true, append(r.order, id)
	return false
}

// describeEvent is a webhook's line: its id, event, payload.id and payload.status, "-" for what
// is missing.
func describeEvent(id string, body []byte) string {
	var b struct {
		Event   string `json:"event"`
		Payload struct {
			ID     json.RawMessage `json:"id"`
			Status string          `json:"status"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return id + " (not JSON: " + err.Error() + ")"
	}
	payloadID := strings.Trim(string(b.Payload.ID), `"`)
	fields := []string{id, b.Event, payloadID, b.Payload.Status}
	for i, f := range fields {
		if f == "" || f == "null" {
			fields[i] = "-"
		}
	}
	return strings.Join(fields, " ")
}

// serveUntilDone serves srv on ln until ctx ends, then shuts it down, giving requests under way
// at most drain to finish.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, drain time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
