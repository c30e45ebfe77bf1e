// Command sobre runs Sobre: the HTTP API (serve), the Temporal worker (worker), both in one
// process (dev), the database migrations (migrate) and administrative tasks (admin).
//
// Configuration comes only from environment variables; `sobre help` lists them.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/internal/keyring"
)

const usage = `sobre: electronic signature envelopes, Documenso API v2 compatible

Usage:
  sobre serve                 run the HTTP API
  sobre worker                run the Temporal worker (envelope workflows and activities)
  sobre dev                   migrate, then run the API and the worker in one process
  sobre migrate               apply database migrations and exit
  sobre admin create-key --team NAME --email EMAIL [--role MEMBER|MANAGER|ADMIN] [--name N] [--expires-in 720h | --no-expiry]
                              create the team and user if missing; print a new API key on the last line
                              (it expires after SOBRE_API_KEY_DAYS days unless --expires-in or --no-expiry)
  sobre admin ensure-key --file PATH --team NAME --email EMAIL [--role ROLE] [--expires-in D | --no-expiry]
                              print the key stored in PATH if it is still valid, else create one and store it
  sobre admin list-keys --team NAME
  sobre admin revoke-key --team NAME --id ID
  sobre audit verify ENVELOPE_ID
                              recompute the envelope's audit hash chain and check its HMACs (SOBRE_AUDIT_KEY_FILE);
                              exit 1 naming the first broken entry
  sobre repair ENVELOPE_ID | --all-stuck
                              start a new workflow run for a PENDING envelope whose workflow is closed or
                              missing (a stuck envelope); it picks the envelope up from PostgreSQL and mails
                              nothing twice; prints what it did, and does nothing to an envelope not stuck
  sobre seed [--envelopes 1000000] [--teams 10]
                              fill a development database with envelopes for the read benchmark (docs/scale.md)
  sobre keygen [ID]           print a new line for SOBRE_PAYLOAD_KEYS_FILE (ID defaults to the date)
  sobre codec-server          serve Temporal's codec-server protocol on SOBRE_CODEC_ADDR, so that the Temporal
                              Web UI and CLI show the encrypted payloads decoded (never expose it publicly)
  sobre claveunica-dev        run a local OpenID provider shaped like Clave Única, for development and tests
  sobre webhook-listen --secret whsec_… [--addr 127.0.0.1:9911] [--any-address]
                              receive webhooks locally: print each one whose signature and timestamp verify
                              (the secret may be in SOBRE_WEBHOOK_SECRET instead), answer 401 to the others
  sobre help                  this text and the environment variables

Environment (default in brackets):
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "sobre:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || asksForHelp(args) {
		printUsage(stdout)
		return nil
	}
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		return err
	}
	if process, ok := map[string]config.Process{"serve": config.ProcessAPI, "worker": config.ProcessWorker,
		"dev": config.ProcessAPI | config.ProcessWorker}[args[0]]; ok {
		if err := cfg.CheckProduction(process); err != nil {
			return err
		}
	}
	log := newLogger(cfg, stderr)
	slog.SetDefault(log)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	switch args[0] {
	case "serve":
		return serve(ctx, cfg, log)
	case "worker":
		return runWorker(ctx, cfg, log)
	case "dev":
		return dev(ctx, cfg, log)
	case "migrate":
		return migrate(ctx, cfg, log)
	case "admin":
		return admin(ctx, cfg, log, args[1:], stdout)
	case "audit":
		return audit(ctx, cfg, log, args[1:], stdout)
	case "repair":
		return repair(ctx, cfg, log, args[1:], stdout)
	case "seed":
		return seed(ctx, cfg, log, args[1:], stdout)
	case "keygen":
		id := time.Now().UTC().Format("k20060102")
		if len(args) > 1 {
			id = args[1]
		}
		line := keyring.NewKeyLine(id)
		if _, err := keyring.Parse([]byte(line)); err != nil {
			return err
		}
		fmt.Fprintln(stdout, line)
		return nil
	case "claveunica-dev":
		return claveUnicaDev(ctx, cfg, log)
	case "codec-server":
		return codecServer(ctx, cfg, log)
	case "webhook-listen":
		return webhookListen(ctx, args[1:], stdout, stderr)
	default:
		printUsage(stderr)
		return errors.New("unknown command " + args[0])
	}
}

// asksForHelp reports whether -h or --help stands where a command or a subcommand does ("sobre
// --help", "sobre migrate -h", "sobre audit verify -h"): the usage, which names every command's
// flags, is printed and nothing runs. After a flag it is the flag's value ("--team -h").
func asksForHelp(args []string) bool {
	for i, a := range args[:min(len(args), 3)] {
		if (a == "-h" || a == "--help") && (i == 0 || !strings.HasPrefix(args[i-1], "-")) {
			return true
		}
	}
	return false
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, usage)
	for _, v := range config.Vars() {
		fmt.Fprintf(w, "  %-24s %s [%s]\n", v.Name, v.Help, v.Default)
	}
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
