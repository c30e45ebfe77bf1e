package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/sobre-sign/sobre/config"
)

// audit runs `sobre audit verify ENVELOPE_ID`: it recomputes the envelope's audit hash chain
// from PostgreSQL, checks each entry's HMAC with the audit key, and fails naming the first entry
// that does not hold. A log that holds is described: its head, the key that vouches for it, and
// how far it is unkeyed (entries below SOBRE_AUDIT_KEYED_FROM, written before audit keys
// existed).
func audit(ctx context.Context, cfg config.Config, log *slog.Logger, args []string, stdout io.Writer) error {
	if len(args) != 2 || args[0] != "verify" {
		return errors.New("audit: usage: sobre audit verify ENVELOPE_ID")
	}
	store, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer store.Close()
	id := args[1]
	rep, err := store.VerifyAuditChain(ctx, id)
	if err != nil {
		return fmt.Errorf("audit log of %s: %w", id, err)
	}
	if rep.Entries == 0 {
		return fmt.Errorf("audit log of %s: no entries (no such envelope?)", id)
	}
	fmt.Fprintf(stdout, "audit log of %s holds: %d entries, final hash %s\n", id, rep.Entries, rep.FinalHash)
	switch {
	case rep.UnkeyedUpTo == 0:
		fmt.Fprintf(stdout, "keyed: every entry's HMAC holds; the head's is by key %s\n", rep.HeadKey)
	case rep.UnkeyedUpTo < rep.Entries:
		fmt.Fprintf(stdout, "unkeyed up to entry %d (below SOBRE_AUDIT_KEYED_FROM, written before the audit key existed); entries %d to %d keyed, the head by key %s, "+
			"whose HMACs vouch for the unkeyed entries too\n", rep.UnkeyedUpTo, rep.UnkeyedUpTo+1, rep.Entries, rep.HeadKey)
	default:
		fmt.Fprintf(stdout, "unkeyed up to entry %d, the head: below SOBRE_AUDIT_KEYED_FROM, written before the audit key existed, so only the hash chain vouches for it\n", rep.UnkeyedUpTo)
	}
	if rep.Legacy > 0 {
		fmt.Fprintf(stdout, "entries 1 to %d predate the hash chain (below SOBRE_AUDIT_KEYED_FROM) and cannot be verified\n", rep.Legacy)
	}
	return nil
}
