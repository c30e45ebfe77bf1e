package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sobre-sign/sobre/auth"
	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
)

// admin runs an administrative subcommand. Keys are printed alone on the last line of stdout so
// that scripts can take them with `tail -n 1`.
func admin(ctx context.Context, cfg config.Config, log *slog.Logger, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("admin: want a subcommand: create-key, ensure-key, list-keys, revoke-key")
	}
	fs := flag.NewFlagSet("admin "+args[0], flag.ContinueOnError)
	team := fs.String("team", "", "team name (created when missing)")
	email := fs.String("email", "", "user email (created when missing)")
	userName := fs.String("user-name", "", "user display name")
	role := fs.String("role", "", "team role: MEMBER, MANAGER or ADMIN (default MEMBER for a new member)")
	name := fs.String("name", "", "a label for the key")
	expiresIn := fs.Duration("expires-in", 0, "key lifetime, e.g. 720h (default: SOBRE_API_KEY_DAYS days)")
	noExpiry := fs.Bool("no-expiry", false, "a key that never expires")
	file := fs.String("file", "", "ensure-key: file holding the key")
	id := fs.Int64("id", 0, "revoke-key: key id")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	teamRole := envelope.TeamRole(strings.ToUpper(*role))
	if *role != "" && !envelope.OneOf(teamRole, envelope.TeamRoles()) {
		return fmt.Errorf("admin: --role %q is not one of MEMBER, MANAGER, ADMIN", *role)
	}
	if *noExpiry && *expiresIn != 0 {
		return fmt.Errorf("admin %s: --no-expiry and --expires-in exclude each other", args[0])
	}
	if *expiresIn < 0 {
		return fmt.Errorf("admin %s: --expires-in %v is not a positive duration", args[0], *expiresIn)
	}
	// expiry is when a key made now stops working: --expires-in, else SOBRE_API_KEY_DAYS days;
	// nil with --no-expiry.
	expiry := func() *time.Time {
		if *noExpiry {
			return nil
		}
		lifetime := cfg.APIKeyLifetime()
		if *expiresIn > 0 {
			lifetime = *expiresIn
		}
		t := time.Now().Add(lifetime)
		return &t
	}
	if _, err := persistence.Migrate(ctx, cfg.DatabaseURL, slog.New(slog.DiscardHandler)); err != nil {
		return err
	}
	store, err := persistence.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	keys := &auth.Keys{Store: store}
	need := func(flags ...string) error {
		for _, f := range flags {
			if fs.Lookup(f).Value.String() == "" {
				return fmt.Errorf("admin %s: --%s is required", args[0], f)
			}
		}
		return nil
	}

	switch args[0] {
	case "create-key":
		if err := need("team", "email"); err != nil {
			return err
		}
		key, stored, err := keys.Issue(ctx, *team, *email, *userName, teamRole, *name, expiry())
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "API key %d for %s (%s) in team %q, %s; it is shown only now:\n%s\n", stored.ID, stored.Member.UserEmail, stored.Member.Role, stored.Member.TeamName, expiryText(stored.ExpiresAt), key)
		return nil

	case "ensure-key":
		if err := need("file", "team", "email"); err != nil {
			return err
		}
		if b, err := os.ReadFile(*file); err == nil {
			key := strings.TrimSpace(string(b))
			if _, err := keys.Resolve(ctx, key); err == nil {
				fmt.Fprintln(stdout, key)
				return nil
			}
			log.Info("stored key no longer valid; making a new one", "file", *file)
		}
		key, _, err := keys.Issue(ctx, *team, *email, *userName, teamRole, "dev", expiry())
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(*file), 0o700); err != nil {
			return fmt.Errorf("admin ensure-key: %w", err)
		}
		if err := os.WriteFile(*file, []byte(key+"\n"), 0o600); err != nil {
			return fmt.Errorf("admin ensure-key: %w", err)
		}
		fmt.Fprintln(stdout, key)
		return nil

	case "list-keys", "revoke-key":
		if err := need("team"); err != nil {
			return err
		}
		teamID, err := store.TeamIDByName(ctx, *team)
		if err != nil {
			return err
		}
		if args[0] == "revoke-key" {
			if *id == 0 {
				return errors.New("admin revoke-key: --id is required")
			}
			if err := store.RevokeAPIKey(ctx, teamID, *id); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "revoked key %d\n", *id)
			return nil
		}
		list, err := store.ListAPIKeys(ctx, teamID)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "ID\tPREFIX\tOWNER\tSTATE\tCREATED\tEXPIRES")
		for _, k := range list {
			state := "active"
			switch {
			case k.RevokedAt != nil:
				state = "revoked"
			case k.ExpiresAt != nil && k.ExpiresAt.Before(time.Now()):
				state = "expired"
			}
			fmt.Fprintf(stdout, "%d\t%s…\t%s\t%s\t%s\t%s\n", k.ID, k.Prefix, k.Member.UserEmail, state, k.CreatedAt.Format(time.RFC3339), expiryText(k.ExpiresAt))
		}
		return nil
	}
	return fmt.Errorf("admin: unknown subcommand %q", args[0])
}

// expiryText says when a key expires, for the admin commands' output.
func expiryText(at *time.Time) string {
	if at == nil {
		return "no expiry"
	}
	return "expires " + at.UTC().Format(time.RFC3339)
}
