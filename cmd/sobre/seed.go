package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/config"
	"github.com/sobre-sign/sobre/envelope"
)

// seedChunk is how many envelopes one round of COPY loads (with their items and recipients).
const seedChunk = 10000

// seedTables are the tables `sobre seed` fills; their GIN indexes are dropped while it loads and
// built again at the end, which is many times faster than updating them row by row.
var seedTables = []string{"envelopes", "recipients", "envelope_items", "envelope_search"}

// seed runs `sobre seed [--envelopes N] [--teams T]`: it fills an empty development database with
// N envelopes over T teams (Seed 1 … Seed T, admin@seed-<t>.example the admin of each), 3
// recipients each, every status, for the read benchmark (docs/scale.md). It refuses production,
// a database it has seeded before and one holding any envelope, and loads everything in one transaction: it either
// seeds all or nothing.
func seed(ctx context.Context, cfg config.Config, log *slog.Logger, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	n := fs.Int("envelopes", 1000000, "how many envelopes")
	teams := fs.Int("teams", 10, "over how many teams")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.Env == config.EnvProduction {
		return errors.New("seed: refused: SOBRE_ENV is production")
	}
	if *n < 1 || *teams < 1 {
		return errors.New("seed: --envelopes and --teams must be at least 1")
	}
	if err := migrate(ctx, cfg, log); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("seed: connect: %w", err)
	}
	defer conn.Close(ctx)
	start := time.Now()
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		s := &seeder{tx: tx, world: newSeedWorld(*teams, 5000, start), out: stdout}
		return s.run(ctx, *n, *teams)
	})
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	loaded := time.Since(start)
	for _, t := range seedTables {
		if _, err := conn.Exec(ctx, "VACUUM (ANALYZE) "+t); err != nil {
			return fmt.Errorf("seed: vacuum %s: %w", t, err)
		}
	}
	fmt.Fprintf(stdout, "seeded %d envelopes over %d teams in %s (loaded and indexed in %s, then vacuumed)\n",
		*n, *teams, time.Since(start).Round(time.Second), loaded.Round(time.Second))
	return nil
}

// seeder loads the seed within one transaction.
type seeder struct {
	tx    pgx.Tx
	world *seedWorld
	out   io.Writer
	users [][]int64 // each team's id, then its users, the admin first
	data  string    // the document every item shows
	meta  []byte
}

func (s *seeder) run(ctx context.Context, n, teams int) error {
	var seeded bool
	if err := s.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM teams WHERE url = 'seed-1')`).Scan(&seeded); err != nil {
		return err
	}
	if seeded {
		return errors.New("refused: this database is seeded already (team seed-1 exists)")
	}
	// A database holding any envelope is someone's data, not a benchmark's: SOBRE_ENV defaults
	// to development, so a production database reached without it set lands here.
	var holds bool
	if err := s.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM envelopes)`).Scan(&holds); err != nil {
		return err
	}
	if holds {
		return errors.New("refused: this database holds envelopes already; seed an empty one")
	}
	if err := s.teams(ctx, teams); err != nil {
		return err
	}
	if err := s.document(ctx); err != nil {
		return err
	}
	var err error
	if s.meta, err = json.Marshal(envelope.DefaultMeta("")); err != nil {
		return err
	}
	// The envelope_search triggers and the foreign-key checks are skipped while loading (rows
	// are written consistent); the search rows are then written at once from their view, in each
	// team's order of creation, as envelopes created one by one write them.
	if _, err := s.tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
		return fmt.Errorf("skip triggers (the seed needs a superuser): %w", err)
	}
	indexes, err := s.dropGINIndexes(ctx)
	if err != nil {
		return err
	}
	legacy, err := s.reserve(ctx, "document_number_seq", n)
	if err != nil {
		return err
	}
	start := time.Now()
	for done := 0; done < n; done += seedChunk {
		if err := s.chunk(ctx, min(seedChunk, n-done), legacy+int64(done)); err != nil {
			return err
		}
		if (done+seedChunk)%100000 == 0 {
			fmt.Fprintf(s.out, "  %d envelopes loaded in %s\n", done+seedChunk, time.Since(start).Round(time.Second))
		}
	}
	start = time.Now()
	if _, err := s.tx.Exec(ctx, `INSERT INTO envelope_search SELECT * FROM envelope_search_docs WHERE team_id = ANY ($1) ORDER BY team_id, created_at`, s.teamIDs()); err != nil {
		return fmt.Errorf("write the search rows: %w", err)
	}
	fmt.Fprintf(s.out, "  search rows written in %s\n", time.Since(start).Round(time.Second))
	start = time.Now()
	if _, err := s.tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '1GB'`); err != nil {
		return err
	}
	for _, def := range indexes {
		// A partitioned table's index is listed "ON ONLY" the table: built so, it would cover
		// none of the partitions (and stay invalid). Built on the table, it is built on each.
		def = strings.Replace(def, " ON ONLY ", " ON ", 1)
		if _, err := s.tx.Exec(ctx, def); err != nil {
			return fmt.Errorf("rebuild index: %w", err)
		}
	}
	fmt.Fprintf(s.out, "  %d GIN indexes rebuilt in %s\n", len(indexes), time.Since(start).Round(time.Second))
	return nil
}

// teams creates teams Seed 1 … Seed n, each with an admin (admin@seed-<t>.example) and four
// members.
func (s *seeder) teams(ctx context.Context, n int) error {
	roles := []string{"ADMIN", "MANAGER", "MEMBER", "MEMBER", "MEMBER"}
	for t := 1; t <= n; t++ {
		var teamID int64
		if err := s.tx.QueryRow(ctx, `INSERT INTO teams (name, url) VALUES ($1, $2) RETURNING id`,
			fmt.Sprintf("Seed %d", t), fmt.Sprintf("seed-%d", t)).Scan(&teamID); err != nil {
			return fmt.Errorf("create team %d: %w", t, err)
		}
		var ids []int64
		for i, role := range roles {
			email := fmt.Sprintf("user%d@seed-%d.example", i, t)
			if i == 0 {
				email = fmt.Sprintf("admin@seed-%d.example", t)
			}
			var userID int64
			if err := s.tx.QueryRow(ctx, `INSERT INTO users (email, name) VALUES ($1, $2) RETURNING id`,
				email, fmt.Sprintf("%s %s", s.world.pick(seedFirstNames), s.world.pick(seedLastNames))).Scan(&userID); err != nil {
				return fmt.Errorf("create user %s: %w", email, err)
			}
			if _, err := s.tx.Exec(ctx, `INSERT INTO team_members (team_id, user_id, role) VALUES ($1, $2, $3)`, teamID, userID, role); err != nil {
				return fmt.Errorf("add %s to team %d: %w", email, t, err)
			}
			ids = append(ids, userID)
		}
		s.users = append(s.users, append([]int64{teamID}, ids...))
	}
	return nil
}

func (s *seeder) teamIDs() []int64 {
	var ids []int64
	for _, u := range s.users {
		ids = append(ids, u[0])
	}
	return ids
}

// document stores the one-page PDF every seeded item shows.
func (s *seeder) document(ctx context.Context) error {
	sum := sha256.Sum256(seedPDF)
	s.data = "docdata_" + hex.EncodeToString(sum[:12])
	_, err := s.tx.Exec(ctx, `INSERT INTO document_data (id, sha256, data, size_bytes, page_count, page_sizes)
		VALUES ($1, $2, $3, $4, 1, '[{"width":595,"height":842}]') ON CONFLICT (sha256) DO NOTHING`, s.data, sum[:], seedPDF, len(seedPDF))
	if err != nil {
		return fmt.Errorf("store the seed's document: %w", err)
	}
	return s.tx.QueryRow(ctx, `SELECT id FROM document_data WHERE sha256 = $1`, sum[:]).Scan(&s.data)
}

// dropGINIndexes drops the GIN indexes of seedTables and returns their definitions. Dropping a
// partitioned table's index drops its partitions' too.
func (s *seeder) dropGINIndexes(ctx context.Context) ([]string, error) {
	rows, err := s.tx.Query(ctx, `SELECT indexname, indexdef FROM pg_indexes
		WHERE schemaname = current_schema() AND tablename = ANY($1) AND indexdef LIKE '% USING gin %'`, seedTables)
	if err != nil {
		return nil, fmt.Errorf("list GIN indexes: %w", err)
	}
	type index struct{ name, def string }
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (index, error) {
		var i index
		return i, r.Scan(&i.name, &i.def)
	})
	if err != nil {
		return nil, fmt.Errorf("list GIN indexes: %w", err)
	}
	var defs []string
	for _, i := range list {
		if _, err := s.tx.Exec(ctx, `DROP INDEX `+pgx.Identifier{i.name}.Sanitize()); err != nil {
			return nil, fmt.Errorf("drop index %s: %w", i.name, err)
		}
		defs = append(defs, i.def)
	}
	return defs, nil
}

// reserve takes n numbers of sequence seq and returns the first.
func (s *seeder) reserve(ctx context.Context, seq string, n int) (int64, error) {
	var first int64
	err := s.tx.QueryRow(ctx, `SELECT nextval($1::regclass)`, seq).Scan(&first)
	if err == nil {
		_, err = s.tx.Exec(ctx, `SELECT setval($1::regclass, $2)`, seq, first+int64(n))
	}
	if err != nil {
		return 0, fmt.Errorf("reserve %d numbers of %s: %w", n, seq, err)
	}
	return first, nil
}

// chunk loads n envelopes numbered from legacy, their items and recipients, with one COPY each.
func (s *seeder) chunk(ctx context.Context, n int, legacy int64) error {
	var envelopes, items, recipients [][]any
	for i := range n {
		e := s.world.envelope(s.users, legacy+int64(i))
		envelopes = append(envelopes, e.row(s.meta))
		items = append(items, []any{s.world.envelopeID("envelope_item_"), e.id, s.data, s.data, "documento.pdf", 1})
		recipients = append(recipients, e.recipients...)
	}
	for _, c := range []struct {
		table   string
		columns []string
		rows    [][]any
	}{
		{"envelopes", seedEnvelopeColumns, envelopes},
		{"envelope_items", []string{"id", "envelope_id", "document_data_id", "initial_data_id", "title", "item_order"}, items},
		{"recipients", seedRecipientColumns, recipients},
	} {
		if _, err := s.tx.CopyFrom(ctx, pgx.Identifier{c.table}, c.columns, pgx.CopyFromRows(c.rows)); err != nil {
			return fmt.Errorf("copy %s: %w", c.table, err)
		}
	}
	return nil
}

// seedPDF is a valid one-page blank PDF.
var seedPDF = []byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
	"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")
