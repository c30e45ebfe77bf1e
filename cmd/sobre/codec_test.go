package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/config"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Beyond loopback without a token the codec server says, at start, that whoever reaches it reads
// every payload; it stops with its context.
func TestCodecServerWarnsBeyondLoopbackWithoutToken(t *testing.T) {
	for _, c := range []struct {
		addr, token string
		warn        bool
	}{{"0.0.0.0:0", "", true}, {"0.0.0.0:0", "t0ken", false}, {"127.0.0.1:0", "", false}} {
		cfg, err := config.Load(func(k string) string {
			return map[string]string{"SOBRE_CODEC_ADDR": c.addr, "SOBRE_CODEC_TOKEN": c.token, "SOBRE_SEAL_DEV_DIR": t.TempDir()}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		var logs syncBuffer
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- codecServer(ctx, cfg, slog.New(slog.NewTextHandler(&logs, nil))) }()
		for i := 0; i < 100 && !strings.Contains(logs.String(), "codec server listening"); i++ {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", c.addr, err)
		}
		if got := strings.Contains(logs.String(), "without SOBRE_CODEC_TOKEN"); got != c.warn {
			t.Errorf("%s, token %q: warned %v, want %v\n%s", c.addr, c.token, got, c.warn, logs.String())
		}
	}
}
