package workflows_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/envelope"
	"github.com/sobre-sign/sobre/workflows"
)

// secretField reports whether a field's name says it holds a secret: a signing token, an access
// code, a password, a secret or the RUN a signer must prove.
func secretField(name string) bool {
	n := strings.ToLower(name)
	for _, word := range []string{"token", "secret", "password", "expectedrut"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return n == "code" || n == "accesscode"
}

// secretPaths lists the paths, under path, of t's fields that hold a secret.
func secretPaths(t reflect.Type, path string, seen map[reflect.Type]bool) []string {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return secretPaths(t.Elem(), path, seen)
	case reflect.Map:
		return append(secretPaths(t.Key(), path+"[key]", seen), secretPaths(t.Elem(), path+"[]", seen)...)
	case reflect.Struct:
		if seen[t] {
			return nil
		}
		seen[t] = true
		var out []string
		for i := range t.NumField() {
			f := t.Field(i)
			if secretField(f.Name) {
				out = append(out, path+"."+f.Name)
			}
			out = append(out, secretPaths(f.Type, path+"."+f.Name, seen)...)
		}
		return out
	}
	return nil
}

// Nothing the workflows keep in their history has a place for a secret: not their input
// (with the state a run hands on; a webhook delivery's route), not an Update's argument, not an activity's argument or
// result. TestNoSecretInTemporal shows it for the values of three envelopes' histories; this
// test keeps a field for one from being added to any of the types.
func TestHistoryTypesHoldNoSecret(t *testing.T) {
	roots := map[string]reflect.Type{}
	for _, v := range []any{workflows.Input{}, workflows.PurgeInput{}, workflows.CompleteRequest{}, workflows.RejectRequest{},
		workflows.CancelRequest{}, workflows.ResendRequest{}, workflows.State{}, envelope.WebhookRoute{}} {
		roots[reflect.TypeOf(v).Name()] = reflect.TypeOf(v)
	}
	acts := reflect.TypeOf(&activities.Activities{})
	for _, name := range workflows.ActivityNames() {
		m, ok := acts.MethodByName(name)
		if !ok {
			t.Fatalf("no activity %s", name)
		}
		for i := 2; i < m.Type.NumIn(); i++ { // the receiver and the context.Context first
			roots[fmt.Sprintf("%s.in%d", name, i-2)] = m.Type.In(i)
		}
		for i := range m.Type.NumOut() {
			roots[fmt.Sprintf("%s.out%d", name, i)] = m.Type.Out(i)
		}
	}
	for root, typ := range roots {
		for _, p := range secretPaths(typ, root, map[reflect.Type]bool{}) {
			t.Errorf("%s can hold a secret, and the workflow's history would keep it", p)
		}
	}
}
