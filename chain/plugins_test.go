package chain

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/admitkit/admit/engine"
)

// fakePlugin is a mutating admission plugin that does what its test asks.
type fakePlugin struct {
	*admission.Handler
	admit func(admission.Attributes) error
}

func (f *fakePlugin) Admit(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	return f.admit(a)
}

// fakePipeline admits through the chain's codec and the fake plugins, as the chain runs its
// built-in mutating plugins, in order.
func fakePipeline(t *testing.T, plugins map[string]func(admission.Attributes) error, order ...string) *engine.Pipeline {
	t.Helper()
	ch := newChain(t, Config{})
	p := &engine.Pipeline{Codec: ch.Steps().Codec}
	for _, name := range order {
		p.Mutating = append(p.Mutating, mutatingBuiltin{&builtin{
			name: name, plugin: &fakePlugin{Handler: admission.NewHandler(admission.Create, admission.Update), admit: plugins[name]},
			codec: ch.codec, interfaces: admission.NewObjectInterfacesFromScheme(ch.codec.scheme),
		}})
	}
	return p
}

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func outcomes(res *engine.Result) map[string]engine.Outcome {
	out := map[string]engine.Outcome{}
	for _, r := range res.Rows {
		out[r.Name] = r.Outcome
	}
	return out
}

// The change test around each mutating plugin: a plugin that changes the object is found and
// named, whenever it asks for the object and whatever ran before it; one that asks and changes
// nothing, or changes it only as Semantic equality ignores (nil to empty), or never asks, has
// not patched.
func TestBuiltinChangeTest(t *testing.T) {
	var sawLabel bool
	plugins := map[string]func(admission.Attributes) error{
		"Ignores": func(a admission.Attributes) error { return nil },
		"Asks": func(a admission.Attributes) error {
			_ = a.GetObject().(*api.ConfigMap).Data["size"]
			return nil
		},
		"Labels": func(a admission.Attributes) error {
			cm := a.GetObject().(*api.ConfigMap)
			if cm.Labels == nil {
				cm.Labels = map[string]string{}
			}
			cm.Labels["labelled"] = "yes"
			return nil
		},
		"AsksTwiceThenChanges": func(a admission.Attributes) error {
			// The copy compared with is the object as the plugin found it, not as it was when
			// it asked a second time.
			a.GetObject().(*api.ConfigMap).Data["size"] = "2"
			a.GetObject().(*api.ConfigMap).Data["more"] = "3"
			return nil
		},
		"Empties": func(a admission.Attributes) error {
			cm := a.GetObject().(*api.ConfigMap)
			if cm.BinaryData != nil {
				t.Errorf("binaryData %v, want nil", cm.BinaryData)
			}
			cm.BinaryData = map[string][]byte{}
			return nil
		},
		"SeesLabel": func(a admission.Attributes) error {
			sawLabel = a.GetObject().(*api.ConfigMap).Labels["labelled"] == "yes"
			return nil
		},
	}
	plugins["Ignores2"] = plugins["Ignores"]
	p := fakePipeline(t, plugins, "Ignores", "Asks", "Labels", "Ignores2", "Empties", "SeesLabel", "AsksTwiceThenChanges")
	res, err := p.Admit(context.Background(), request(t, configMaps, `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
data: {size: "1"}
`, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("rejected: %+v", res.Status)
	}
	want := map[string]engine.Outcome{
		"Ignores": engine.OutcomeAllowed, "Asks": engine.OutcomeAllowed, "Labels": engine.OutcomePatched,
		"Ignores2": engine.OutcomeAllowed, "Empties": engine.OutcomeAllowed, "SeesLabel": engine.OutcomeAllowed,
		"AsksTwiceThenChanges": engine.OutcomePatched,
	}
	if diff := cmp.Diff(want, outcomes(res)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if !sawLabel {
		t.Error("the plugin after Labels did not see its label")
	}
	if got := member(t, res.Object, "metadata", "labels", "labelled"); got != "yes" {
		t.Errorf("label %v, want yes", got)
	}
	if got := member(t, res.Object, "data"); !cmp.Equal(got, map[string]any{"size": "2", "more": "3"}) {
		t.Errorf("data %v, want size 2 and more 3", got)
	}
}

// The request's options, decoded once per admission, reach every plugin as decoded for it
// alone: equal, each its own copy (what one plugin does to its copy the next does not see).
func TestBuiltinOptions(t *testing.T) {
	var seen []*metav1.CreateOptions
	record := func(a admission.Attributes) error {
		opts, ok := a.GetOperationOptions().(*metav1.CreateOptions)
		if !ok {
			t.Errorf("options %T, want *metav1.CreateOptions", a.GetOperationOptions())
			return nil
		}
		seen = append(seen, opts.DeepCopy())
		opts.FieldManager, opts.DryRun = "tampered", append(opts.DryRun, "tampered")
		return nil
	}
	p := fakePipeline(t, map[string]func(admission.Attributes) error{"First": record, "Second": record, "Third": record}, "First", "Second", "Third")
	req := request(t, configMaps, `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
`, "")
	options := metav1.CreateOptions{TypeMeta: metav1.TypeMeta{Kind: "CreateOptions", APIVersion: "meta.k8s.io/v1"}, DryRun: []string{metav1.DryRunAll}, FieldManager: "kubectl-client-side-apply", FieldValidation: "Strict"}
	var err error
	if req.Options, err = json.Marshal(options); err != nil {
		t.Fatal(err)
	}
	req.DryRun = true
	res, err := p.Admit(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("rejected: %+v", res.Status)
	}
	if len(seen) != 3 {
		t.Fatalf("%d plugins saw options, want 3", len(seen))
	}
	for i, got := range seen {
		if diff := cmp.Diff(&options, got); diff != "" {
			t.Errorf("plugin %d's options (-want +got):\n%s", i, diff)
		}
	}

	// Options that do not decode fail the first plugin that runs, as when each decoded them.
	seen = nil
	req.Options = json.RawMessage(`{"fieldManager": 3}`)
	res, err = p.Admit(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Allowed || res.Status == nil || !strings.Contains(res.Status.Message, "decoding the request options") {
		t.Fatalf("admitted or the wrong error: %+v", res.Status)
	}
	if len(seen) != 0 {
		t.Errorf("%d plugins ran with options that do not decode", len(seen))
	}

	// CONNECT has no options.
	if got, err := operationOptions(&engine.Request{Operation: admissionv1.Connect}); got != nil || err != nil {
		t.Errorf("CONNECT options %v, %v; want none", got, err)
	}
}
