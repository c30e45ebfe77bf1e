package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Kind is one kind of request of the mixed traffic.
type Kind int

// The kinds of the mixed traffic.
const (
	GetEnvelope    Kind = iota // GET /api/v2/envelope/{id}
	ListEnvelopes              // GET /api/v2/envelope?page=1&perPage=20
	CreateEnvelope             // POST /api/v2/envelope/create with a PDF (a draft)
	FillField                  // POST /api/v2/signing/{token}/fields: a signer's typed signature
)

// MixKind is the kind of the i-th request of the mixed traffic: of every ten, five gets and two
// lists (70% reads), two creates (20%) and one signing action (10%).
func MixKind(i uint64) Kind {
	switch i % 10 {
	case 0, 2, 4, 6, 8:
		return GetEnvelope
	case 3, 7:
		return ListEnvelopes
	case 1, 5:
		return CreateEnvelope
	default:
		return FillField
	}
}

// Fill is a signing action the mixed traffic repeats: a signer whose turn it is, and their field.
type Fill struct {
	Token string
	Field int64
}

// Mix makes the mixed traffic's requests for vegeta, round-robin over the API base URLs: gets of
// the envelopes prepared and created, lists, creates of a Draft, and fills of prepared fields.
type Mix struct {
	Bases []string
	Key   string
	Fills []Fill
	Draft []byte // the multipart body of a create
	Type  string // its Content-Type

	mu  sync.Mutex
	ids []string // every envelope made, gets read them in turn
	n   atomic.Uint64
}

// AddIDs adds envelopes the gets may read.
func (m *Mix) AddIDs(ids ...string) {
	m.mu.Lock()
	m.ids = append(m.ids, ids...)
	m.mu.Unlock()
}

func (m *Mix) id(i uint64) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ids[i%uint64(len(m.ids))]
}

// Targeter is vegeta's source of the mixed traffic's requests.
func (m *Mix) Targeter() vegeta.Targeter {
	return func(t *vegeta.Target) error {
		i := m.n.Add(1) - 1
		base := m.Bases[i%uint64(len(m.Bases))]
		t.Body, t.Header = nil, http.Header{"Authorization": {m.Key}}
		switch MixKind(i) {
		case GetEnvelope:
			t.Method, t.URL = "GET", base+"/api/v2/envelope/"+m.id(i/10)
		case ListEnvelopes:
			t.Method, t.URL = "GET", fmt.Sprintf("%s/api/v2/envelope?page=%d&perPage=20", base, 1+(i/10)%5)
		case CreateEnvelope:
			t.Method, t.URL, t.Body = "POST", base+"/api/v2/envelope/create", m.Draft
			t.Header.Set("Content-Type", m.Type)
		case FillField:
			f := m.Fills[(i/10)%uint64(len(m.Fills))]
			t.Body, _ = json.Marshal(map[string]any{"fieldId": f.Field, "value": "Firma de carga"})
			t.Method, t.URL, t.Header = "POST", base+"/api/v2/signing/"+f.Token+"/fields", http.Header{"Content-Type": {"application/json"}}
		}
		return nil
	}
}

// PrepareMix sends l's envelopes, has each approver approve, and opens each first signer's link
// for their field: the envelopes the mixed traffic reads and signs in.
func PrepareMix(ctx context.Context, l Lifecycles, key string) (*Mix, error) {
	p := &Pending{Lifecycles: l}
	if errs := p.Send(ctx); len(errs) > 0 {
		return nil, fmt.Errorf("prepare: %d errors, the first: %w", len(errs), errs[0])
	}
	m := &Mix{Key: key}
	for _, c := range l.Clients {
		m.Bases = append(m.Bases, c.Base)
	}
	var err error
	if m.Draft, m.Type, err = multipartCreate(Draft(l.Run+"-mix", 0, l.Domain), l.PDF); err != nil {
		return nil, err
	}
	fills := make([]Fill, len(p.sent))
	errs := ForEach(len(p.sent), l.Concurrency, func(i int) error {
		s := p.sent[i]
		if err := s.c.Act(ctx, s.inTurn[0].Token); err != nil {
			return err
		}
		v, err := s.c.Open(ctx, s.inTurn[1].Token)
		if err != nil {
			return err
		}
		if len(v.Fields) == 0 {
			return fmt.Errorf("envelope %s: the first signer has no field", s.id)
		}
		fills[i] = Fill{Token: s.inTurn[1].Token, Field: v.Fields[0].ID}
		return nil
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("prepare: %d errors, the first: %w", len(errs), errs[0])
	}
	m.Fills = fills
	for _, s := range p.sent {
		m.AddIDs(s.id)
	}
	return m, nil
}

// KindOf is the kind of a request of the mixed traffic, from its method and URL.
func KindOf(method, url string) Kind {
	switch {
	case strings.Contains(url, "/api/v2/signing/"):
		return FillField
	case method == "POST":
		return CreateEnvelope
	case strings.Contains(url, "/api/v2/envelope?"):
		return ListEnvelopes
	default:
		return GetEnvelope
	}
}

// String names the kind as the sustained run prints it.
func (k Kind) String() string {
	switch k {
	case GetEnvelope:
		return "get"
	case ListEnvelopes:
		return "list"
	case CreateEnvelope:
		return "create"
	default:
		return "sign"
	}
}
