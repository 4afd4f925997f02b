package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/engine"
)

// mutator is a mutating step that sets a label, and asks for reinvocation when told to.
type mutator struct {
	name, label string
	reinvoke    bool
	err         error
	rounds      *[]string // every round it ran in, "name@round"
}

func (m mutator) Name() string { return m.name }

func (m mutator) Admit(_ context.Context, at *engine.Attributes) error {
	if m.rounds != nil {
		*m.rounds = append(*m.rounds, m.name+"@"+string(rune('0'+at.Round())))
	}
	if m.err != nil {
		return m.err
	}
	if m.label == "" {
		return nil
	}
	var obj map[string]any
	if err := json.Unmarshal(at.Object(), &obj); err != nil {
		return err
	}
	meta, _ := obj["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
	}
	labels[m.label] = "set"
	meta["labels"] = labels
	out, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	at.SetObject(out)
	if m.reinvoke && !at.IsReinvoke() {
		at.RequireReinvocation()
	}
	return nil
}

// validator is a validating step that answers err, warns, or does not apply.
type validator struct {
	name          string
	err           error
	warning       string
	notApplicable bool
	seen          *json.RawMessage // the object it validated
}

func (v validator) Name() string         { return v.name }
func (v validator) Type() engine.RowType { return "test-validator" }

func (v validator) Validate(_ context.Context, at *engine.Attributes) error {
	if v.notApplicable {
		at.NotApplicable()
		return nil
	}
	if v.seen != nil {
		*v.seen = at.Object()
	}
	if v.warning != "" {
		at.AddWarning(v.warning)
	}
	return v.err
}

func configMap(t *testing.T, name string) *engine.Request {
	t.Helper()
	obj := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"default"}}`
	return &engine.Request{
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name: name, Namespace: "default", Operation: admissionv1.Create, Object: json.RawMessage(obj),
	}
}

// row is the part of a Row these tests compare.
type row struct {
	Name, Type, Phase string
	Round             int
	Outcome           engine.Outcome
	Reason            string
}

func rowsOf(res *engine.Result) []row {
	var out []row
	for _, r := range res.Rows {
		out = append(out, row{r.Name, string(r.Type), string(r.Phase), r.Round, r.Outcome, r.Reason})
	}
	return out
}

func TestPipelineRunsStepsInTheApiserversOrder(t *testing.T) {
	var rounds []string
	var validated json.RawMessage
	p := &engine.Pipeline{
		Mutating: []engine.MutatingStep{
			mutator{name: "first", rounds: &rounds},
			mutator{name: "labeller", label: "a", reinvoke: true, rounds: &rounds},
		},
		Validating: []engine.ValidatingStep{
			validator{name: "unrelated", notApplicable: true},
			validator{name: "checker", warning: "looked", seen: &validated},
		},
	}
	res, err := p.Admit(context.Background(), configMap(t, "c"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("rejected: %v", res.Status)
	}
	if diff := cmp.Diff([]string{"first@0", "labeller@0", "first@1", "labeller@1"}, rounds); diff != "" {
		t.Errorf("mutating rounds (-want +got):\n%s", diff)
	}
	want := []row{
		{"first", "plugin", "mutating", 0, engine.OutcomeAllowed, ""},
		{"labeller", "plugin", "mutating", 0, engine.OutcomePatched, ""},
		{"first", "plugin", "mutating", 1, engine.OutcomeAllowed, ""},
		// The label is already set: the second round changes nothing.
		{"labeller", "plugin", "mutating", 1, engine.OutcomeAllowed, ""},
		{"checker", "test-validator", "validating", 0, engine.OutcomeAllowed, ""},
	}
	if diff := cmp.Diff(want, rowsOf(res)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(validated), `"labels":{"a":"set"}`) {
		t.Errorf("validating step saw %s, want the mutated object", validated)
	}
	if diff := cmp.Diff([]string{"looked"}, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if len(res.Patch) != 1 || res.Patch[0].Path != "/metadata/labels" {
		t.Errorf("patch %+v, want the label's addition", res.Patch)
	}
}

func TestPipelineRejections(t *testing.T) {
	denied := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "c", errors.New("no"))
	tests := []struct {
		name       string
		pipeline   engine.Pipeline
		wantCode   int32
		wantRows   []row
		rejections int
	}{
		{
			name:     "a mutating step's status error denies and ends the admission",
			pipeline: engine.Pipeline{Mutating: []engine.MutatingStep{mutator{name: "m", err: denied}, mutator{name: "never"}}},
			wantCode: 403,
			wantRows: []row{{"m", "plugin", "mutating", 0, engine.OutcomeDenied, denied.Error()}},
		},
		{
			name:     "an error without a status is an internal error",
			pipeline: engine.Pipeline{Validating: []engine.ValidatingStep{validator{name: "v", err: errors.New("broken")}}},
			wantCode: 500,
			wantRows: []row{{"v", "test-validator", "validating", 0, engine.OutcomeError, "Internal error occurred: broken"}},
		},
		{
			name: "several rejections at once: the first answers, every one is kept",
			pipeline: engine.Pipeline{Validating: []engine.ValidatingStep{
				validator{name: "v", err: engine.Rejections{denied, apierrors.NewBadRequest("bad")}},
				validator{name: "never"},
			}},
			wantCode:   403,
			wantRows:   []row{{"v", "test-validator", "validating", 0, engine.OutcomeDenied, denied.Error()}},
			rejections: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.pipeline.Admit(context.Background(), configMap(t, "c"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Allowed || res.Status == nil || res.Status.Code != tt.wantCode {
				t.Fatalf("allowed %v, status %+v; want code %d", res.Allowed, res.Status, tt.wantCode)
			}
			if diff := cmp.Diff(tt.wantRows, rowsOf(res)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if len(res.Rejections) != tt.rejections {
				t.Errorf("%d rejections listed, want %d", len(res.Rejections), tt.rejections)
			}
		})
	}
}

func TestPipelineRequestChecks(t *testing.T) {
	p := &engine.Pipeline{MaxRequestBodyBytes: 64}
	res, err := p.Admit(context.Background(), configMap(t, strings.Repeat("x", 64)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Allowed || res.Status.Code != 413 || res.Object != nil {
		t.Errorf("over the body limit: allowed %v, status %+v, object %s; want a 413 without the object", res.Allowed, res.Status, res.Object)
	}
	bad := configMap(t, "c")
	bad.Operation = "PATCH"
	if _, err := p.Admit(context.Background(), bad); err == nil || !strings.Contains(err.Error(), `operation "PATCH"`) {
		t.Errorf("a PATCH request: error %v, want one naming the operation", err)
	}
}

func TestPipelineNamesGeneratedObjects(t *testing.T) {
	var validated json.RawMessage
	p := &engine.Pipeline{Validating: []engine.ValidatingStep{validator{name: "v", seen: &validated}}}
	req := configMap(t, "")
	req.Name, req.GeneratedName = "", "web-x7k2p"
	req.Object = json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"web-","namespace":"default"}}`)
	res, err := p.Admit(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for what, obj := range map[string]json.RawMessage{"validated": validated, "admitted": res.Object} {
		if !strings.Contains(string(obj), `"name":"web-x7k2p"`) {
			t.Errorf("%s object %s lacks the generated name", what, obj)
		}
	}
}
