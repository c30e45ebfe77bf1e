package faulttest

import (
	"bytes"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/digitorus/pdfsign/verify"

	"github.com/sobre-sign/sobre/internal/tsatest"
)

// tsaServer is an RFC 3161 timestamp authority (internal/tsatest) on a loopback port that the
// test can stop and start again on the same port.
type tsaServer struct {
	t    *testing.T
	addr string
	tsa  *tsatest.Authority
	srv  *http.Server
}

func newTSAServer(t *testing.T) *tsaServer {
	tsa, err := tsatest.New()
	if err != nil {
		t.Fatal(err)
	}
	a := &tsaServer{t: t, addr: freeAddr(t), tsa: tsa}
	a.start()
	t.Cleanup(a.stop)
	return a
}

func (a *tsaServer) url() string { return "http://" + a.addr + "/tsa" }

// start listens on the server's port again (waiting, briefly, for the port to be free).
func (a *tsaServer) start() {
	a.t.Helper()
	var ln net.Listener
	waitFor(a.t, "the TSA's port", 10*time.Second, func() bool {
		var err error
		ln, err = net.Listen("tcp", a.addr)
		return err == nil
	})
	a.srv = &http.Server{Handler: a.tsa, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = a.srv.Serve(ln) }()
}

// stop closes the listener and every connection: the authority cannot be reached.
func (a *tsaServer) stop() {
	if a.srv != nil {
		_ = a.srv.Close()
		a.srv = nil
	}
}

// (f) The timestamp authority cannot be reached for faultOutage mid batch, then is back. With a
// timestamp required (SOBRE_TSA_REQUIRED, the default) and the outage shorter than
// SOBRE_TSA_RETRY_FOR, the rule (config/vars.go) is that the seal retries: the envelopes sealed
// during the outage stay PENDING, then complete with a timestamped seal, none without one.
func TestTSADownMidBatch(t *testing.T) {
	faultTest(t)
	tsa := newTSAServer(t)
	s := newSystemAt(t, ownMail(t, services{}), "SOBRE_TSA_URL="+tsa.url(), "SOBRE_TSA_REQUIRED=true")
	s.startAPIAndWorker()
	b := newBatch(s, faultBatch(t), nil)
	outage := faultOutage(t)
	b.run(func() {
		tsa.stop()
		time.Sleep(outage)
		tsa.start()
	})
	// The seal's attempts back off from 5 seconds, doubling (workflows/seal.go).
	b.check(outage + 3*time.Minute)
	metrics := s.metrics("worker")
	if !strings.Contains(metrics, `sobre_seal_tsa_unavailable_total{outcome="retried"}`) ||
		strings.Contains(metrics, `sobre_seal_tsa_unavailable_total{outcome="unstamped"} 1`) {
		t.Errorf("no seal met the TSA away, or one was sealed without a timestamp:\n%s", grepLines(metrics, "sobre_seal_tsa"))
	}
	t.Logf("the worker's count of seal attempts that met the TSA away:\n%s", grepLines(metrics, "sobre_seal_tsa_unavailable_total{"))
	for _, id := range b.ids {
		sealed := s.sealedPDF(id)
		v, err := verify.Verify(bytes.NewReader(sealed), int64(len(sealed)))
		if err != nil || len(v.Signers) != 1 {
			t.Errorf("%s: the sealed PDF does not verify: %v", id, err)
			continue
		}
		if sg := v.Signers[0]; !sg.ValidSignature || sg.TimestampStatus != "valid" {
			t.Errorf("%s: seal valid %v, timestamp %q; want a valid timestamp", id, sg.ValidSignature, sg.TimestampStatus)
		}
	}
}

// sealedPDF downloads the sealed PDF of an envelope's first item.
func (s *system) sealedPDF(id string) []byte {
	s.t.Helper()
	// A failure here fails the test rather than panicking: a panic ends the test binary before
	// the other tests' clean-ups, and leaves their servers running.
	status, env := s.call("GET", "/api/v2/envelope/"+id, nil, true)
	var item string
	if items, _ := env["envelopeItems"].([]any); len(items) > 0 {
		first, _ := items[0].(map[string]any)
		item, _ = first["id"].(string)
	}
	if status != 200 || item == "" {
		s.t.Fatalf("GET envelope %s: %d %v", id, status, env)
	}
	res, raw, err := s.send("GET", "http://"+s.apiAddr+"/api/v2/envelope/item/"+item+"/download?version=signed", nil, true)
	if err != nil || res.StatusCode != 200 {
		s.t.Fatalf("signed download of %s: %v %v", id, res, err)
	}
	return raw
}

// metrics reads a process's Prometheus metrics on its operations listener.
func (s *system) metrics(name string) string {
	s.t.Helper()
	res, raw, err := s.send("GET", "http://"+s.ops[name]+"/metrics", nil, false)
	if err != nil || res.StatusCode != 200 {
		s.t.Fatalf("metrics of %s: %v %v", name, res, err)
	}
	return string(raw)
}

// grepLines keeps the lines of text that contain substr.
func grepLines(text, substr string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
