package review

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// build is a kustomize-shaped input of n objects: per team a Namespace, a ServiceAccount and a
// LimitRange, then Deployments, Services (cluster IPs allocated), ConfigMaps with generateName
// (names generated), custom resources of a CRD in the same input, and an admission policy that
// denies some of them.
func build(n int) []byte {
	var b strings.Builder
	b.WriteString(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer, default: 1}}}}}}
`)
	for i := 0; i < n; i++ {
		team := fmt.Sprintf("team-%d", i/50)
		b.WriteString("---\n")
		switch {
		case i%50 == 0:
			fmt.Fprintf(&b, "apiVersion: v1\nkind: Namespace\nmetadata: {name: %s, labels: {pod-security.kubernetes.io/enforce: baseline}}\n", team)
		case i%50 == 1:
			fmt.Fprintf(&b, "apiVersion: v1\nkind: LimitRange\nmetadata: {name: defaults, namespace: %s}\nspec: {limits: [{type: Container, defaultRequest: {cpu: 100m}}]}\n", team)
		case i%5 == 0:
			fmt.Fprintf(&b, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app-%d, namespace: %s}\nspec:\n  selector: {matchLabels: {app: a%d}}\n  template:\n    metadata: {labels: {app: a%d}}\n    spec: {containers: [{name: app, image: nginx:1.%d}]}\n", i, team, i, i, i%30)
		case i%5 == 1:
			fmt.Fprintf(&b, "apiVersion: v1\nkind: Service\nmetadata: {name: svc-%d, namespace: %s}\nspec: {selector: {app: a%d}, ports: [{port: 80}], type: NodePort}\n", i, team, i)
		case i%5 == 2:
			fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: settings-, namespace: %s}\ndata: {size: \"%d\"}\n", team, i)
		case i%5 == 3:
			fmt.Fprintf(&b, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w-%d, namespace: %s}\nspec: {}\n", i, team)
		default:
			fmt.Fprintf(&b, "apiVersion: v1\nkind: Pod\nmetadata: {name: pod-%d, namespace: %s}\nspec: {hostNetwork: %v, containers: [{name: app, image: busybox}]}\n", i, team, i%7 == 0)
		}
	}
	return []byte(b.String())
}

// policies deny ConfigMaps whose size is a multiple of 13.
func policies(t testing.TB) []Input {
	t.Helper()
	in, err := Parse("policies.yaml", []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: unlucky}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  validations: [{expression: "int(object.data.size) % 13 != 0", message: unlucky size}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: unlucky}
spec: {policyName: unlucky, validationActions: [Deny]}
`))
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
