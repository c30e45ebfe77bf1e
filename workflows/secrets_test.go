package workflows_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/internal/payloadcodec"
	"github.com/sobre-sign/sobre/internal/temporaltest"
	"github.com/sobre-sign/sobre/internal/testpdf"
	"github.com/sobre-sign/sobre/persistence"
	"github.com/sobre-sign/sobre/workflows"
)

// person is someone whose name and address must not be readable in Temporal.
type person struct{ name, email string }

var (
	owner  = person{"Benedicta Irarrázaval Owner", "benedicta.irarrazaval@propietaria-sobre.test"}
	signer = []person{
		{"Anacleta Montt Aprobadora", "anacleta.montt@aprobadora-sobre.test"},
		{"Bartolomé Undurraga Firmante", "bartolome.undurraga@firmante-sobre.test"},
		{"Casimira Echaurren Firmante", "casimira.echaurren@firmante-sobre.test"},
	}
)

const (
	signerIP        = "203.0.113.177"
	signerUserAgent = "Mozilla/5.0 (SobreSecretsTest) Gecko/20100101"
	rejectReason    = "No acepto la cláusula séptima del contrato de arriendo"
	cancelReason    = "El arriendo se firmó en papel ante notario"
)

// draftFor writes an envelope of owner's: an approver, then two signers.
func (s *stack) draftFor(t *testing.T) (string, []envelope.Recipient) {
	t.Helper()
	ctx := context.Background()
	m, err := s.store.EnsureMember(ctx, "Arriendos Irarrázaval", owner.email, owner.name, envelope.TeamRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	meta := envelope.DefaultMeta("")
	meta.SigningOrder = envelope.SigningOrderSequential
	one, two := 1, 2
	in := persistence.NewEnvelope{
		Envelope: envelope.Envelope{Type: envelope.TypeDocument, Source: envelope.SourceDocument, Visibility: envelope.VisibilityEveryone,
			TemplateType: envelope.TemplateTypePrivate, Title: "Contrato de arriendo", Meta: meta},
		Items: []persistence.Document{{Title: "arriendo.pdf", Data: testpdf.Minimal("secrets " + time.Now().Format(time.RFC3339Nano)), Pages: []persistence.PageSize{{Width: 595, Height: 842}}}},
	}
	for i, p := range signer {
		r := persistence.NewRecipient{Recipient: envelope.Recipient{Email: p.email, Name: p.name, Role: envelope.RoleSigner, SigningOrder: &two},
			Fields: []persistence.NewField{{Field: envelope.Field{Type: envelope.FieldSignature, Page: 1, Width: 10, Height: 5}}}}
		if i == 0 {
			r = persistence.NewRecipient{Recipient: envelope.Recipient{Email: p.email, Name: p.name, Role: envelope.RoleApprover, SigningOrder: &one}}
		}
		in.Recipients = append(in.Recipients, r)
	}
	var id string
	if err := s.store.InTx(ctx, func(tx *persistence.Tx) error {
		var err error
		id, err = tx.CreateEnvelope(ctx, m, in, envelope.MemberActor(m, signerIP, signerUserAgent))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e, err := s.store.GetEnvelope(ctx, persistence.ScopeOf(m), id)
	if err != nil {
		t.Fatal(err)
	}
	return id, e.Recipients
}

// eachPayload calls fn with every payload in m, and whether it is a search attribute's.
func eachPayload(m protoreflect.Message, searchAttr bool, fn func(p *commonpb.Payload, searchAttr bool)) {
	switch v := m.Interface().(type) {
	case *commonpb.Payload:
		fn(v, searchAttr)
		return
	case *commonpb.SearchAttributes:
		searchAttr = true
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				eachPayload(v.List().Get(i).Message(), searchAttr, fn)
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				eachPayload(mv.Message(), searchAttr, fn)
				return true
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			eachPayload(v.Message(), searchAttr, fn)
		}
		return true
	})
}

// decodeThroughCodecServer decodes payloads as the Temporal Web UI does: a POST to the codec
// server's /decode.
func decodeThroughCodecServer(t *testing.T, url string, payloads []*commonpb.Payload) []*commonpb.Payload {
	t.Helper()
	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: payloads})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, url+"/decode", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Namespace", "default")
	req.Header.Set("Origin", "http://127.0.0.1:8233")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("codec server: %d %s", resp.StatusCode, answer)
	}
	var out commonpb.Payloads
	if err := protojson.Unmarshal(answer, &out); err != nil {
		t.Fatalf("codec server answer: %v", err)
	}
	return out.Payloads
}

// temporalCLI is the Temporal CLI that `make test` builds, or "" when there is none.
func temporalCLI(t *testing.T) string {
	path, err := filepath.Abs(filepath.Join("..", "bin", "temporal"))
	if err == nil {
		if _, err = os.Stat(path); err == nil {
			return path
		}
	}
	if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
		t.Fatalf("no Temporal CLI at %s: run `make tools`", path)
	}
	return ""
}

// No signing token, name, address, IP, User-Agent or reason of an envelope is readable in
// Temporal: every payload of the history of a completed, a rejected and a cancelled envelope is
// encrypted (search attributes apart, which stay readable), `temporal workflow show` shows
// none of them; the codec server gives the names and addresses back, and no token even then.
func TestNoSecretInTemporal(t *testing.T) {
	s := newStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	ended := map[string]envelope.Status{}
	var tokens []string
	var completedID string

	// Completed: the approver, then both signers, through their links.
	id, rs := s.draftFor(t)
	completedID = id
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		tokens = append(tokens, r.Token)
		signed := r
		signed.Name = "Firma" // what a signer types in the field: the seal's proof draws it
		s.sign(t, id, signed)
		if err := s.flows.Complete(ctx, id, workflows.CompleteRequest{RecipientID: r.ID, Actor: envelope.RecipientActor(r, signerIP, signerUserAgent),
			LinkVersion: &r.LinkVersion}); err != nil {
			t.Fatalf("complete %d: %v", r.ID, err)
		}
	}
	ended[id] = envelope.StatusCompleted

	// Rejected by the approver.
	id, rs = s.draftFor(t)
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		tokens = append(tokens, r.Token)
	}
	if err := s.flows.Reject(ctx, id, workflows.RejectRequest{RecipientID: rs[0].ID, Reason: rejectReason,
		Actor: envelope.RecipientActor(rs[0], signerIP, signerUserAgent), LinkVersion: &rs[0].LinkVersion}); err != nil {
		t.Fatal(err)
	}
	ended[id] = envelope.StatusRejected

	// Cancelled by its owner.
	id, rs = s.draftFor(t)
	if err := s.flows.Distribute(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		tokens = append(tokens, r.Token)
	}
	name, email := owner.name, owner.email
	ownerActor := envelope.Actor{Name: &name, Email: &email, IPAddress: ptr(signerIP), UserAgent: ptr(signerUserAgent)}
	if err := s.flows.Cancel(ctx, id, workflows.CancelRequest{Reason: cancelReason, Actor: ownerActor}); err != nil {
		t.Fatal(err)
	}
	ended[id] = envelope.StatusCancelled

	secrets := []string{signerIP, signerUserAgent, rejectReason, cancelReason, owner.name, owner.email}
	for _, p := range signer {
		secrets = append(secrets, p.name, p.email)
	}
	for _, tok := range tokens {
		if len(tok) < 16 {
			t.Fatalf("a recipient without a real signing token: %q", tok)
		}
	}

	codec := httptest.NewServer(payloadcodec.Handler(payloadcodec.New(temporaltest.Keys()),
		payloadcodec.ServerOptions{Origins: []string{"http://127.0.0.1:8233"}}))
	defer codec.Close()
	cli := temporalCLI(t)

	for id, status := range ended {
		if err := s.c.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		hist := temporaltest.History(t, s.c, id)
		raw, err := proto.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range append(secrets, tokens...) {
			if bytes.Contains(raw, []byte(secret)) {
				t.Errorf("%s (%s): the history holds %q in clear", id, status, secret)
			}
		}

		// Every payload is encrypted but the search attributes', which are readable.
		var sealed []*commonpb.Payload
		plainAttrs := 0
		eachPayload(hist.ProtoReflect(), false, func(p *commonpb.Payload, searchAttr bool) {
			switch {
			case searchAttr && !payloadcodec.Encrypted(p):
				plainAttrs++
			case searchAttr:
				t.Errorf("%s: an encrypted search attribute", id)
			case !payloadcodec.Encrypted(p):
				t.Errorf("%s: a payload in clear: %s %q", id, p.Metadata["encoding"], p.Data)
			default:
				sealed = append(sealed, p)
			}
		})
		if len(sealed) < 10 || plainAttrs == 0 {
			t.Fatalf("%s: %d encrypted payloads and %d readable search attributes, want many and some", id, len(sealed), plainAttrs)
		}
		desc, err := s.c.DescribeWorkflow(ctx, id, "")
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := desc.TypedSearchAttributes.GetKeyword(workflows.AttrStatus); got != string(status) {
			t.Errorf("%s: search attribute EnvelopeStatus %q, want %s readable", id, got, status)
		}
		if got, _ := desc.TypedSearchAttributes.GetKeyword(workflows.AttrEnvelopeID); got != id {
			t.Errorf("%s: search attribute EnvelopeId %q", id, got)
		}
		for key, p := range desc.Memo.GetFields() {
			if !payloadcodec.Encrypted(p) {
				t.Errorf("%s: memo %s in clear", id, key)
			}
		}

		// The codec server gives the names and addresses back, and never a token: there is none
		// to give.
		decoded := decodeThroughCodecServer(t, codec.URL, sealed)
		var plain bytes.Buffer
		for _, p := range decoded {
			plain.Write(p.Data)
		}
		for _, want := range []string{signer[0].email, signer[0].name, signer[2].email} {
			if !bytes.Contains(plain.Bytes(), []byte(want)) {
				t.Errorf("%s: the decoded history lacks %q", id, want)
			}
		}
		if status != envelope.StatusCancelled && !bytes.Contains(plain.Bytes(), []byte(signerUserAgent)) {
			t.Errorf("%s: the decoded history lacks the signer's User-Agent", id)
		}
		for _, tok := range tokens {
			if bytes.Contains(plain.Bytes(), []byte(tok)) {
				t.Errorf("%s: a decoded payload holds a signing token", id)
			}
		}

		if id == completedID {
			plainHist := proto.Clone(hist).(*historypb.History)
			i := 0
			eachPayload(plainHist.ProtoReflect(), false, func(p *commonpb.Payload, searchAttr bool) {
				if !searchAttr && payloadcodec.Encrypted(p) {
					p.Metadata, p.Data = decoded[i].Metadata, decoded[i].Data
					i++
				}
			})
			t.Logf("history of a completed envelope (approver and two signers): %d events, %d bytes encrypted, %d bytes in clear (+%.1f%%), %d payloads",
				len(hist.Events), len(raw), proto.Size(plainHist), 100*float64(len(raw)-proto.Size(plainHist))/float64(proto.Size(plainHist)), len(sealed))
		}

		// `temporal workflow show`, as an operator runs it: nothing readable without the codec
		// server, the names and addresses with it.
		if cli == "" {
			continue
		}
		show := func(extra ...string) string {
			args := append([]string{"workflow", "show", "--address", temporaltest.Address(t), "--namespace", "default", "-w", id, "--detailed"}, extra...)
			out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("temporal %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			return string(out)
		}
		out := show()
		if !strings.Contains(out, id) {
			t.Errorf("%s: `temporal workflow show` does not show the envelope id (a readable search attribute)", id)
		}
		for _, secret := range append(secrets, tokens...) {
			if strings.Contains(out, secret) {
				t.Errorf("%s: `temporal workflow show` shows %q", id, secret)
			}
		}
		out = show("--codec-endpoint", codec.URL)
		if !strings.Contains(out, signer[1].email) {
			t.Errorf("%s: `temporal workflow show --codec-endpoint` does not show %q decoded", id, signer[1].email)
		}
		for _, tok := range tokens {
			if strings.Contains(out, tok) {
				t.Errorf("%s: `temporal workflow show --codec-endpoint` shows a signing token", id)
			}
		}
	}
}

func ptr(s string) *string { return &s }
