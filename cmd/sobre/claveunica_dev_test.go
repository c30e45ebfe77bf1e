package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/config"
)

// TestClaveUnicaDev: the subcommand serves discovery with its issuer and stops when its context
// ends, as on SIGINT or SIGTERM.
func TestClaveUnicaDev(t *testing.T) {
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String() + "/openid"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveClaveUnicaDev(ctx, ln, cfg, slog.New(slog.DiscardHandler)) }()
	res, err := http.Get(issuer + "/.well-known/openid-configuration")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var d struct {
		Issuer string `json:"issuer"`
	}
	err = json.NewDecoder(res.Body).Decode(&d)
	res.Body.Close()
	if err != nil || d.Issuer != issuer {
		t.Errorf("discovery: issuer %q, %v; want %q", d.Issuer, err, issuer)
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
