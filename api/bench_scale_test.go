package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sobre-sign/sobre/auth"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/persistence/pgtest"
)

// The read path on a seeded database (`sobre seed`, a million envelopes over 10 teams), through
// the HTTP API at SOBRE_SCALE_CLIENTS concurrent clients: run by `make bench-scale`
// (scripts/bench-scale.sh), which says what the variables are. It prints p50/p99 per query and
// writes each query's EXPLAIN (ANALYZE, BUFFERS) plans (auto_explain) to SOBRE_SCALE_PLANS.

// scaleTitleTerms are title searches: kinds of document, places and companies of the seed, from
// common (a few per cent of a team's envelopes) to rare.
var scaleTitleTerms = []string{"arriendo", "confidencialidad", "finiquito", "compraventa", "Providencia", "Ñuñoa",
	"Atacama", "Minera", "septiembre 2024", "Pagaré", "licencia de software", "Carta oferta", "depto 1204",
	"Clínica Los Lagos", "teletrabajo", "Orden de compra N° 4", "Valparaíso", "Forestal Maule"}

func BenchmarkScaleReads(b *testing.B) {
	dbURL := os.Getenv("SOBRE_SCALE_DATABASE_URL")
	if dbURL == "" {
		b.Skip("SOBRE_SCALE_DATABASE_URL is not set: run `make bench-scale`")
	}
	clients, _ := strconv.Atoi(os.Getenv("SOBRE_SCALE_CLIENTS"))
	requests, _ := strconv.Atoi(os.Getenv("SOBRE_SCALE_REQUESTS"))
	clients, requests = max(clients, 1), max(requests, 100)
	ctx := context.Background()
	srv, store := scaleServer(b, dbURL, false)
	key, _, err := (&auth.Keys{Store: store}).Issue(ctx, "Seed 1", "admin@seed-1.example", "", envelope.TeamRoleAdmin, "bench-scale", nil)
	if err != nil {
		b.Fatal(err)
	}
	ids, emails := scaleSample(b, dbURL)
	queries := []struct {
		name string
		path func(i int) string
	}{
		{"get-by-id", func(i int) string { return "/api/v2/envelope/" + ids[i%len(ids)] }},
		{"list-page", func(i int) string {
			return fmt.Sprintf("/api/v2/envelope?page=%d&perPage=10", 1+(i*7919)%(persistence.FindCountCap/10))
		}},
		{"title-search", func(i int) string {
			return "/api/v2/envelope?perPage=10&query=" + url.QueryEscape(scaleTitleTerms[i%len(scaleTitleTerms)])
		}},
		{"email-search", func(i int) string {
			return "/api/v2/envelope?perPage=10&query=" + url.QueryEscape(emails[i%len(emails)])
		}},
	}
	all := queries
	// SOBRE_SCALE_QUERIES (names, comma-separated) times only those, to compare two builds.
	if only := os.Getenv("SOBRE_SCALE_QUERIES"); only != "" {
		names := strings.Split(only, ",")
		queries = slices.DeleteFunc(slices.Clone(queries), func(q struct {
			name string
			path func(i int) string
		}) bool {
			return !slices.Contains(names, q.name)
		})
	}
	// The timed answers are not checked against the OpenAPI document (checkedHandler passes a
	// benchmark's through): the tests check every answer of the same handlers.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * clients}}
	for _, q := range queries {
		if status := scaleGet(client, srv.URL+q.path(0), key); status != http.StatusOK {
			b.Fatalf("%s: %s answered %d", q.name, q.path(0), status)
		}
	}
	b.ResetTimer()
	for _, q := range queries {
		var t timings
		var next, failed atomic.Int64
		start := time.Now()
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for i := int(next.Add(1)); i <= requests; i = int(next.Add(1)) {
					began := time.Now()
					if scaleGet(client, srv.URL+q.path(i), key) != http.StatusOK {
						failed.Add(1)
					}
					t.add(time.Since(began))
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		p50, p99 := t.quantile(0.5), t.quantile(0.99)
		fmt.Printf("    bench %-13s p50 %7.2f ms   p99 %7.2f ms   %6.0f req/s   (%d requests, %d clients, %d failed)\n",
			q.name, ms(p50), ms(p99), float64(requests)/elapsed.Seconds(), requests, clients, failed.Load())
		b.ReportMetric(ms(p99), q.name+"-p99-ms")
		if failed.Load() > 0 {
			b.Errorf("%s: %d requests failed", q.name, failed.Load())
		}
	}
	b.StopTimer()
	if dir, log := os.Getenv("SOBRE_SCALE_PLANS"), os.Getenv("SOBRE_SCALE_PG_LOG"); dir != "" && log != "" {
		title := func(term string) string { return "/api/v2/envelope?perPage=10&query=" + url.QueryEscape(term) }
		scalePlans(b, dbURL, key, log, dir, map[string]string{"get-by-id": all[0].path(0), "list-page": all[1].path(50),
			"title-search": all[2].path(0), "email-search": all[3].path(0),
			// The planner's two ways for a text query: a common word (a fifth of the team) and a rare phrase.
			"title-search-common": title("Minera"), "title-search-rare": title("Forestal Maule")})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// scaleServer is the API on the seeded database; with explain, its connections log the plan of
// every statement they run (auto_explain, to the server's log).
func scaleServer(tb testing.TB, dbURL string, explain bool) (*httptest.Server, *persistence.Store) {
	if explain {
		dbURL += "&session_preload_libraries=auto_explain&auto_explain.log_min_duration=0&auto_explain.log_analyze=on" +
			"&auto_explain.log_buffers=on&auto_explain.log_timing=on"
	}
	store, err := persistence.Open(context.Background(), dbURL, persistence.WithKeyring(pgtest.Keyring(tb)))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(store.Close)
	server, err := NewServer(Deps{Config: unlimited(testConfig(tb)), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Store: store,
		Registry: prometheus.NewRegistry(), Checks: []Check{{Name: "postgresql", Run: store.Ping}}})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(checkedHandler(tb, server.Handler()))
	tb.Cleanup(srv.Close)
	return srv, store
}

// scaleSample returns envelope ids of team Seed 1 and its recipients' emails, drawn at random.
func scaleSample(b *testing.B, dbURL string) (ids, emails []string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT e.id, r.email FROM envelopes e TABLESAMPLE SYSTEM (2) REPEATABLE (19)
		JOIN recipients r ON r.envelope_id = e.id AND r.signing_order = 2
		WHERE e.team_id = (SELECT id FROM teams WHERE url = 'seed-1') LIMIT 2000`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id, email string
		if err := rows.Scan(&id, &email); err != nil {
			b.Fatal(err)
		}
		ids, emails = append(ids, id), append(emails, email)
	}
	if rows.Err() != nil || len(ids) == 0 {
		b.Fatalf("no seeded envelope of team Seed 1 found (%v): run `sobre seed` first", rows.Err())
	}
	return ids, emails
}

func scaleGet(client *http.Client, u, key string) int {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", key)
	res, err := client.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// scalePlans sends each request of paths (by name) once more through an API whose connections
// log their plans and writes what the PostgreSQL log gained meanwhile to dir/<name>.txt.
func scalePlans(b *testing.B, dbURL, key, log, dir string, paths map[string]string) {
	srv, _ := scaleServer(b, dbURL, true)
	client := &http.Client{}
	scaleGet(client, srv.URL+"/api/v2/envelope?perPage=1", key) // opens the connections, logged nowhere below
	for _, name := range slices.Sorted(maps.Keys(paths)) {
		before, err := os.Stat(log)
		if err != nil {
			b.Fatal(err)
		}
		scaleGet(client, srv.URL+paths[name], key)
		time.Sleep(500 * time.Millisecond) // the log is written by another process
		f, err := os.Open(log)
		if err != nil {
			b.Fatal(err)
		}
		f.Seek(before.Size(), io.SeekStart)
		plans, _ := io.ReadAll(f)
		f.Close()
		if len(plans) == 0 {
			b.Fatalf("%s gained no plan for %s: is it the server's log, and auto_explain loaded?", log, name)
		}
		text := fmt.Sprintf("-- GET %s (one request; every statement it ran, as auto_explain logged it)\n\n%s",
			strings.Replace(paths[name], key, "", 1), plans)
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	fmt.Printf("    plans written to %s\n", dir)
}
