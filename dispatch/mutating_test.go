package dispatch

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/patch"
)

const never, ifNeeded = admissionregistrationv1.NeverReinvocationPolicy, admissionregistrationv1.IfNeededReinvocationPolicy

func labelsOf(t *testing.T, obj json.RawMessage) map[string]string {
	t.Helper()
	l, _, err := objectLabels(obj)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestMutatingWebhookPatchesTheObject(t *testing.T) {
	tw := newTestWebhooks(t)
	d := newDispatcher(t, []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/addLabel"), never)}, nil, Options{})
	res, err := d.Admit(context.Background(), podRequest(admissionv1.Create))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("rejected: %+v", res.Status)
	}
	if diff := cmp.Diff(map[string]string{"remove": "me", "added": "test"}, labelsOf(t, res.Object)); diff != "" {
		t.Fatalf("labels (-want +got):\n%s", diff)
	}
	wantPatch := patch.Patch{{Op: "add", Path: "/metadata/labels/added", Value: json.RawMessage(`"test"`)}}
	if diff := cmp.Diff(wantPatch, res.Patch); diff != "" {
		t.Fatalf("result patch (-want +got):\n%s", diff)
	}
	wantAnnotations := map[string]string{
		"mutation.webhook.admission.k8s.io/round_0_index_0": `{"configuration":"mutating","webhook":"addlabel.example.com","mutated":true}`,
		"patch.webhook.admission.k8s.io/round_0_index_0":    `{"configuration":"mutating","webhook":"addlabel.example.com","patch":[{"op":"add","path":"/metadata/labels/added","value":"test"}],"patchType":"JSONPatch"}`,
	}
	if diff := cmp.Diff(wantAnnotations, res.AuditAnnotations); diff != "" {
		t.Fatalf("annotations (-want +got):\n%s", diff)
	}
	if len(res.Rows) != 1 || res.Rows[0].Outcome != engine.OutcomePatched || string(res.Rows[0].Patch) == "" {
		t.Fatalf("webhook results = %+v", res.Rows)
	}
}

func TestMutatingFailures(t *testing.T) {
	tests := []struct {
		name            string
		webhooks        func(tw *testWebhooks) []admissionregistrationv1.MutatingWebhook
		request         *engine.Request
		want            *statusSummary
		wantContains    []string
		wantAnnotations map[string]string
		wantCalls       map[string]int
	}{
		{
			name: "undecodable patch with Fail",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.MutatingWebhook {
				return []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/invalidPatch"), never)}
			},
			want: &statusSummary{500, metav1.StatusReasonInternalError,
				`Internal error occurred: failed calling webhook "invalidpatch.example.com": received undecodable patch in webhook response: unexpected end of JSON input`},
		},
		{
			name: "undecodable patch with Ignore fails open",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.MutatingWebhook {
				return []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/invalidPatch", ignore), never)}
			},
			wantAnnotations: map[string]string{
				"failed-open.mutation.webhook.admission.k8s.io/round_0_index_0": "invalidpatch.example.com",
				"mutation.webhook.admission.k8s.io/round_0_index_0":             `{"configuration":"mutating","webhook":"invalidpatch.example.com","mutated":false}`,
			},
		},
		{
			name: "corrupt patch",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.MutatingWebhook {
				return []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/invalidMutation"), never)}
			},
			wantContains: []string{`failed calling webhook "invalidmutation.example.com": received undecodable patch in webhook response: invalid character`},
		},
		{
			name: "a patch that does not apply fails even with Ignore",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.MutatingWebhook {
				return []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/missingPath", ignore), never)}
			},
			want: &statusSummary{500, metav1.StatusReasonInternalError,
				`Internal error occurred: add operation does not apply: doc is missing path: "/metadata/annotations/x": missing value`},
		},
		{
			name: "a patch that copies its way past 3 MiB fails even with Ignore",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.MutatingWebhook {
				return []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/copyBomb", ignore), never)}
			},
			wantContains: []string{"Internal error occurred: Unable to complete the copy, the accumulated size increase of copy is ", ", exceeding the limit 3145728"},
		},
		{
			name: "a patch that breaks the kind's type fails even with Ignore",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.MutatingWebhook {
				return []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/breakType", ignore), never)}
			},
			wantContains: []string{"Internal error occurred: ", "cannot unmarshal string into Go struct field Pod.metadata of type v1.ObjectMeta"},
		},
		{
			name: "a patch on DELETE",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.MutatingWebhook {
				return []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/addLabel", ignore), never)}
			},
			request: podRequest(admissionv1.Delete),
			want: &statusSummary{500, metav1.StatusReasonInternalError,
				`Internal error occurred: admission webhook "addlabel.example.com" attempted to modify the object, which is not supported for this operation`},
		},
		{
			name: "an empty patch changes nothing",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.MutatingWebhook {
				return []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/noop"), never)}
			},
			wantAnnotations: map[string]string{"mutation.webhook.admission.k8s.io/round_0_index_0": `{"configuration":"mutating","webhook":"noop.example.com","mutated":false}`},
		},
		{
			name: "a webhook removing a label stops a later webhook's objectSelector matching",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.MutatingWebhook {
				return []admissionregistrationv1.MutatingWebhook{
					asMutating(tw.webhook("/removeLabel"), never),
					asMutating(tw.webhook("/disallow", objectSelector(map[string]string{"remove": "me"})), never),
				}
			},
			wantCalls: map[string]int{"/removeLabel": 1, "/disallow": 0},
		},
		{
			name: "denial by a mutating webhook",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.MutatingWebhook {
				return []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/disallowReason"), never), asMutating(tw.webhook("/addLabel"), never)}
			},
			want:      &statusSummary{403, "", `admission webhook "disallowreason.example.com" denied the request: you shall not pass`},
			wantCalls: map[string]int{"/addLabel": 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tw := newTestWebhooks(t)
			d := newDispatcher(t, tt.webhooks(tw), nil, Options{})
			req := tt.request
			if req == nil {
				req = podRequest(admissionv1.Create)
			}
			res, err := d.Admit(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res, tt.want, tt.wantContains)
			if tt.wantAnnotations != nil {
				if diff := cmp.Diff(tt.wantAnnotations, res.AuditAnnotations); diff != "" {
					t.Errorf("annotations (-want +got):\n%s", diff)
				}
			}
			for path, n := range tt.wantCalls {
				if got := tw.count(path); got != n {
					t.Errorf("%s called %d times, want %d", path, got, n)
				}
			}
		})
	}
}

func TestReinvocation(t *testing.T) {
	tests := []struct {
		name     string
		webhooks []struct {
			path   string
			policy admissionregistrationv1.ReinvocationPolicyType
		}
		wantCalls  map[string]int
		wantLabels map[string]string
	}{
		{
			name: "an earlier IfNeeded webhook runs again after a later change",
			webhooks: []struct {
				path   string
				policy admissionregistrationv1.ReinvocationPolicyType
			}{
				{"/setLabel/a/1", ifNeeded}, {"/setLabel/b/1", never},
			},
			wantCalls:  map[string]int{"/setLabel/a/1": 2, "/setLabel/b/1": 1},
			wantLabels: map[string]string{"remove": "me", "a": "1", "b": "1"},
		},
		{
			name: "Never webhooks are called once",
			webhooks: []struct {
				path   string
				policy admissionregistrationv1.ReinvocationPolicyType
			}{
				{"/setLabel/a/1", never}, {"/setLabel/b/1", never},
			},
			wantCalls: map[string]int{"/setLabel/a/1": 1, "/setLabel/b/1": 1},
		},
		{
			name: "a webhook's own change does not reinvoke it",
			webhooks: []struct {
				path   string
				policy admissionregistrationv1.ReinvocationPolicyType
			}{
				{"/setLabel/a/1", ifNeeded},
			},
			wantCalls: map[string]int{"/setLabel/a/1": 1},
		},
		{
			name: "two webhooks fighting run twice each and the last one wins",
			webhooks: []struct {
				path   string
				policy admissionregistrationv1.ReinvocationPolicyType
			}{
				{"/setLabel/x/a", ifNeeded}, {"/setLabel/x/b", ifNeeded},
			},
			wantCalls:  map[string]int{"/setLabel/x/a": 2, "/setLabel/x/b": 2},
			wantLabels: map[string]string{"remove": "me", "x": "b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := newTestWebhooks(t)
			var hooks []admissionregistrationv1.MutatingWebhook
			for i, w := range tt.webhooks {
				h := asMutating(tw.webhook(w.path), w.policy)
				h.Name = string(rune('a'+i)) + ".example.com"
				hooks = append(hooks, h)
			}
			d := newDispatcher(t, hooks, nil, Options{})
			res, err := d.Admit(context.Background(), podRequest(admissionv1.Create))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Allowed {
				t.Fatalf("rejected: %+v", res.Status)
			}
			for path, n := range tt.wantCalls {
				if got := tw.count(path); got != n {
					t.Errorf("%s called %d times, want %d", path, got, n)
				}
			}
			if tt.wantLabels != nil {
				if diff := cmp.Diff(tt.wantLabels, labelsOf(t, res.Object)); diff != "" {
					t.Errorf("labels (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// priorityPlugin stands in for a built-in plugin that sets a field whenever it runs.
type priorityPlugin struct{ calls int }

func (m *priorityPlugin) Name() string { return "priority" }
func (m *priorityPlugin) Admit(_ context.Context, a *engine.Attributes) error {
	m.calls++
	var v map[string]any
	if err := json.Unmarshal(a.Object(), &v); err != nil {
		return err
	}
	v["spec"].(map[string]any)["priority"] = m.calls
	out, err := json.Marshal(v)
	a.SetObject(out)
	return err
}

func TestInProcessPluginsTakePartInReinvocation(t *testing.T) {
	tw := newTestWebhooks(t)
	d := newDispatcher(t, []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/setLabel/a/1"), ifNeeded)}, nil,
		Options{}, steps{mutating: []engine.MutatingStep{&priorityPlugin{}}})
	res, err := d.Admit(context.Background(), podRequest(admissionv1.Create))
	if err != nil {
		t.Fatal(err)
	}
	// Round 0: the plugin sets priority 1, the webhook adds a label (a change: round 1 happens).
	// Round 1: the plugin sets priority 2, a change since the webhook's output, so the IfNeeded
	// webhook runs again.
	if got := tw.count("/setLabel/a/1"); got != 2 {
		t.Fatalf("webhook called %d times, want 2", got)
	}
	var obj struct {
		Spec struct{ Priority int } `json:"spec"`
	}
	if err := json.Unmarshal(res.Object, &obj); err != nil || obj.Spec.Priority != 2 {
		t.Fatalf("priority = %d (%v), want 2", obj.Spec.Priority, err)
	}
}

// TestGeneratedName: a generateName CREATE has no name while mutating; the registry names it
// before validating admission, unless a mutating webhook named it already, as kube-apiserver's
// registry generates a name only for an object that has none.
func TestGeneratedName(t *testing.T) {
	tests := []struct {
		name          string
		mutatingPath  string
		wantValidated string
	}{
		{name: "generated", mutatingPath: "/noop", wantValidated: "web-x7k2p"},
		{name: "named by a mutating webhook", mutatingPath: "/setName", wantValidated: "named-by-webhook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := newTestWebhooks(t)
			d := newDispatcher(t, []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook(tt.mutatingPath), never)}, []admissionregistrationv1.ValidatingWebhook{tw.webhook("/allow")}, Options{})
			req := podRequest(admissionv1.Create)
			req.Name, req.GeneratedName, req.Object = "", "web-x7k2p", json.RawMessage(generateNamePod)
			res, err := d.Admit(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if m, v := tw.received(tt.mutatingPath)[0].Name, tw.received("/allow")[0].Name; m != "" || v != tt.wantValidated {
				t.Fatalf("mutating saw %q, validating saw %q; want \"\" and %q", m, v, tt.wantValidated)
			}
			if got := nameOf(res.Object); got != tt.wantValidated {
				t.Errorf("the admitted object is named %q, want %q", got, tt.wantValidated)
			}
		})
	}
}

// hpaResources knows that HPAs are served as autoscaling/v1 and autoscaling/v2.
type hpaResources struct{}

var (
	hpaV1 = schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}
	hpaV2 = schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}
)

func (hpaResources) Equivalents(gvr schema.GroupVersionResource, _ string) []schema.GroupVersionResource {
	if gvr.GroupResource() == hpaV1.GroupResource() {
		return []schema.GroupVersionResource{hpaV2, hpaV1}
	}
	return []schema.GroupVersionResource{gvr}
}

func (hpaResources) KindFor(gvr schema.GroupVersionResource, _ string) (schema.GroupVersionKind, error) {
	return schema.GroupVersionKind{Group: gvr.Group, Version: gvr.Version, Kind: "HorizontalPodAutoscaler"}, nil
}

// apiVersionConverter rewrites apiVersion only, which is enough for the test's object.
type apiVersionConverter struct{}

func (apiVersionConverter) Convert(_ context.Context, obj json.RawMessage, to schema.GroupVersionKind) (json.RawMessage, error) {
	var v map[string]any
	if err := json.Unmarshal(obj, &v); err != nil {
		return nil, err
	}
	v["apiVersion"] = to.GroupVersion().String()
	return json.Marshal(v)
}

func TestEquivalentMatchPolicyCallsTheWebhookInItsVersion(t *testing.T) {
	tw := newTestWebhooks(t)
	onlyV2 := func(exact bool) admissionregistrationv1.ValidatingWebhook {
		w := tw.webhook("/allow")
		w.Rules[0].APIGroups, w.Rules[0].APIVersions, w.Rules[0].Resources = []string{"autoscaling"}, []string{"v2"}, []string{"horizontalpodautoscalers"}
		if exact {
			w.MatchPolicy = ptr(admissionregistrationv1.Exact)
			w.Name = "exact.example.com"
		}
		return w
	}
	d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{onlyV2(false), onlyV2(true)}, Options{Resources: hpaResources{}, Converter: apiVersionConverter{}})
	req := &engine.Request{
		Kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}, Resource: hpaV1,
		Name: "h", Namespace: "default", Operation: admissionv1.Create,
		Object: json.RawMessage(`{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"}}`),
	}
	res, err := d.Admit(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got := tw.received("/allow")
	if len(got) != 1 {
		t.Fatalf("webhook called %d times, want once (the Exact one must not match)", len(got))
	}
	r := got[0]
	if r.Kind.Version != "v2" || r.Resource.Version != "v2" || r.RequestKind.Version != "v1" || r.RequestResource.Version != "v1" {
		t.Fatalf("kind %v resource %v requestKind %v requestResource %v", r.Kind, r.Resource, r.RequestKind, r.RequestResource)
	}
	var obj metav1.TypeMeta
	if err := json.Unmarshal(r.Object.Raw, &obj); err != nil || obj.APIVersion != "autoscaling/v2" {
		t.Fatalf("object sent as %q, want autoscaling/v2", obj.APIVersion)
	}
	if res.Rows[1].Outcome != engine.OutcomeSkipped {
		t.Fatalf("exact webhook outcome = %v", res.Rows[1].Outcome)
	}
}

// fixedConditions answers matchConditions with a fixed result.
type fixedConditions struct {
	matched bool
	err     error
}

func (f fixedConditions) Match(context.Context, ConditionInput) (bool, int, error) {
	if f.err != nil {
		return false, 1, f.err
	}
	return f.matched, 0, nil
}

func TestMatchConditions(t *testing.T) {
	tests := []struct {
		name      string
		result    fixedConditions
		want      *statusSummary
		wantCalls int
	}{
		{"true calls the webhook", fixedConditions{matched: true}, nil, 1},
		{"false skips it", fixedConditions{matched: false}, nil, 0},
		{"an error fails the request with 403", fixedConditions{err: errTest("expression failed")}, &statusSummary{403, metav1.StatusReasonForbidden, `pods "p" is forbidden: expression failed`}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := newTestWebhooks(t)
			w := tw.webhook("/allow")
			w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "true"}}
			compile := func([]admissionregistrationv1.MatchCondition, *admissionregistrationv1.FailurePolicyType) (ConditionMatcher, error) {
				return tt.result, nil
			}
			d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{w}, Options{Conditions: compile})
			res, err := d.Admit(context.Background(), podRequest(admissionv1.Create))
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res, tt.want, nil)
			if got := tw.count("/allow"); got != tt.wantCalls {
				t.Fatalf("called %d times, want %d", got, tt.wantCalls)
			}
		})
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }

// nameOf reads metadata.name of a JSON object.
func nameOf(obj json.RawMessage) string {
	var head struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(obj, &head)
	return head.Metadata.Name
}
