package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/webhook"
)

// TestWebhookListen: the receiver prints a signed webhook and answers 204, answers 401 to a
// forged one, a stale one and a GET, and stops when its context ends.
func TestWebhookListen(t *testing.T) {
	secret := webhook.NewSecret()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/any/path"
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveWebhookListen(ctx, ln, secret, &stdout, &stderr) }()

	body := []byte(`{"event":"DOCUMENT_SIGNED","payload":{"id":"envelope_abc","status":"PENDING"},"createdAt":"2026-11-26T10:00:00.000Z","webhookEndpoint":"x"}`)
	post := func(t *testing.T, secret string, ts time.Time, body []byte) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set(webhook.HeaderID, "msg_1")
		req.Header.Set(webhook.HeaderTimestamp, fmt.Sprint(ts.Unix()))
		req.Header.Set(webhook.HeaderSignature, webhook.Sign("msg_1", ts, body, secret))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := post(t, secret, time.Now(), body); got != http.StatusNoContent {
		t.Errorf("signed: %d, want 204", got)
	}
	if got := post(t, webhook.NewSecret(), time.Now(), body); got != http.StatusUnauthorized {
		t.Errorf("forged: %d, want 401", got)
	}
	if got := post(t, secret, time.Now().Add(-time.Hour), body); got != http.StatusUnauthorized {
		t.Errorf("an hour old: %d, want 401", got)
	}
	if got := post(t, secret, time.Now(), bytes.Repeat([]byte("x"), maxWebhookBody+1)); got != http.StatusRequestEntityTooLarge {
		t.Errorf("over 1 MiB: %d, want 413", got)
	}
	if res, err := http.Get(url); err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %v %v, want 405", res, err)
	} else {
		res.Body.Close()
	}

	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 1 || !strings.HasSuffix(lines[0], " msg_1 DOCUMENT_SIGNED envelope_abc PENDING") {
		t.Errorf("stdout: %q, want one line for the signed webhook", lines)
	}
	for _, want := range []string{"no signature matches", "old, more than 5m0s", "request body too large"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q does not say %q", stderr.String(), want)
		}
	}
	if strings.Contains(stdout.String()+stderr.String(), secret) {
		t.Error("the secret is printed")
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stopped with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10 s after its context ended")
	}
}

// TestWebhookListenUnverifiedInput: what an unverified request chooses (its path) is printed
// quoted, so that a page in the developer's browser posting to the receiver cannot write
// terminal escape sequences or lines of its own; a webhook-id seen before is printed as a
// repeat (Sobre delivers at least once, and a resend has the same webhook-id), still 204.
func TestWebhookListenUnverifiedInput(t *testing.T) {
	secret := webhook.NewSecret()
	var stdout, stderr syncBuffer
	h := webhookReceiver(secret, &stdout, &stderr)
	req := httptest.NewRequest(http.MethodPost, "/%1b%5b2J%0a2026-11-26T10:00:00Z%20msg_x%20DOCUMENT_COMPLETED", strings.NewReader("{}"))
	h.ServeHTTP(httptest.NewRecorder(), req)
	if got := stderr.String(); strings.ContainsAny(strings.TrimSuffix(got, "\n"), "\x1b\n") {
		t.Errorf("an unverified path is printed raw: %q", got)
	}

	body := []byte(`{"event":"DOCUMENT_SIGNED","payload":{"id":"envelope_abc","status":"PENDING"}}`)
	for range 2 {
		now := time.Now()
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set(webhook.HeaderID, "msg_1")
		req.Header.Set(webhook.HeaderTimestamp, fmt.Sprint(now.Unix()))
		req.Header.Set(webhook.HeaderSignature, webhook.Sign("msg_1", now, body, secret))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusNoContent {
			t.Errorf("signed: %d, want 204", rec.Code)
		}
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || strings.Contains(lines[0], "repeat") || !strings.HasSuffix(lines[1], "(a repeat of msg_1: deduplicate by webhook-id)") {
		t.Errorf("stdout %q, want the second delivery of msg_1 marked as a repeat", lines)
	}
}

func TestWebhookListenFlags(t *testing.T) {
	t.Setenv("SOBRE_WEBHOOK_SECRET", "")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--addr", "0.0.0.0:9911", "--secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, `--addr "0.0.0.0:9911" is not a loopback address`},
		{[]string{"--addr", ":9911", "--secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, "is not a loopback address"},
		{[]string{"--addr", "192.168.1.10:9911"}, "is not a loopback address"},
		{[]string{"--addr", "nonsense"}, "--addr \"nonsense\""},
		{[]string{"--addr", "127.0.0.1:0"}, "--secret (or SOBRE_WEBHOOK_SECRET) is required"},
		{[]string{"--addr", "[::1]:0", "--secret", "short"}, "secret must be"},
		{[]string{"--addr", "0.0.0.0:0", "--any-address", "--secret", "whsec_AAAA"}, "secret must be whsec_ followed by the base64 of 24 to 64 bytes"},
		{[]string{"--port", "1"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		var stderr syncBuffer
		err := webhookListen(context.Background(), tt.args, &stderr, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("webhook-listen %q: %v, want an error with %q", tt.args, err, tt.want)
		}
	}
}

// TestWebhookListenStarts: a loopback address and the secret from SOBRE_WEBHOOK_SECRET are
// enough; an address beyond loopback with --any-address too.
func TestWebhookListenStarts(t *testing.T) {
	t.Setenv("SOBRE_WEBHOOK_SECRET", webhook.NewSecret())
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // it stops as soon as it has started
	for _, args := range [][]string{{"--addr", "127.0.0.1:0"}, {"--addr", "localhost:0"}, {"--addr", "0.0.0.0:0", "--any-address"}} {
		var stderr syncBuffer
		if err := webhookListen(ctx, args, &stderr, &stderr); err != nil {
			t.Errorf("webhook-listen %q: %v", args, err)
		}
		if !strings.Contains(stderr.String(), "listening on http://") {
			t.Errorf("webhook-listen %q said %q", args, stderr.String())
		}
	}
}
