package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/internal/keyring"
	"github.com/sobre-sign/sobre/persistence"
)

// openTokenStore is openStore for the processes that serve and mail signing links (serve,
// worker, dev): with the keyring of signing tokens, the payload keys (SOBRE_PAYLOAD_KEYS_FILE;
// payloadKeys says when they are the development ones), and sealing in the background the tokens
// written in the clear before migration 00011.
func openTokenStore(ctx context.Context, cfg config.Config, log *slog.Logger) (*persistence.Store, error) {
	ring, _, err := cfg.Keyring()
	if err != nil {
		return nil, fmt.Errorf("payload keys: %w", err)
	}
	store, err := openStore(ctx, cfg, log, persistence.WithKeyring(ring))
	if err != nil {
		return nil, err
	}
	sealPlainTokens(ctx, store, ring, log)
	return store, nil
}

// sealPlainTokens seals, in the background, the signing tokens that rows written before
// migration 00011 still hold in the clear (idempotent: nothing to do once done; until a row is
// sealed, its plain copy serves it).
func sealPlainTokens(ctx context.Context, store *persistence.Store, ring *keyring.Ring, log *slog.Logger) {
	go func() {
		n, err := store.SealPlainTokens(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("seal the signing tokens kept in the clear before this version; the next start tries again", "err", err, "sealed", n)
		case n > 0:
			log.Info("sealed the signing tokens kept in the clear before this version", "count", n, "key", ring.PrimaryID())
		}
	}()
}
