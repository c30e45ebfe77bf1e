package faulttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/testpdf"
)

// The fault tests share one shape: a batch of envelopes, each with two signers, is created and
// distributed; its signers sign concurrently (signers at a time) while the fault happens; then
// every envelope must be COMPLETED with each signature recorded once, every audit chain must
// verify, no mail may arrive twice, and no answer the signers saw may be a 5xx without Documenso's
// {message, code} body (an HTML page may be a 5xx, never a 500).

// signers is how many signers sign at once.
const signers = 10

// batchLanes lets two fault tests run their batches at once, beside the crash tests: more would
// load the shared Temporal server past the API's call deadline.
var batchLanes = make(chan struct{}, 2)

// faultTest marks t as a fault test: it runs beside the crash tests, in one of batchLanes.
func faultTest(t *testing.T) {
	t.Parallel()
	batchLanes <- struct{}{}
	t.Cleanup(func() { <-batchLanes })
}

// faultBatch is how many envelopes each fault test signs: SOBRE_FAULT_BATCH, 12 unless set
// (`make faults` sets 200).
func faultBatch(t *testing.T) int {
	v := os.Getenv("SOBRE_FAULT_BATCH")
	if v == "" {
		return 12
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 4 {
		t.Fatalf("SOBRE_FAULT_BATCH=%q: want a whole number from 4", v)
	}
	return n
}

// envDuration reads the duration in the environment variable name, def when unset.
func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a duration like 30s", name, v)
	}
	return d
}

// faultOutage is how long a service stays down in the outage tests: SOBRE_FAULT_OUTAGE, 10s
// unless set (`make faults` sets 60s).
func faultOutage(t *testing.T) time.Duration {
	return envDuration(t, "SOBRE_FAULT_OUTAGE", 10*time.Second)
}

// batch is a fault test's envelopes and what their signers saw.
type batch struct {
	s      *system
	ids    []string
	tokens [][]string
	// apis are the API addresses the signers use; each signer starts on one and moves to the
	// next when its connection is refused, as a client behind a load balancer would.
	apis []string
	// login, when set, runs before a signer's first signing call (a Clave Única login) as the
	// nth recipient of its envelope; it reports whether the signer is logged in.
	login func(c *signerClient, token string, nth int) bool
	// patience is how long a signer keeps trying.
	patience time.Duration
	// signerAddresses are the batch's signers' mail addresses.
	signerAddresses map[string]bool
	// relayMayDrop: the fault stops the mail relay, which may go while it reads a message's last
	// line. Such a mail may or may not have been delivered: it is taken as sent, unconfirmed, and
	// never sent twice. A completion mail so recorded counts for one the sink does not hold.
	relayMayDrop bool

	signed  atomic.Int64
	wg      sync.WaitGroup
	answers answers
	// began, created, faultAt and faultEnded time the batch: its creation began and ended, the
	// fault began and ended.
	began, created, faultAt, faultEnded time.Time
}

// newBatch creates n envelopes of two signers with payload (twoSigners unless nil), distributes
// them and returns the batch.
func newBatch(s *system, n int, payload func(i int) map[string]any) *batch {
	s.t.Helper()
	if payload == nil {
		payload = s.twoSigners
	}
	b := &batch{s: s, apis: []string{s.apiAddr}, patience: 5 * time.Minute, signerAddresses: map[string]bool{}, began: time.Now(),
		ids: make([]string, n), tokens: make([][]string, n)}
	doc := testpdf.Minimal("Contrato")
	payloads := make([]map[string]any, n)
	for i := range n {
		payloads[i] = payload(i)
		for _, r := range payloads[i]["recipients"].([]any) {
			b.signerAddresses[r.(map[string]any)["email"].(string)] = true
		}
	}
	errs := make([]error, n)
	forEach(n, func(i int) {
		b.ids[i], errs[i] = s.tryCreate(payloads[i], doc)
		if errs[i] != nil {
			return
		}
		// A distribute answered 503 (Temporal busy) is sent again, as a client does: a second
		// distribute is harmless.
		for attempt := 0; ; attempt++ {
			res, raw, err := s.send("POST", "http://"+s.apiAddr+"/api/v2/envelope/distribute", map[string]any{"envelopeId": b.ids[i]}, true)
			var out map[string]any
			switch {
			case err == nil && res.StatusCode == 200 && json.Unmarshal(raw, &out) == nil:
				b.tokens[i] = recipientTokens(out)
				return
			case err == nil && res.StatusCode == http.StatusServiceUnavailable && attempt < 20:
				time.Sleep(time.Second)
			default:
				errs[i] = fmt.Errorf("distribute %d: %v %v %s", i, res, err, raw)
				return
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		s.t.Fatal(err)
	}
	b.created = time.Now()
	return b
}

// forEach runs f(0) … f(n-1), four at a time.
func forEach(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// startAPIAndWorker starts one API and one worker and makes the admin key.
func (s *system) startAPIAndWorker() {
	s.t.Helper()
	s.start("api")
	s.start("worker")
	s.key = s.adminKey()
}

// twoSigners is the payload of envelope i: two signers, one signature field each.
func (s *system) twoSigners(i int) map[string]any {
	return map[string]any{"title": fmt.Sprintf("Lote %d", i), "type": "DOCUMENT", "recipients": []any{
		map[string]any{"email": fmt.Sprintf("x%d@%s", i, s.domain), "name": "X", "role": "SIGNER",
			"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 10, "height": 5}}},
		map[string]any{"email": fmt.Sprintf("y%d@%s", i, s.domain), "name": "Y", "role": "SIGNER",
			"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 30, "width": 10, "height": 5}}},
	}}
}

// recipients is how many signatures the batch holds.
func (b *batch) recipients() int {
	n := 0
	for _, t := range b.tokens {
		n += len(t)
	}
	return n
}

// run signs the batch, calling fault once a quarter of the signatures are in; it returns when
// every signer is done and fault has returned.
func (b *batch) run(fault func()) {
	b.s.t.Helper()
	b.start()
	b.waitSigned(b.recipients() / 4)
	b.outage(true)
	fault()
	b.outage(false)
	b.wait()
}

// outage marks the fault's beginning (on) or its end: the answers in between are tallied apart.
func (b *batch) outage(on bool) {
	if on {
		b.faultAt = time.Now()
	} else {
		b.faultEnded = time.Now()
	}
	b.answers.outage(on)
}

// start sets the signers going: each envelope's signers sign one after the other.
func (b *batch) start() {
	work := make(chan int)
	for k := range signers {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			c := b.client(k)
			for i := range work {
				for nth, tok := range b.tokens[i] {
					b.sign(c, tok, nth)
				}
			}
		}()
	}
	go func() {
		for i := range b.ids {
			work <- i
		}
		close(work)
	}()
}

// waitSigned waits until n signatures are in (or the signers are done).
func (b *batch) waitSigned(n int) {
	b.s.t.Helper()
	waitFor(b.s.t, fmt.Sprintf("%d signatures", n), b.patience, func() bool { return b.signed.Load() >= int64(n) })
}

// wait waits for every signer.
func (b *batch) wait() { b.wg.Wait() }

// signerClient is one signer's browser: its cookies, the API it talks to and how long the API
// asked it to wait (Retry-After) before trying again.
type signerClient struct {
	http  *http.Client
	api   int
	pause time.Duration
}

// maxPause caps the Retry-After a signer honours.
const maxPause = 5 * time.Second

// retryAfter is the wait an answer's Retry-After asks for (in seconds); ok is false when it has
// none.
func retryAfter(h http.Header) (pause time.Duration, ok bool) {
	n, err := strconv.Atoi(h.Get("Retry-After"))
	if err != nil {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// rest waits before the signer's next attempt: what the API asked for, or a moment.
func (c *signerClient) rest() {
	time.Sleep(max(c.pause, 200*time.Millisecond))
	c.pause = 0
}

func (b *batch) client(k int) *signerClient {
	jar, _ := cookiejar.New(nil)
	return &signerClient{api: k % len(b.apis), http: &http.Client{Timeout: 60 * time.Second, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// sign signs as the recipient of token, retrying until the answer is definite: success, or
// "already signed" from an attempt whose answer was lost; between attempts it honours
// Retry-After, as a client should. It reports a signer that gives up.
func (b *batch) sign(c *signerClient, token string, nth int) {
	deadline := time.Now().Add(b.patience)
	loggedIn := b.login == nil
	for ; time.Now().Before(deadline); c.rest() {
		if !loggedIn {
			if loggedIn = b.login(c, token, nth); !loggedIn {
				continue
			}
		}
		status, view := b.do(c, "GET", "/api/v2/signing/"+token, nil)
		if status != 200 {
			continue
		}
		fields, _ := view["fields"].([]any)
		for _, f := range fields {
			if fm, _ := f.(map[string]any); fm["inserted"] != true {
				b.do(c, "POST", "/api/v2/signing/"+token+"/fields", map[string]any{"fieldId": fm["id"], "value": "Firma"})
			}
		}
		status, out := b.do(c, "POST", "/api/v2/signing/"+token+"/complete", map[string]any{})
		if status == 200 || out["code"] == "RECIPIENT_ALREADY_SIGNED" || out["code"] == "ENVELOPE_COMPLETED" {
			b.signed.Add(1)
			return
		}
	}
	b.s.t.Errorf("recipient %s… never signed within %s", token[:6], b.patience)
}

// do sends one request to the signer's API, records the answer and decodes it as JSON.
func (b *batch) do(c *signerClient, method, path string, body any) (int, map[string]any) {
	status, _, raw := b.exchange(c, method, path, body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	if out == nil {
		out = map[string]any{}
	}
	return status, out
}

// exchange sends one request to the signer's API and records the answer; a connection error
// moves the signer to the next API and answers status 0.
func (b *batch) exchange(c *signerClient, method, path string, body any) (int, http.Header, []byte) {
	res, raw, err := c.send(method, "http://"+b.apis[c.api]+path, body)
	if err != nil {
		b.answers.record(method, path, 0, "", nil, err)
		c.api = (c.api + 1) % len(b.apis)
		return 0, nil, nil
	}
	b.answers.record(method, path, res.StatusCode, res.Header.Get("Content-Type"), raw, nil)
	if pause, ok := retryAfter(res.Header); ok {
		c.pause = min(pause, maxPause)
	}
	return res.StatusCode, res.Header, raw
}

// send sends a request, with body as JSON when not nil, and reads the answer.
func (c *signerClient) send(method, url string, body any) (*http.Response, []byte, error) {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(raw))
	if err != nil {
		return nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

// answers tallies what the signers saw, during the outage and overall, and keeps the answers
// that were not clear errors.
type answers struct {
	mu      sync.Mutex
	during  bool
	all     map[string]int
	outages map[string]int
	unclear []string
	samples map[string]string // the first answer filed under each key that is not a success
}

func (a *answers) outage(on bool) {
	a.mu.Lock()
	a.during = on
	a.mu.Unlock()
}

// record files one answer under "STATUS CODE" ("refused" for a connection error). An answer is
// unclear when it is a 5xx without a JSON {message, code}, or an HTML page with status 500.
func (a *answers) record(method, path string, status int, contentType string, raw []byte, err error) {
	key, unclear := "", ""
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		key = "connection refused"
	case err != nil:
		key = "connection lost"
	case strings.HasPrefix(contentType, "application/json"):
		var body struct{ Message, Code string }
		_ = json.Unmarshal(raw, &body)
		key = strings.TrimSpace(fmt.Sprintf("%d %s", status, body.Code))
		if status >= 500 && (body.Code == "" || body.Message == "") {
			unclear = fmt.Sprintf("%s %s: %d %s", method, path, status, clip(raw))
		}
	default:
		key = fmt.Sprintf("%d %s", status, strings.SplitN(contentType, ";", 2)[0])
		if status == 500 || (status >= 500 && !strings.HasPrefix(contentType, "text/html")) {
			unclear = fmt.Sprintf("%s %s: %d %s %s", method, path, status, contentType, clip(raw))
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.all == nil {
		a.all, a.outages, a.samples = map[string]int{}, map[string]int{}, map[string]string{}
	}
	if _, ok := a.samples[key]; !ok && (status == 0 || status >= 400) {
		a.samples[key] = fmt.Sprintf("%s %s: %s", method, path, clip(raw))
		if err != nil {
			a.samples[key] += err.Error()
		}
	}
	a.all[key]++
	if a.during {
		a.outages[key]++
	}
	if unclear != "" {
		a.unclear = append(a.unclear, unclear)
	}
}

// clip shortens an answer's body for a message: an HTML page to its text.
func clip(raw []byte) string {
	text := string(raw)
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("<")) {
		text = strings.Join(strings.Fields(htmlTags.ReplaceAllString(htmlHead.ReplaceAllString(text, " "), " ")), " ")
	}
	if len(text) > 240 {
		text = text[:240]
	}
	return text
}

var (
	htmlHead = regexp.MustCompile(`(?s)<head>.*</head>|<header.*?</header>`)
	htmlTags = regexp.MustCompile(`<[^>]*>`)
)

// tally prints counts as "200: 12, 503 SERVICE_UNAVAILABLE: 3".
func tally(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}

// check waits up to within for every envelope to be COMPLETED, then asserts the batch's end
// state: each signature recorded once, one completion each, every audit chain verifies, every
// signer one completion mail, no mail twice, and every answer the signers saw clear.
func (b *batch) check(within time.Duration) {
	t, s := b.s.t, b.s
	t.Helper()
	deadline := time.Now().Add(within)
	for _, id := range b.ids {
		for s.status(id) != "COMPLETED" {
			if time.Now().After(deadline) {
				t.Fatalf("%s is %s %s after the fault", id, s.status(id), within)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	completed := time.Since(b.faultEnded)
	forEach(len(b.ids), func(i int) {
		id := b.ids[i]
		types := s.auditTypes(id)
		if types["DOCUMENT_RECIPIENT_COMPLETED"] != 2 || types["DOCUMENT_COMPLETED"] != 1 {
			t.Errorf("%s: %d DOCUMENT_RECIPIENT_COMPLETED and %d DOCUMENT_COMPLETED entries, want 2 and 1",
				id, types["DOCUMENT_RECIPIENT_COMPLETED"], types["DOCUMENT_COMPLETED"])
		}
		if out, err := s.command("audit", "verify", id).CombinedOutput(); err != nil {
			t.Errorf("audit chain of %s: %v %s", id, err, out)
		}
	})
	var mails []sunkMail
	completions := func() int {
		mails = s.sunk()
		n := 0
		for _, m := range mails {
			if m.completion() && b.signerAddresses[m.to()] {
				n++
			}
		}
		return n
	}
	verified := time.Since(b.faultEnded)
	signers := slices.Collect(maps.Keys(b.signerAddresses))
	// unconfirmed counts those the sink does not hold (mails, as completions last read them).
	unconfirmed := func() int {
		if !b.relayMayDrop {
			return 0
		}
		held := map[string]bool{}
		for _, m := range mails {
			held[strings.Trim(m.MessageID, "<>")] = true
		}
		n := 0
		for _, id := range s.unconfirmedMails(envelope.MailDocumentCompleted, signers) {
			if !held[id] {
				n++
			}
		}
		return n
	}
	waitFor(t, "every signer's completion mail", time.Until(deadline)+time.Minute, func() bool { return completions()+unconfirmed() >= b.recipients() })
	mailed := time.Since(b.faultEnded)
	time.Sleep(time.Second)
	completions()
	byID, byKind := map[string]int{}, map[string]int{}
	for _, m := range mails {
		byID[m.MessageID]++
		byKind[m.to()+" "+m.Subject]++
	}
	for id, n := range byID {
		if n > 1 {
			t.Errorf("mail %s delivered %d times", id, n)
		}
	}
	for kind, n := range byKind {
		if n > 1 {
			t.Errorf("%d mails to %s", n, kind)
		}
	}
	if n, u := completions(), unconfirmed(); n+u != b.recipients() || u > len(b.ids)/10 {
		t.Errorf("%d completion mails to signers and %d taken as sent unconfirmed, want %d in all, at most %d unconfirmed:\n%s",
			n, u, b.recipients(), len(b.ids)/10, s.mailLog(signers))
	} else if u > 0 {
		t.Logf("%d completion mails taken as sent unconfirmed: the relay went while it read their last line", u)
	}
	b.answers.mu.Lock()
	defer b.answers.mu.Unlock()
	for _, u := range b.answers.unclear {
		t.Errorf("a signer saw an unclear error: %s", u)
	}
	t.Logf("%d envelopes COMPLETED, %d mails, none twice; created in %.1fs, fault %.1fs after, for %.1fs; "+
		"after its end, all COMPLETED in %.1fs, audit checked in %.1fs, completion mails in %.1fs",
		len(b.ids), len(mails), b.created.Sub(b.began).Seconds(), b.faultAt.Sub(b.created).Seconds(),
		b.faultEnded.Sub(b.faultAt).Seconds(), completed.Seconds(), verified.Seconds(), mailed.Seconds())
	t.Logf("signers saw during the fault: %s; in all: %s", tally(b.answers.outages), tally(b.answers.all))
	for key, sample := range b.answers.samples {
		t.Logf("%s, first seen: %s", key, sample)
	}
}

// auditTypes counts an envelope's audit entries by type.
func (s *system) auditTypes(id string) map[string]int {
	_, page := s.call("GET", "/api/v2/envelope/"+id+"/audit-log?perPage=100", nil, true)
	out := map[string]int{}
	data, _ := page["data"].([]any)
	for _, e := range data {
		typ, _ := e.(map[string]any)["type"].(string)
		out[typ]++
	}
	return out
}

// sunkMail is a message in the mail sink.
type sunkMail struct {
	MessageID   string
	Subject     string
	Attachments int
	To          []struct{ Address string }
}

func (m sunkMail) to() string {
	if len(m.To) == 0 {
		return ""
	}
	return m.To[0].Address
}

// completion tells a completion mail: it carries the sealed PDF.
func (m sunkMail) completion() bool {
	return strings.HasPrefix(m.Subject, "Completed") && m.Attachments == 1
}

// sunk lists the messages the sink holds for this system's addresses.
func (s *system) sunk() []sunkMail {
	s.t.Helper()
	var all []sunkMail
	for start := 0; ; start += 1000 {
		res, err := http.Get(fmt.Sprintf("%s/api/v1/search?limit=1000&start=%d&query=%s", s.mailpit, start, url.QueryEscape(s.domain)))
		if err != nil {
			s.t.Fatal(err)
		}
		var body struct{ Messages []sunkMail }
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil {
			s.t.Fatal(err)
		}
		all = append(all, body.Messages...)
		if len(body.Messages) < 1000 {
			return all
		}
	}
}

// unconfirmedMails lists the mails of kind to addresses that the mail log takes as sent
// unconfirmed: an attempt was handing them to the relay when it ended (activities SendNotice).
func (s *system) unconfirmedMails(kind envelope.Mail, addresses []string) []string {
	s.t.Helper()
	rows, err := s.db().Query(context.Background(), `SELECT message_id FROM mail_log
		WHERE kind = $1 AND recipient = ANY ($2) AND state = 'sent' AND answer LIKE 'unconfirmed%'`, string(kind), addresses)
	if err != nil {
		s.t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		s.t.Fatal(err)
	}
	return ids
}
