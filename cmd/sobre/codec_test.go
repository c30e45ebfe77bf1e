package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/config"
)

// Beyond loopback the codec server needs a token.
func TestCodecServerRefusesAnOpenAddressWithoutToken(t *testing.T) {
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"SOBRE_CODEC_ADDR": "0.0.0.0:0", "SOBRE_SEAL_DEV_DIR": t.TempDir()}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	err = codecServer(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "SOBRE_CODEC_TOKEN") {
		t.Fatalf("codec server on 0.0.0.0 without a token: %v, want a refusal naming SOBRE_CODEC_TOKEN", err)
	}
}
