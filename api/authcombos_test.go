package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/sobre-sign/sobre/account"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/webauthntest"
)

// The "no traps" test: no accepted auth configuration can make a recipient unable to sign. Every
// accessAuth × actionAuth combination the SPEC allows is set on a recipient of an envelope made
// and sent through the API, and a browser (a cookie jar) passes each access method and proves one
// action method, on the real PostgreSQL, Temporal and mail sink, until the envelope completes.

// comboAccess are the access lists the SPEC allows.
var comboAccess = [][]string{{}, {"ACCOUNT"}, {"TWO_FACTOR_AUTH"}, {"ACCOUNT", "TWO_FACTOR_AUTH"}}

// comboMethods are the action methods; any subset of them is an action list.
var comboMethods = []string{"ACCOUNT", "PASSKEY", "TWO_FACTOR_AUTH", "PASSWORD", "CLAVE_UNICA", "FAO_HASH"}

// accountMethods are the action methods proved with a signer account.
var accountMethods = []string{"ACCOUNT", "PASSKEY", "TWO_FACTOR_AUTH", "PASSWORD"}

// authCombo is one configuration: the recipient's lists and the envelope's, and the action
// method the signer proves ("" when none is asked).
type authCombo struct {
	access, action             []string
	globalAccess, globalAction []string
	prove                      string
}

func (c authCombo) String() string {
	s := fmt.Sprintf("accessAuth=%v actionAuth=%v", c.access, c.action)
	if c.globalAccess != nil || c.globalAction != nil {
		s += fmt.Sprintf(" globalAccessAuth=%v globalActionAuth=%v", c.globalAccess, c.globalAction)
	}
	if c.prove != "" {
		s += " proving " + c.prove
	}
	return s
}

// effective is what applies to the recipient: its own lists, else the envelope's; EXPLICIT_NONE
// asks no action proof.
func (c authCombo) effective() (access, action []string) {
	access, action = c.access, c.action
	if len(access) == 0 {
		access = c.globalAccess
	}
	if len(action) == 0 {
		action = c.globalAction
	}
	if slices.Contains(action, "EXPLICIT_NONE") {
		action = nil
	}
	return access, action
}

// authCombos enumerates the configurations:
//
//   - each access list with each subset of the action methods (64, the empty one included) and
//     with EXPLICIT_NONE, on the recipient: 4 × 65;
//   - each access list with EXPLICIT_NONE among other methods, on the recipient: 4 × 2;
//   - each access list with the account methods, all and one by one, as the envelope's global
//     lists under empty recipient lists: 4 × 5;
//   - EXPLICIT_NONE on a recipient under each of those global action lists: 5.
//
// The method proved rotates, the least proved so far first, so that every method is proved
// many times.
func authCombos() []authCombo {
	var out []authCombo
	for n, access := range comboAccess {
		for mask := range 1 << len(comboMethods) {
			action := []string{}
			for i, m := range comboMethods {
				if mask&(1<<i) != 0 {
					action = append(action, m)
				}
			}
			out = append(out, authCombo{access: access, action: action})
		}
		out = append(out, authCombo{access: access, action: []string{"EXPLICIT_NONE"}})
		// EXPLICIT_NONE waives the methods listed with it too.
		out = append(out, authCombo{access: access, action: append([]string{"EXPLICIT_NONE"}, comboMethods...)},
			authCombo{access: access, action: []string{comboMethods[n], "EXPLICIT_NONE"}})
	}
	// The envelope-wide action list takes the account methods only (SPEC: globalActionAuth).
	globalActions := [][]string{accountMethods}
	for _, m := range accountMethods {
		globalActions = append(globalActions, []string{m})
	}
	for _, access := range comboAccess {
		for _, action := range globalActions {
			out = append(out, authCombo{access: []string{}, action: []string{}, globalAccess: access, globalAction: action})
		}
	}
	for i, action := range globalActions {
		out = append(out, authCombo{access: []string{}, action: []string{"EXPLICIT_NONE"}, globalAccess: comboAccess[i%len(comboAccess)], globalAction: action})
	}
	proved := map[string]int{}
	for i := range out {
		_, action := out[i].effective()
		for _, m := range action {
			if out[i].prove == "" || proved[m] < proved[out[i].prove] {
				out[i].prove = m
			}
		}
		if out[i].prove != "" {
			proved[out[i].prove]++
		}
	}
	return out
}

// comboParallel is how many configurations run at once.
const comboParallel = 8

// TestEveryAuthCombinationCompletes: no accepted auth configuration makes a recipient unable to
// sign. Under each configuration (authCombos) the signer passes every access method, is refused
// (401, the envelope still PENDING) when completing before proving the action, proves one of its
// methods, completes, and the envelope is COMPLETED with the recipient SIGNED and the method among
// the proofs of DOCUMENT_RECIPIENT_COMPLETED. Every failing configuration is reported, with the
// step it failed at.
//
// Under the race detector it is skipped: its ~300 envelopes, each normalised, sealed and hashed
// with argon2, take five minutes there against a little over one without, and they run no
// concurrency that the rest of the package does not. scripts/test.sh runs it apart, without the
// detector.
func TestEveryAuthCombinationCompletes(t *testing.T) {
	if raceDetector {
		t.Skip("runs without the race detector (scripts/test.sh runs it apart)")
	}
	h := newComboHarness(t, "")
	combos := authCombos()
	proved := map[string]int{}
	refusals := 0
	for _, c := range combos {
		proved[c.prove]++
		if c.refusalApplies() {
			refusals++
		}
	}
	var counts []string
	for _, m := range comboMethods {
		counts = append(counts, fmt.Sprintf("%s %d", m, proved[m]))
	}
	t.Logf("%d configurations; the action method proved: %s, none asked %d; completing before the proof refused in %d",
		len(combos), strings.Join(counts, ", "), proved[""], refusals)

	start := time.Now()
	failures := make([]error, len(combos))
	var wg sync.WaitGroup
	next := make(chan int)
	for range comboParallel {
		wg.Go(func() {
			for i := range next {
				failures[i] = h.complete(i, combos[i])
			}
		})
	}
	for i := range combos {
		next <- i
	}
	close(next)
	wg.Wait()

	completed := 0
	for i, err := range failures {
		if err != nil {
			t.Errorf("configuration %d (%s): %v", i, combos[i], err)
			continue
		}
		completed++
	}
	t.Logf("%d of %d configurations completed in %s", completed, len(combos), time.Since(start).Round(time.Millisecond))
}

// newComboHarness is an API with workflows, its owner's key and the mail sink, for configurations
// run under prefix; it skips t without a mail sink outside make test.
func newComboHarness(t *testing.T, prefix string) *comboHarness {
	sink := os.Getenv("SOBRE_TEST_MAILPIT_URL")
	if sink == "" {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatal("SOBRE_TEST_MAILPIT_URL is not set")
		}
		t.Skip("no mail sink: run `make test`")
	}
	a := newTestAPIWithWorkflows(t)
	base, err := url.Parse(a.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return &comboHarness{a: a, sink: sink, base: base, key: a.key("Acme", "owner@acme.cl", envelope.TeamRoleAdmin),
		run: fmt.Sprintf("%s%x", prefix, time.Now().UnixNano())}
}

// comboHarness is what every configuration's run shares: the API, its owner's key, the mail
// sink. Its methods run on many goroutines at once, so they return errors instead of failing the
// test.
type comboHarness struct {
	a    *testAPI
	key  string
	sink string
	base *url.URL
	run  string // makes this run's addresses unique in the mail sink
}

// step names what failed.
func step(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", name, err)
}

// comboSigner is one configuration's signer: a browser with its cookie jar, and the account it
// signs in to when one is needed.
type comboSigner struct {
	h          *comboHarness
	c          authCombo
	email      string
	client     *http.Client
	envelopeID string
	token      string
	password   string
	account    *comboAccount
}

// refusalApplies reports whether completing before the action proof must be refused: an action
// is asked and the browser, once past access, proves none of its methods yet (signed in for
// ACCOUNT access proves an ACCOUNT action).
func (c authCombo) refusalApplies() bool {
	access, action := c.effective()
	if len(action) == 0 {
		return false
	}
	return !(slices.Contains(access, "ACCOUNT") && slices.Contains(action, "ACCOUNT"))
}

// complete runs configuration c (number i) from creation to the completed envelope.
func (h *comboHarness) complete(i int, c authCombo) error {
	ctx := context.Background()
	jar, err := cookiejar.New(nil)
	if err != nil {
		return err
	}
	s := &comboSigner{h: h, c: c, email: fmt.Sprintf("combo-%s-%03d@sobre.test", h.run, i), password: "seven blue herons at dawn",
		client: &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if err := step("create and distribute", s.send()); err != nil {
		return err
	}
	access, action := c.effective()
	if len(access) > 0 {
		if status, body, err := s.call(http.MethodGet, "/api/v2/signing/"+s.token, nil); err != nil || status != http.StatusUnauthorized {
			return fmt.Errorf("the signing API before access: %d %s %v, want 401", status, body, err)
		}
	}
	if slices.Contains(access, "ACCOUNT") {
		if err := step("sign in for ACCOUNT access", s.signIn(ctx)); err != nil {
			return err
		}
	}
	if status, body, err := s.call(http.MethodGet, "/sign/"+s.token, nil); err != nil || status != http.StatusOK {
		return fmt.Errorf("open the signing page: %d %.300s %v", status, body, err)
	}
	if slices.Contains(access, "TWO_FACTOR_AUTH") {
		if err := step("access code", s.accessCode()); err != nil {
			return err
		}
	}
	fieldID, err := s.view(action)
	if err != nil {
		return step("signing view", err)
	}
	if status, body, err := s.call(http.MethodPost, "/api/v2/signing/"+s.token+"/fields", map[string]any{"fieldId": fieldID, "value": "Firmante"}); err != nil || status != http.StatusOK {
		return fmt.Errorf("fill the signature field: %d %s %v", status, body, err)
	}
	if c.refusalApplies() {
		status, body, err := s.call(http.MethodPost, "/api/v2/signing/"+s.token+"/complete", nil)
		if err != nil || status != http.StatusUnauthorized {
			return fmt.Errorf("complete before the action proof: %d %s %v, want 401", status, body, err)
		}
		if st, err := s.envelopeStatus(); err != nil || st != envelope.StatusPending {
			return fmt.Errorf("after a refused completion the envelope is %s (%v), want PENDING", st, err)
		}
	}
	if slices.Contains(accountMethods, c.prove) && s.account == nil {
		if err := step("sign in for "+c.prove, s.signIn(ctx)); err != nil {
			return err
		}
	}
	if err := step("prove "+c.prove, s.prove(ctx)); err != nil {
		return err
	}
	status, body, err := s.call(http.MethodPost, "/api/v2/signing/"+s.token+"/complete", nil)
	if err != nil || status != http.StatusOK {
		return fmt.Errorf("complete: %d %s %v", status, body, err)
	}
	return step("after completing", s.completed())
}

// send creates the envelope through the API, with one SIGNER under the configuration, and
// distributes it; the signing token comes from the answer.
func (s *comboSigner) send() error {
	rec := map[string]any{"email": s.email, "name": "Firmante", "role": "SIGNER", "accessAuth": s.c.access, "actionAuth": s.c.action,
		"fields": []any{map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": 10, "width": 20, "height": 5}}}
	payload := map[string]any{"title": "Combinación", "type": "DOCUMENT", "recipients": []any{rec}}
	if s.c.globalAccess != nil {
		payload["globalAccessAuth"] = s.c.globalAccess
	}
	if s.c.globalAction != nil {
		payload["globalActionAuth"] = s.c.globalAction
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if err := w.WriteField("payload", string(raw)); err != nil {
		return err
	}
	f, err := w.CreateFormFile("files[]", "a.pdf")
	if err != nil {
		return err
	}
	if _, err := f.Write(minimalPDF(s.email)); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	var created struct{ ID string }
	if err := s.h.owner(http.MethodPost, "/api/v2/envelope/create", w.FormDataContentType(), &b, &created); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	s.envelopeID = created.ID
	var sent struct{ Recipients []struct{ Token string } }
	body := strings.NewReader(fmt.Sprintf(`{"envelopeId":%q}`, created.ID))
	if err := s.h.owner(http.MethodPost, "/api/v2/envelope/distribute", "application/json", body, &sent); err != nil {
		return fmt.Errorf("distribute: %w", err)
	}
	if len(sent.Recipients) != 1 || sent.Recipients[0].Token == "" {
		return fmt.Errorf("distribute answered recipients %+v", sent.Recipients)
	}
	s.token = sent.Recipients[0].Token
	return nil
}

// view reads GET /api/v2/signing/{token}: the methods it offers are the configuration's, and it
// returns the id of the signature field.
func (s *comboSigner) view(action []string) (int64, error) {
	status, body, err := s.call(http.MethodGet, "/api/v2/signing/"+s.token, nil)
	if err != nil || status != http.StatusOK {
		return 0, fmt.Errorf("%d %s %v", status, body, err)
	}
	var v struct {
		Fields       []struct{ ID int64 }
		Verification struct {
			ActionMethods []string
			Unavailable   []string
		}
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return 0, err
	}
	if !slices.Equal(v.Verification.ActionMethods, action) && !(len(action) == 0 && len(v.Verification.ActionMethods) == 0) {
		return 0, fmt.Errorf("actionMethods %v, want %v", v.Verification.ActionMethods, action)
	}
	if len(v.Verification.Unavailable) > 0 {
		return 0, fmt.Errorf("methods unavailable: %v", v.Verification.Unavailable)
	}
	if len(v.Fields) != 1 {
		return 0, fmt.Errorf("fields %+v, want the one signature field", v.Fields)
	}
	return v.Fields[0].ID, nil
}

// accessCode asks for the mailed code on the signing page, reads it from the mail sink and
// types it.
func (s *comboSigner) accessCode() error {
	status, _, err := s.postForm("/sign/"+s.token+"/access-code", nil)
	if err != nil || status != http.StatusSeeOther {
		return fmt.Errorf("ask for the code: %d %v", status, err)
	}
	code, err := s.h.mailed(s.email, "access-code.", regexp.MustCompile(`\b(\d{6})\b`))
	if err != nil {
		return err
	}
	status, hdr, err := s.postForm("/sign/"+s.token+"/access-code/verify", url.Values{"code": {code}})
	if err != nil || status != http.StatusSeeOther || hdr.Get("Location") != "/sign/"+s.token {
		return fmt.Errorf("type the code: %d %q %v", status, hdr.Get("Location"), err)
	}
	return nil
}

// prove proves the configuration's action method in this browser.
func (s *comboSigner) prove(ctx context.Context) error {
	path := "/api/v2/signing/" + s.token
	switch s.c.prove {
	case "", "ACCOUNT":
		return nil // nothing asked, or being signed in is the proof
	case "PASSWORD":
		return s.verified(path+"/auth/password", map[string]any{"password": s.password}, "PASSWORD")
	case "TWO_FACTOR_AUTH":
		code, err := s.enrolTOTP(ctx)
		if err != nil {
			return err
		}
		return s.verified(path+"/auth/totp", map[string]any{"code": code}, "TWO_FACTOR_AUTH")
	case "PASSKEY":
		return s.provePasskey(ctx)
	case "CLAVE_UNICA":
		return s.claveUnica()
	case "FAO_HASH":
		status, body, err := s.call(http.MethodGet, path+"/fea", nil)
		var d struct{ Digest string }
		if err != nil || status != http.StatusOK || json.Unmarshal(body, &d) != nil || len(d.Digest) != 64 {
			return fmt.Errorf("digest: %d %s %v", status, body, err)
		}
		sig, err := s.h.a.fea.sign(d.Digest)
		if err != nil {
			return err
		}
		status, body, err = s.call(http.MethodPost, path+"/fea", map[string]any{"signature": sig})
		if err != nil || status != http.StatusOK || !bytes.Contains(body, []byte(`"verified":true`)) {
			return fmt.Errorf("signature: %d %s %v", status, body, err)
		}
		return nil
	}
	return fmt.Errorf("no way to prove %s", s.c.prove)
}

// verified posts an account proof and checks the answer names method.
func (s *comboSigner) verified(path string, body any, method string) error {
	status, raw, err := s.call(http.MethodPost, path, body)
	var out struct {
		Verified bool
		Method   string
	}
	if err != nil || status != http.StatusOK || json.Unmarshal(raw, &out) != nil || !out.Verified || out.Method != method {
		return fmt.Errorf("%s: %d %s %v", path, status, raw, err)
	}
	return nil
}

// claveUnica logs in with the local Clave Única provider as a browser does: the signing page
// sends it to the provider, the provider's form takes a RUN and sends it to the callback (on the
// configured public URL, here the test server).
func (s *comboSigner) claveUnica() error {
	status, hdr, err := s.get("/sign/" + s.token + "/claveunica")
	if err != nil || status != http.StatusFound {
		return fmt.Errorf("start: %d %v", status, err)
	}
	auth, err := url.Parse(hdr.Get("Location"))
	if err != nil {
		return err
	}
	form := auth.Query()
	form.Set("run", testFEARUT)
	res, err := s.client.PostForm(auth.Scheme+"://"+auth.Host+auth.Path, form)
	if err != nil {
		return err
	}
	res.Body.Close()
	cb, err := url.Parse(res.Header.Get("Location"))
	if err != nil || res.StatusCode != http.StatusFound || cb.Path != "/auth/claveunica/callback" {
		return fmt.Errorf("the provider's login: %s %q", res.Status, res.Header.Get("Location"))
	}
	status, _, err = s.get(cb.Path + "?" + cb.RawQuery)
	if err != nil || status != http.StatusFound {
		return fmt.Errorf("callback: %d %v", status, err)
	}
	return nil
}

// completed waits for the envelope to be COMPLETED with its recipient SIGNED, and checks that
// the completion's audit entry rests on the proved method.
func (s *comboSigner) completed() error {
	var e struct {
		Status     envelope.Status
		Recipients []struct{ SigningStatus envelope.SigningStatus }
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if err := s.h.owner(http.MethodGet, "/api/v2/envelope/"+s.envelopeID, "", nil, &e); err != nil {
			return err
		}
		if e.Status == envelope.StatusCompleted && len(e.Recipients) == 1 && e.Recipients[0].SigningStatus == envelope.SigningStatusSigned {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the envelope is %s, its recipient %+v, a minute after completing", e.Status, e.Recipients)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if s.c.prove == "" {
		return nil
	}
	var log struct {
		Data []struct {
			Type string
			Data struct{ Proofs []struct{ Method string } }
		}
	}
	if err := s.h.owner(http.MethodGet, "/api/v2/envelope/"+s.envelopeID+"/audit-log?perPage=100", "", nil, &log); err != nil {
		return err
	}
	for _, entry := range log.Data {
		if entry.Type != "DOCUMENT_RECIPIENT_COMPLETED" {
			continue
		}
		for _, p := range entry.Data.Proofs {
			if p.Method == s.c.prove {
				return nil
			}
		}
		return fmt.Errorf("DOCUMENT_RECIPIENT_COMPLETED lists proofs %+v, not %s", entry.Data.Proofs, s.c.prove)
	}
	return errors.New("no DOCUMENT_RECIPIENT_COMPLETED in the audit log")
}

// envelopeStatus is the envelope's status as its owner reads it.
func (s *comboSigner) envelopeStatus() (envelope.Status, error) {
	var e struct{ Status envelope.Status }
	err := s.h.owner(http.MethodGet, "/api/v2/envelope/"+s.envelopeID, "", nil, &e)
	return e.Status, err
}

// call sends a request from the signer's browser (JSON body when body is not nil) to the test
// server and returns the status and the body.
func (s *comboSigner) call(method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.h.a.srv.URL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := s.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res.StatusCode, raw, err
}

// get sends a GET from the signer's browser without following a redirect.
func (s *comboSigner) get(path string) (int, http.Header, error) {
	res, err := s.client.Get(s.h.a.srv.URL + path)
	if err != nil {
		return 0, nil, err
	}
	res.Body.Close()
	return res.StatusCode, res.Header, nil
}

// postForm posts a form from the signer's browser without following a redirect.
func (s *comboSigner) postForm(path string, form url.Values) (int, http.Header, error) {
	res, err := s.client.PostForm(s.h.a.srv.URL+path, form)
	if err != nil {
		return 0, nil, err
	}
	res.Body.Close()
	return res.StatusCode, res.Header, nil
}

// owner sends a request with the owner's API key and decodes a 200 answer into out.
func (h *comboHarness) owner(method, path, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequest(method, h.a.srv.URL+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", h.key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

// mailed waits for a mail to address whose Message-ID starts with idPrefix ("" for any) and
// whose text matches re, and returns re's first group in the newest such mail.
func (h *comboHarness) mailed(address, idPrefix string, re *regexp.Regexp) (string, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		var found struct {
			Messages []struct {
				ID        string
				MessageID string
			}
		}
		if err := getJSON(h.sink+"/api/v1/search?query="+url.QueryEscape("to:"+address), &found); err != nil {
			return "", err
		}
		for _, m := range found.Messages {
			if !strings.HasPrefix(m.MessageID, idPrefix) {
				continue
			}
			var msg struct{ Text string }
			if err := getJSON(h.sink+"/api/v1/message/"+m.ID, &msg); err != nil {
				return "", err
			}
			if got := re.FindStringSubmatch(msg.Text); got != nil {
				return got[1], nil
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no mail to %s (Message-ID %s…) matching %s in the sink: %d mails to it", address, idPrefix, re, len(found.Messages))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func getJSON(u string, out any) error {
	res, err := http.Get(u)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, res.Status)
	}
	return json.NewDecoder(res.Body).Decode(out)
}

// comboAccount is the signer account a configuration's browser is signed in to, with its
// session.
type comboAccount struct {
	account.Account
	session account.Session
}

// comboClient is who the account steps say is asking.
var comboClient = account.Client{IP: "203.0.113.7", UserAgent: "authcombos"}

// signIn creates the account of the recipient's email as its holder would: signs up, opens the
// verification link mailed to the sink and types the password there, which signs the browser in;
// the session cookie goes into the browser's jar for the test server.
func (s *comboSigner) signIn(ctx context.Context) error {
	accounts := s.h.a.server.ceremony.Accounts
	if err := accounts.SignUp(ctx, s.email, s.password, envelope.LanguageEnglish, "/sign/"+s.token, comboClient); err != nil {
		return fmt.Errorf("sign up: %w", err)
	}
	token, err := s.h.mailed(s.email, "account-verify.", regexp.MustCompile(`/account/verify/([A-Za-z0-9_-]+)`))
	if err != nil {
		return err
	}
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, s.h.a.srv.URL+"/account/verify/"+token, nil)
	a, sess, next, err := accounts.VerifyEmail(ctx, w, r, token, s.password, comboClient)
	if err != nil || next != "/sign/"+s.token || !a.EmailVerified {
		return fmt.Errorf("verify the email: %+v, next %q, %v", a, next, err)
	}
	cookies := w.Result().Cookies()
	if len(cookies) != 1 {
		return fmt.Errorf("cookies after verifying %v, want the session's", cookies)
	}
	s.client.Jar.SetCookies(s.h.base, cookies)
	s.account = &comboAccount{Account: a, session: sess}
	return nil
}

// enrolTOTP turns on an authenticator app for the account, confirmed with a code of this step,
// and returns a code of the next step (within the step either side that is accepted): the step
// taken by the enrolment is accepted only once.
func (s *comboSigner) enrolTOTP(ctx context.Context) (string, error) {
	accounts := s.h.a.server.ceremony.Accounts
	enrolment, err := accounts.BeginTOTP(ctx, s.account.Account, s.account.session)
	if err != nil {
		return "", fmt.Errorf("begin: %w", err)
	}
	now := time.Now()
	code, err := totp.GenerateCode(enrolment.Secret, now)
	if err != nil {
		return "", err
	}
	if _, err := accounts.EnableTOTP(ctx, s.account.Account, s.account.session, code, comboClient); err != nil {
		return "", fmt.Errorf("enable: %w", err)
	}
	return totp.GenerateCode(enrolment.Secret, now.Add(30*time.Second))
}

// provePasskey registers a passkey of a software authenticator on the account (at the public
// URL's origin, the relying party's), then answers the signing page's assertion options with it.
func (s *comboSigner) provePasskey(ctx context.Context) error {
	accounts := s.h.a.server.ceremony.Accounts
	authenticator := webauthntest.New(s.h.a.server.cfg.PublicURL)
	options, err := accounts.BeginPasskeyRegistration(ctx, s.account.Account, s.account.session)
	if err != nil {
		return fmt.Errorf("begin registration: %w", err)
	}
	created, err := authenticator.Create(options, webauthntest.Tweaks{})
	if err != nil {
		return err
	}
	if _, err := accounts.FinishPasskeyRegistration(ctx, s.account.Account, s.account.session, "laptop", created, comboClient); err != nil {
		return fmt.Errorf("finish registration: %w", err)
	}
	path := "/api/v2/signing/" + s.token + "/auth/passkey"
	status, options, err := s.call(http.MethodPost, path+"/options", nil)
	if err != nil || status != http.StatusOK {
		return fmt.Errorf("assertion options: %d %s %v", status, options, err)
	}
	assertion, err := authenticator.Get(options, webauthntest.Tweaks{})
	if err != nil {
		return err
	}
	return s.verified(path, map[string]any{"credential": json.RawMessage(assertion)}, "PASSKEY")
}
