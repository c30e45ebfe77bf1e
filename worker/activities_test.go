package worker_test

import (
	"reflect"
	"testing"

	"github.com/sobre-sign/sobre/activities"
	"github.com/sobre-sign/sobre/workflows"
)

// The workflows call their activities by name; New registers the methods of
// activities.Activities under their own names, so each name must be one of its methods.
func TestEveryWorkflowActivityIsRegistered(t *testing.T) {
	methods := reflect.TypeOf(&activities.Activities{})
	for _, name := range workflows.ActivityNames() {
		if _, ok := methods.MethodByName(name); !ok {
			t.Errorf("the workflows call activity %q, which activities.Activities has no method for", name)
		}
	}
}
