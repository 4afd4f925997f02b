package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/admitkit/admit/engine"
	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// funcPlugin is a plugin made of functions; nil functions leave its phase out.
type funcPlugin struct {
	name     string
	admit    func(*engine.Attributes) error
	validate func(*engine.Attributes) error
}

func (p *funcPlugin) Name() string { return p.name }

type mutatingFunc struct{ *funcPlugin }

func (p mutatingFunc) Admit(_ context.Context, a *engine.Attributes) error { return p.admit(a) }

type validatingFunc struct{ *funcPlugin }

func (p validatingFunc) Validate(_ context.Context, a *engine.Attributes) error { return p.validate(a) }

type preparerFunc struct{ *funcPlugin }

func (p preparerFunc) Prepare(_ context.Context, a *engine.Attributes) error { return p.admit(a) }

// setField returns obj with a top-level member set.
func setField(t *testing.T, obj json.RawMessage, key string, value any) json.RawMessage {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatal(err)
	}
	m[key] = value
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type row struct {
	Name, Type string
	Round      int
	Outcome    engine.Outcome
}

func rows(res *engine.Result) []row {
	var out []row
	for _, w := range res.Rows {
		out = append(out, row{w.Name, string(w.Type), w.Round, w.Outcome})
	}
	return out
}

// TestStagesRunInTheApiserversOrder: plugins before the webhooks of each phase (and again in a
// reinvocation round), the preparer between the phases, plugins after the validating webhooks;
// each stage a row of the result in that order, whatever order they finish in.
func TestStagesRunInTheApiserversOrder(t *testing.T) {
	tw := newTestWebhooks(t)
	var seen []string
	mark := &funcPlugin{name: "Marker", admit: func(a *engine.Attributes) error {
		seen = append(seen, "marker")
		a.SetObject(setField(t, a.Object(), "marker", a.IsReinvoke()))
		return nil
	}}
	check := &funcPlugin{name: "Check", validate: func(a *engine.Attributes) error {
		seen = append(seen, "check")
		if !strings.Contains(string(a.Object()), `"prepared":true`) {
			return errors.New("the validating phase must see the prepared object")
		}
		return nil
	}}
	quota := &funcPlugin{name: "Quota", validate: func(*engine.Attributes) error { seen = append(seen, "quota"); return nil }}
	prep := &funcPlugin{name: "Registry", admit: func(a *engine.Attributes) error {
		seen = append(seen, "prepare")
		a.SetObject(setField(t, a.Object(), "prepared", true))
		return nil
	}}
	d := newDispatcher(t,
		[]admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/setLabel/a/1"), ifNeeded)},
		[]admissionregistrationv1.ValidatingWebhook{tw.webhook("/allow")},
		Options{}, steps{
			mutating: []engine.MutatingStep{mutatingFunc{mark}}, validating: []engine.ValidatingStep{validatingFunc{check}},
			preparer: preparerFunc{prep}, after: []engine.ValidatingStep{validatingFunc{quota}},
		})
	res, err := d.Admit(context.Background(), podRequest(admissionv1.Create))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("rejected: %+v", res.Status)
	}
	if diff := cmp.Diff([]string{"marker", "marker", "prepare", "check", "quota"}, seen); diff != "" {
		t.Errorf("stages ran (-want +got):\n%s", diff)
	}
	want := []row{
		{"Marker", "plugin", 0, engine.OutcomePatched},
		{"setlabel-a-1.example.com", "mutating", 0, engine.OutcomePatched},
		{"Marker", "plugin", 1, engine.OutcomePatched},                     // its change in round 1 reinvokes the webhook
		{"setlabel-a-1.example.com", "mutating", 1, engine.OutcomePatched}, // a patch that changes nothing
		{"Registry", "plugin", 0, engine.OutcomePatched},
		{"Check", "plugin", 0, engine.OutcomeAllowed},
		{"allow.example.com", "validating", 0, engine.OutcomeAllowed},
		{"Quota", "plugin", 0, engine.OutcomeAllowed},
	}
	if diff := cmp.Diff(want, rows(res)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestPluginRejections: a plugin's status error is the request's status, a 4xx is a denial and
// anything else an error; nothing after the rejecting step runs.
func TestPluginRejections(t *testing.T) {
	tests := []struct {
		name        string
		err         error
		wantCode    int32
		wantMessage string
		wantOutcome engine.Outcome
	}{
		{"forbidden", apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "p", errors.New("no PriorityClass with name x was found")),
			403, `pods "p" is forbidden: no PriorityClass with name x was found`, engine.OutcomeDenied},
		{"plain error", errors.New("informer not synced"), 500, "Internal error occurred: informer not synced", engine.OutcomeError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := newTestWebhooks(t)
			reject := &funcPlugin{name: "Reject", validate: func(*engine.Attributes) error { return tt.err }}
			ran := false
			after := &funcPlugin{name: "After", validate: func(*engine.Attributes) error { ran = true; return nil }}
			d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{tw.webhook("/allow")},
				Options{}, steps{validating: []engine.ValidatingStep{validatingFunc{reject}}, after: []engine.ValidatingStep{validatingFunc{after}}})
			res, err := d.Admit(context.Background(), podRequest(admissionv1.Create))
			if err != nil {
				t.Fatal(err)
			}
			if res.Allowed || res.Status.Code != tt.wantCode || res.Status.Message != tt.wantMessage {
				t.Fatalf("status %+v, want %d %q", res.Status, tt.wantCode, tt.wantMessage)
			}
			if tw.count("/allow") != 0 || ran {
				t.Fatalf("the webhook (%d calls) or the plugin after it (%v) ran after the rejection", tw.count("/allow"), ran)
			}
			if res.Rows[0].Name != "Reject" || res.Rows[0].Outcome != tt.wantOutcome {
				t.Fatalf("first row %+v, want Reject %s", res.Rows[0], tt.wantOutcome)
			}
		})
	}
}

// TestPreparerNamesTheObject: validating webhooks see the name the preparer gave a generateName
// CREATE, as they see the apiserver's generated name.
func TestPreparerNamesTheObject(t *testing.T) {
	tw := newTestWebhooks(t)
	prep := &funcPlugin{name: "Registry", admit: func(a *engine.Attributes) error {
		if a.Name() != "" {
			return errors.New("a generateName CREATE has no name before preparation")
		}
		var m map[string]any
		_ = json.Unmarshal(a.Object(), &m)
		m["metadata"].(map[string]any)["name"] = "web-abcde"
		out, _ := json.Marshal(m)
		a.SetObject(out)
		return nil
	}}
	d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{tw.webhook("/allow")}, Options{}, steps{preparer: preparerFunc{prep}})
	req := podRequest(admissionv1.Create)
	req.Name, req.Object = "", json.RawMessage(generateNamePod)
	res, err := d.Admit(context.Background(), req)
	if err != nil || !res.Allowed {
		t.Fatalf("Admit = %+v, %v", res, err)
	}
	if got := tw.received("/allow")[0].Name; got != "web-abcde" {
		t.Fatalf("validating webhook saw name %q, want the prepared name", got)
	}
}

// recordingCodec decodes by adding a member, and reports a patch as changed only when asked to.
type recordingCodec struct {
	patchedKinds []schema.GroupVersionKind
	changed      bool
}

func (c *recordingCodec) Decode(_ context.Context, req *engine.Request) (*engine.Decoded, error) {
	obj := strings.Replace(string(req.Object), `"spec":{`, `"spec":{"defaulted":true,`, 1)
	return &engine.Decoded{Object: json.RawMessage(obj), OldObject: req.OldObject, Warnings: []string{`unknown field "spec.extra"`}}, nil
}

func (c *recordingCodec) Stored(_ context.Context, _ *engine.Request, object json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(strings.Replace(string(object), `"spec":{`, `"spec":{"stored":true,`, 1)), nil
}

func (c *recordingCodec) Patched(_ context.Context, kind schema.GroupVersionKind, _, patched json.RawMessage) (json.RawMessage, bool, error) {
	c.patchedKinds = append(c.patchedKinds, kind)
	return json.RawMessage(strings.Replace(string(patched), `"spec":{`, `"spec":{"redefaulted":true,`, 1)), c.changed, nil
}

// TestCodec: webhooks see the decoded object; a patched object is what the codec makes of it;
// whether it changed (and so whether IfNeeded webhooks run again) is the codec's answer; the
// admitted object is what the codec says the storage returns.
func TestCodec(t *testing.T) {
	for _, changed := range []bool{false, true} {
		tw := newTestWebhooks(t)
		codec := &recordingCodec{changed: changed}
		d := newDispatcher(t, []admissionregistrationv1.MutatingWebhook{
			asMutating(tw.webhook("/setLabel/a/1"), ifNeeded), asMutating(tw.webhook("/setLabel/b/1"), ifNeeded),
		}, nil, Options{Codec: codec})
		res, err := d.Admit(context.Background(), podRequest(admissionv1.Create))
		if err != nil || !res.Allowed {
			t.Fatalf("Admit = %+v, %v", res, err)
		}
		first := string(tw.received("/setLabel/a/1")[0].Object.Raw)
		if !strings.Contains(first, `"defaulted":true`) {
			t.Errorf("the first webhook saw %s, want the decoded object", first)
		}
		second := string(tw.received("/setLabel/b/1")[0].Object.Raw)
		if !strings.Contains(second, `"redefaulted":true`) {
			t.Errorf("the second webhook saw %s, want what the codec made of the patched object", second)
		}
		if !strings.Contains(string(res.Object), `"stored":true`) {
			t.Errorf("the admitted object %s is not what the codec says the storage returns", res.Object)
		}
		if diff := cmp.Diff([]string{`unknown field "spec.extra"`}, res.Warnings); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
		wantCalls := 1
		if changed {
			wantCalls = 2
		}
		if got := tw.count("/setLabel/a/1"); got != wantCalls {
			t.Errorf("codec says changed=%v: first webhook called %d times, want %d", changed, got, wantCalls)
		}
		if len(codec.patchedKinds) == 0 || codec.patchedKinds[0] != (schema.GroupVersionKind{Version: "v1", Kind: "Pod"}) {
			t.Errorf("Patched called with kinds %v, want the webhook's v1 Pod", codec.patchedKinds)
		}
	}
}

// TestExemptObjectsStillMeetPlugins: webhook and policy configurations reach no webhook, but
// kube-apiserver's own plugins and preparation still apply to them.
func TestExemptObjectsStillMeetPlugins(t *testing.T) {
	tw := newTestWebhooks(t)
	ran := 0
	p := &funcPlugin{name: "P", admit: func(*engine.Attributes) error { ran++; return nil }}
	d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{tw.webhook("/deny")}, Options{}, steps{mutating: []engine.MutatingStep{mutatingFunc{p}}})
	req := &engine.Request{
		Kind:     schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"},
		Resource: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
		Name:     "v", Operation: admissionv1.Create,
		Object: json.RawMessage(`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"v"}}`),
	}
	res, err := d.Admit(context.Background(), req)
	if err != nil || !res.Allowed {
		t.Fatalf("Admit = %+v, %v", res, err)
	}
	if ran != 1 || tw.count("/deny") != 0 {
		t.Fatalf("plugin ran %d times (want 1), webhook called %d times (want 0)", ran, tw.count("/deny"))
	}
}

// TestRequestBodyLimit: an object over kube-apiserver's request body limit is refused with its
// 413 before anything else runs; an object at the limit is read.
func TestRequestBodyLimit(t *testing.T) {
	padded := func(size int) json.RawMessage {
		head := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big","namespace":"default"},"data":{"k":"`
		tail := `"}}`
		return json.RawMessage(head + strings.Repeat("x", size-len(head)-len(tail)) + tail)
	}
	tests := []struct {
		name      string
		limit     int64
		size      int
		wantCode  int32
		wantCalls int
	}{
		{name: "at the default limit", size: 3 << 20, wantCalls: 1},
		{name: "a byte over the default limit", size: 3<<20 + 1, wantCode: 413},
		{name: "a lower limit", limit: 1000, size: 1001, wantCode: 413},
		{name: "no limit", limit: -1, size: 3<<20 + 1, wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := newTestWebhooks(t)
			d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{tw.webhook("/allow")}, Options{MaxRequestBodyBytes: tt.limit})
			req := &engine.Request{
				Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
				Name: "big", Namespace: "default", Operation: admissionv1.Create, Object: padded(tt.size),
			}
			res, err := d.Admit(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantCode == 0 {
				if !res.Allowed {
					t.Fatalf("rejected: %v", res.Status)
				}
			} else {
				want := fmt.Sprintf("Request entity too large: limit is %d", map[bool]int64{true: tt.limit, false: 3 << 20}[tt.limit > 0])
				if res.Allowed || res.Status.Code != tt.wantCode || res.Status.Reason != metav1.StatusReasonRequestEntityTooLarge || res.Status.Message != want {
					t.Fatalf("status %+v, want %d %q", res.Status, tt.wantCode, want)
				}
				if res.Object != nil || len(res.Rows) != 0 {
					t.Errorf("a refused body was read: object of %d bytes, %d rows", len(res.Object), len(res.Rows))
				}
			}
			if got := len(tw.received("/allow")); got != tt.wantCalls {
				t.Errorf("the webhook was called %d times, want %d", got, tt.wantCalls)
			}
		})
	}
}

// State a stage keeps with AdmissionState lasts one admission: the next admission starts
// without it, and a context of no admission keeps nothing.
func TestAdmissionStateLastsOneAdmission(t *testing.T) {
	type counter struct{ n int }
	type key struct{}
	seen := []int{}
	codec := &countingCodec{decode: func(ctx context.Context) {
		c := engine.AdmissionState(ctx, key{}, func() any { return &counter{} }).(*counter)
		c.n++
		again := engine.AdmissionState(ctx, key{}, func() any { return &counter{} }).(*counter)
		again.n++
		seen = append(seen, again.n)
	}}
	d := newDispatcher(t, nil, nil, Options{Codec: codec})
	for range 2 {
		if _, err := d.Admit(context.Background(), podRequest(admissionv1.Create)); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]int{2, 2}, seen); diff != "" {
		t.Errorf("counts per admission (-want +got):\n%s", diff)
	}
	outside := engine.AdmissionState(context.Background(), key{}, func() any { return &counter{n: 7} }).(*counter)
	if outside.n != 7 || engine.AdmissionState(context.Background(), key{}, func() any { return &counter{} }).(*counter).n != 0 {
		t.Error("a context of no admission kept state")
	}
}

// countingCodec decodes nothing, and tells decode about each admission's context.
type countingCodec struct{ decode func(ctx context.Context) }

func (c *countingCodec) Decode(ctx context.Context, req *engine.Request) (*engine.Decoded, error) {
	c.decode(ctx)
	return &engine.Decoded{Object: req.Object, OldObject: req.OldObject}, nil
}

func (c *countingCodec) Patched(_ context.Context, _ schema.GroupVersionKind, _, patched json.RawMessage) (json.RawMessage, bool, error) {
	return patched, true, nil
}

func (c *countingCodec) Stored(_ context.Context, _ *engine.Request, object json.RawMessage) (json.RawMessage, error) {
	return object, nil
}
