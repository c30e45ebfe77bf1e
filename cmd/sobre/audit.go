package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/persistence"
)

// audit runs `sobre audit verify ENVELOPE_ID`: it recomputes the envelope's audit hash chain
// from PostgreSQL and fails naming the first entry that does not hold.
func audit(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	if len(args) != 2 || args[0] != "verify" {
		return errors.New("audit: usage: sobre audit verify ENVELOPE_ID")
	}
	store, err := persistence.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	n, final, err := store.VerifyAudit(ctx, args[1])
	if err != nil {
		return fmt.Errorf("audit log of %s: %w", args[1], err)
	}
	if n == 0 {
		return fmt.Errorf("audit log of %s: no entries (no such envelope?)", args[1])
	}
	fmt.Fprintf(stdout, "audit log of %s holds: %d entries, final hash %s\n", args[1], n, final)
	return nil
}
