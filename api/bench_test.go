package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
)

// The draft API's speed with 10,000 envelopes in the database, next to a plain SELECT 1 round
// trip measured in the same run. Run with `make bench`.

const seedEnvelopes = 10000

// seed copies one real envelope (made through the API) until the team has n envelopes, in SQL.
func seed(b *testing.B, a *testAPI, key string, n int) string {
	b.Helper()
	status, body := a.createRaw(key, basePayload(), map[string][]byte{"a.pdf": minimalPDF("seed")})
	if status != 200 {
		b.Fatalf("create: %d %v", status, body)
	}
	id := body["id"].(string)
	conn, err := pgx.Connect(context.Background(), a.dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(context.Background(), `
		WITH src AS (SELECT * FROM envelopes WHERE id = $1),
		ins AS (
			INSERT INTO envelopes (id, secondary_id, legacy_id, type, status, source, visibility, template_type, external_id,
				title, user_id, team_id, document_meta, created_at)
			SELECT 'envelope_seed' || g, 'document_' || (1000000 + g), 1000000 + g, type, status, source, visibility, template_type,
				'ext-' || g, 'Contrato ' || g || CASE WHEN g % 100 = 0 THEN ' arriendo' ELSE '' END, user_id, team_id, document_meta,
				now() - g * interval '1 second'
			FROM src, generate_series(1, $2) g RETURNING id)
		INSERT INTO recipients (envelope_id, email, name, role, token_hash)
		SELECT ins.id, 'firmante' || r || '.' || ins.id || '@example.com', 'Firmante ' || r, 'SIGNER', sha256(convert_to(ins.id || '/' || r, 'UTF8'))
		FROM ins, generate_series(1, 2) r`, id, n-1)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	return id
}

// timings collects latencies and reports throughput, p50, p99 and the ratio to SELECT 1.
type timings struct {
	mu   sync.Mutex
	list []time.Duration
}

func (t *timings) add(d time.Duration) { t.mu.Lock(); t.list = append(t.list, d); t.mu.Unlock() }

func (t *timings) quantile(q float64) time.Duration {
	sort.Slice(t.list, func(i, j int) bool { return t.list[i] < t.list[j] })
	if len(t.list) == 0 {
		return 0
	}
	return t.list[min(len(t.list)-1, int(q*float64(len(t.list))))]
}

func (t *timings) report(b *testing.B, base time.Duration) {
	p50, p99 := t.quantile(0.5), t.quantile(0.99)
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	if base > 0 {
		b.ReportMetric(float64(p50)/float64(base), "p50/select1")
	}
}

func selectOneP50(b *testing.B, url string) time.Duration {
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	var t timings
	for range 2000 {
		start := time.Now()
		var one int
		if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
			b.Fatal(err)
		}
		t.add(time.Since(start))
	}
	return t.quantile(0.5)
}

func BenchmarkDraftAPI(b *testing.B) {
	a := newTestAPIWith(b, func(d *Deps) { d.Config = unlimited(d.Config) })
	key := a.key("Bench", "bench@example.com", envelope.TeamRoleAdmin)
	start := time.Now()
	id := seed(b, a, key, seedEnvelopes)
	b.Logf("seeded %d envelopes in %s", seedEnvelopes, time.Since(start).Round(time.Millisecond))
	base := selectOneP50(b, a.dbURL)
	b.Logf("SELECT 1 round trip p50: %s", base)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	get := func(path string) {
		req, _ := http.NewRequest("GET", a.srv.URL+path, nil)
		req.Header.Set("Authorization", key)
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("GET %s: %d", path, res.StatusCode)
		}
	}
	run := func(name string, op func(i int)) {
		b.Run(name, func(b *testing.B) {
			var t timings
			var n int64
			var mu sync.Mutex
			b.SetParallelism(2)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					mu.Lock()
					n++
					i := int(n)
					mu.Unlock()
					s := time.Now()
					op(i)
					t.add(time.Since(s))
				}
			})
			t.report(b, base)
		})
	}
	run("select1", func(int) {
		if err := a.store.Ping(context.Background()); err != nil {
			b.Fatal(err)
		}
	})
	pdfBytes := minimalPDF("bench")
	run("create", func(int) {
		if status, body := a.createRaw(key, basePayload(), map[string][]byte{"a.pdf": pdfBytes}); status != 200 {
			b.Fatalf("create: %d %v", status, body)
		}
	})
	run("get", func(int) { get("/api/v2/envelope/" + id) })
	run("search-page", func(i int) { get(fmt.Sprintf("/api/v2/envelope?page=%d&perPage=10", 1+i%50)) })
	run("search-query", func(i int) { get("/api/v2/envelope?query=arriendo&perPage=10") })
	run("search-recipient", func(i int) {
		get(fmt.Sprintf("/api/v2/envelope?query=firmante1.envelope_seed%d@", 1+i%seedEnvelopes))
	})
}
