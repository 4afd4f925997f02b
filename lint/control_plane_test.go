package lint

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/resources"
)

// TestControlPlaneWritesResolve keeps the model in step with Kubernetes' resources: a write
// whose resource the apiserver does not serve would silently drop out of B01, B12 and D01.
func TestControlPlaneWritesResolve(t *testing.T) {
	mapper, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, s := range controlPlaneWriteSpecs() {
		want += len(s.ops)
		if s.stops == "" || s.user.Username == "" {
			t.Errorf("%s/%s: every write needs its writer and what stops", s.resource, s.subresource)
		}
	}
	writes := controlPlaneWrites(mapper)
	if len(writes) != want {
		t.Errorf("%d writes resolved, want %d", len(writes), want)
	}
	for _, w := range writes {
		if w.restart && !w.namespaced {
			t.Errorf("%s: a restart write must be namespaced (B02 exempts namespaces)", w.request)
		}
		if w.carriesNodeLabels && (w.namespaced || w.gvr.Resource != "nodes") {
			t.Errorf("%s: only Nodes carry node labels", w.request)
		}
	}
}

func TestDescribeConsequences(t *testing.T) {
	w := func(stops string) controlPlaneWrite { return controlPlaneWrite{stops: stops} }
	tests := []struct {
		name   string
		writes []controlPlaneWrite
		want   string
	}{
		{"one", []controlPlaneWrite{w("a")}, "a"},
		{"repeated consequences once", []controlPlaneWrite{w("a"), w("b"), w("a")}, "a; and b"},
		{"the rest counted", []controlPlaneWrite{w("a"), w("b"), w("c"), w("d"), w("e"), w("f")}, "a; b; c; d; and 2 more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, describeConsequences(tt.writes)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
