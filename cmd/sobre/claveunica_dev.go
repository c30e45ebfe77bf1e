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
	issuer := (&url.URL{Scheme: "http", Host: ln.Addr().String(), Path: "/openid"}).String()
	p, err := claveunicadev.New(issuer, []claveunicadev.Client{{
		ID: cfg.ClaveUnicaClientID, Secret: cfg.ClaveUnicaClientSecret, RedirectPrefixes: []string{cfg.PublicURL + "/"},
	}}, claveunicadev.Options{}, log)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	log.Info("local Clave Única listening (development only)", "issuer", issuer)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("local Clave Única: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
