package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/internal/payloadcodec"
)

// codecServer serves Temporal's codec-server protocol with the payload keys, so that the
// Temporal Web UI (its codec endpoint) and `temporal workflow show --codec-endpoint` show the
// envelopes' payloads decrypted. Whoever reaches it reads them all: it listens on loopback by
// default, says so in its log when it does not without SOBRE_CODEC_TOKEN, and belongs behind a
// proxy that authenticates operators when it is shared.
func codecServer(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	ring, err := payloadKeys(cfg, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.CodecAddr)
	if err != nil {
		return fmt.Errorf("codec server: listen on %s: %w", cfg.CodecAddr, err)
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() && cfg.CodecToken == "" {
		// In a container it listens on every interface and only the published port decides who
		// reaches it: said at start, as it decrypts every payload for anyone who does.
		log.Warn("codec server listening beyond loopback without SOBRE_CODEC_TOKEN: whoever reaches it reads every envelope's payloads; keep it on a private network or behind a proxy that authenticates operators",
			"addr", ln.Addr().String())
	}
	srv := &http.Server{
		Handler:           payloadcodec.Handler(payloadcodec.New(ring), payloadcodec.ServerOptions{Origins: cfg.CodecCORSOrigins, Token: cfg.CodecToken}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	log.Info("codec server listening", "addr", ln.Addr().String(), "origins", cfg.CodecCORSOrigins, "token", cfg.CodecToken != "")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("codec server: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("codec server: drain: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("codec server: %w", err)
	}
	return nil
}
