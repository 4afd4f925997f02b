package review

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/internal/benchinput"
)

// build is benchinput's kustomize-shaped build of n objects.
func build(n int) []byte { return benchinput.Build(n) }

// policies deny ConfigMaps whose size is a multiple of 13.
func policies(t testing.TB) []Input {
	t.Helper()
	in, err := Parse("policies.yaml", []byte(benchinput.Policy))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// reviewAll reviews input at a concurrency and returns every outcome as JSON, the measured
// durations zeroed (they measure the run, they are not its result).
func reviewAll(t *testing.T, input []byte, concurrency int) []string {
	t.Helper()
	objects, err := Parse("build.yaml", input)
	if err != nil {
		t.Fatal(err)
	}
	moment := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := New(Config{Policies: policies(t), Concurrency: concurrency, Now: func() time.Time { return moment }}, objects)
	if err != nil {
		t.Fatal(err)
	}
	outcomes, err := s.Review(context.Background(), Write{}, objects, nil)
	if err != nil {
		t.Fatal(err)
	}
	return outcomeStrings(t, outcomes)
}

// outcomeStrings is each outcome as its source and result in JSON, the measured durations
// zeroed.
func outcomeStrings(t *testing.T, outcomes []*Outcome) []string {
	t.Helper()
	out := make([]string, len(outcomes))
	for i, o := range outcomes {
		if o.Err != nil {
			out[i] = o.Source + ": " + o.Err.Error()
			continue
		}
		for j := range o.Result.Rows {
			o.Result.Rows[j].Duration, o.Result.Rows[j].DurationSeconds = 0, 0
		}
		data, err := json.Marshal(o.Result)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = o.Source + ": " + string(data)
	}
	return out
}

// A review is deterministic: 2,000 objects — more than any cache holds — give the same results
// one at a time and sixteen at a time (uids, generated names, cluster IPs and node ports
// included).
func TestReviewIsDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("reviews 4,000 objects")
	}
	input := build(2000)
	serial := reviewAll(t, input, 1)
	concurrent := reviewAll(t, input, 16)
	if len(serial) != 2001 {
		t.Fatalf("%d outcomes, want 2,001", len(serial))
	}
	differ := 0
	for i := range serial {
		if serial[i] != concurrent[i] {
			if differ++; differ <= 3 {
				t.Errorf("object %d differs (-serial +concurrent):\n%s", i, cmp.Diff(serial[i], concurrent[i]))
			}
		}
	}
	if differ > 0 {
		t.Fatalf("%d of %d objects differ", differ, len(serial))
	}
	// The mix exercises what could differ.
	joined := strings.Join(serial, "\n")
	for _, want := range []string{`"clusterIP":`, `"nodePort":`, `"name":"settings-`, `"uid":`, "unlucky size", `violates PodSecurity`, `"size":1`} {
		if !strings.Contains(joined, want) {
			t.Errorf("no result has %s", want)
		}
	}
}

// Requests pairs UPDATEs with their old objects and reports each object's problem apart.
func TestRequests(t *testing.T) {
	objects, err := Parse("new.yaml", []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: kept}
data: {k: v2}
---
apiVersion: v1
kind: ConfigMap
metadata: {generateName: made-}
---
apiVersion: example.com/v1
kind: Unknown
metadata: {name: u}
`))
	if err != nil {
		t.Fatal(err)
	}
	olds, err := Parse("old.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept}\ndata: {k: v1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{}, objects)
	if err != nil {
		t.Fatal(err)
	}
	outcomes, err := s.Requests(objects, olds, Write{Namespace: "team"})
	if err != nil {
		t.Fatal(err)
	}
	type view struct{ Op, Namespace, Name, Generated, Err string }
	var got []view
	for _, o := range outcomes {
		v := view{}
		if o.Request != nil {
			v = view{Op: string(o.Request.Operation), Namespace: o.Request.Namespace, Name: o.Request.Name, Generated: o.Request.GeneratedName}
		}
		if o.Err != nil {
			v.Err = o.Err.Error()
		}
		got = append(got, v)
	}
	want := []view{
		{Op: "UPDATE", Namespace: "team", Name: "kept"},
		{Op: "CREATE", Namespace: "team", Generated: "made-" + nameSuffix("new.yaml:6", "team", "made-")},
		{Err: `new.yaml:10: no resource for kind "Unknown" in group "example.com" version "v1" (custom kinds need their CustomResourceDefinition)`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// Policies under WebhooksOnly are refused: the chain evaluates them.
func TestNewRefusesPoliciesWithoutTheChain(t *testing.T) {
	_, err := New(Config{WebhooksOnly: true, Policies: policies(t)}, nil)
	if err == nil || !strings.Contains(err.Error(), "webhooks-only calls webhooks alone, but the input has 2 admission policies and bindings (the first at policies.yaml:1)") {
		t.Fatalf("err = %v", err)
	}
}
