package persistence

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"strconv"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for goose
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate applies every migration not yet applied to the database at url, in order, and
// returns the schema version reached.
func Migrate(ctx context.Context, url string, log *slog.Logger) (int64, error) {
	return migrateTo(ctx, url, log, -1)
}

// migrateTo is Migrate up to version (every migration when version < 0): tests start from an
// older schema with it.
func migrateTo(ctx context.Context, url string, log *slog.Logger, version int64) (int64, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return 0, fmt.Errorf("open database for migrations: %w", err)
	}
	defer db.Close()
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return 0, fmt.Errorf("read embedded migrations: %w", err)
	}
	// The session lock lets several processes (API, worker) start at once: one migrates, the
	// others wait for it.
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return 0, fmt.Errorf("prepare migration lock: %w", err)
	}
	provider, err := goose.NewProvider(goose.DialectPostgres, db, sub, goose.WithSessionLocker(locker))
	if err != nil {
		return 0, fmt.Errorf("prepare migrations: %w", err)
	}
	var results []*goose.MigrationResult
	if version < 0 {
		results, err = provider.Up(ctx)
	} else {
		results, err = provider.UpTo(ctx, version)
	}
	if err != nil {
		return 0, fmt.Errorf("apply migrations: %w", err)
	}
	for _, r := range results {
		log.InfoContext(ctx, "migration applied", "version", r.Source.Version, "file", r.Source.Path, "duration", r.Duration)
	}
	reached, err := provider.GetDBVersion(ctx)
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return reached, nil
}

// LatestMigration returns the version of the newest migration embedded in this build (the
// number its file name starts with): the schema version Migrate reaches. Versions need not be
// consecutive.
func LatestMigration() (int64, error) {
	entries, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return 0, fmt.Errorf("list embedded migrations: %w", err)
	}
	var latest int64
	for _, e := range entries {
		name := path.Base(e)
		digits, _, _ := strings.Cut(name, "_")
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("migration %s: no version number: %w", name, err)
		}
		latest = max(latest, v)
	}
	return latest, nil
}
