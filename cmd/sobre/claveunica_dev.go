package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/sobre-sign/sobre/auth/claveunicadev"
	"github.com/sobre-sign/sobre/config"
)

// claveUnicaDev runs the local Clave Única on SOBRE_CLAVEUNICA_DEV_ADDR, registering the client
// of CLAVEUNICA_CLIENT_ID/SECRET with redirects back to SOBRE_PUBLIC_URL. Development and tests
// only: it signs in anyone who clicks a test RUN.
func claveUnicaDev(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	ln, err := net.Listen("tcp", cfg.ClaveUnicaDevAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.ClaveUnicaDevAddr, err)
	}
	return serveClaveUnicaDev(ctx, ln, cfg, log)
}

// serveClaveUnicaDev serves the local Clave Única on ln until ctx ends, then shuts down within
// 5 seconds. Its issuer is http://{ln's address}/openid, with 127.0.0.1 for an unspecified host.
func serveClaveUnicaDev(ctx context.Context, ln net.Listener, cfg config.Config, log *slog.Logger) error {
	host := ln.Addr().String()
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", fmt.Sprint(a.Port))
	}
	issuer := (&url.URL{Scheme: "http", Host: host, Path: "/openid"}).String()
	p, err := claveunicadev.New(issuer, []claveunicadev.Client{{
		ID: cfg.ClaveUnicaClientID, Secret: cfg.ClaveUnicaClientSecret, RedirectPrefixes: []string{cfg.PublicURL + "/"},
	}}, claveunicadev.Options{}, log)
	if err != nil {
		ln.Close()
		return err
	}
	if cfg.ClaveUnicaIssuerURL != issuer {
		log.Warn("CLAVEUNICA_ISSUER_URL is not this provider's issuer; Sobre will not use it", "issuer", issuer, "CLAVEUNICA_ISSUER_URL", cfg.ClaveUnicaIssuerURL)
	}
	srv := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	log.Info("local Clave Única listening (development only)", "issuer", issuer, "client_id", cfg.ClaveUnicaClientID, "redirects", cfg.PublicURL+"/")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("local Clave Única: %w", err)
	case <-ctx.Done():
	}
	log.Info("local Clave Única shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shut down the local Clave Única: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("local Clave Única: %w", err)
	}
	return nil
}
