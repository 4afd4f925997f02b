package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rawPod has fields corev1.Pod does not know (spec.futureField, a container's futureField):
// a lossy framework would remove them.
const rawPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default"},` +
	`"spec":{"futureField":{"keep":true},"containers":[{"name":"app","image":"nginx","futureField":1}]}}`

func podRequest(op admissionv1.Operation, object, old string) *Request {
	req := &Request{ReviewVersion: ReviewV1, AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "uid-1", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"}, Name: "web", Namespace: "default", Operation: op,
	}}
	if object != "" {
		req.Object = runtime.RawExtension{Raw: []byte(object)}
	}
	if old != "" {
		req.OldObject = runtime.RawExtension{Raw: []byte(old)}
	}
	return req
}

// applyPatch applies resp's patch to raw with the apiserver's patch library and returns the result
// as a generic value for comparison.
func applyPatch(t *testing.T, raw string, resp Response) any {
	t.Helper()
	p, err := json.Marshal(resp.Patch)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := jsonpatch.DecodePatch(p)
	if err != nil {
		t.Fatalf("patch %s does not decode: %v", p, err)
	}
	out, err := decoded.Apply([]byte(raw))
	if err != nil {
		t.Fatalf("patch %s does not apply: %v", p, err)
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func addLabelAndSidecar(_ context.Context, _ *Request, pod *corev1.Pod) ([]string, error) {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels["injected"] = "true"
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "proxy", Image: "envoy"})
	return []string{"sidecar added"}, nil
}

func TestDefaultingPatchesLosslessly(t *testing.T) {
	h := DefaultingHandler[*corev1.Pod](DefaulterFunc[*corev1.Pod](addLabelAndSidecar))
	resp := h.Admit(context.Background(), podRequest(admissionv1.Create, rawPod, ""))
	if resp.Outcome != OutcomePatched {
		t.Fatalf("outcome = %v, want patched", resp.Outcome)
	}
	if diff := cmp.Diff([]string{"sidecar added"}, resp.Warnings); diff != "" {
		t.Fatalf("warnings (-want +got):\n%s", diff)
	}
	want := jsonValue(t, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","labels":{"injected":"true"}},`+
		`"spec":{"futureField":{"keep":true},"containers":[{"name":"app","image":"nginx","futureField":1},{"name":"proxy","image":"envoy","resources":{}}]}}`)
	if diff := cmp.Diff(want, applyPatch(t, rawPod, resp)); diff != "" {
		t.Fatalf("patched object (-want +got):\n%s", diff)
	}
	for _, op := range resp.Patch {
		if op.Path == "/status" || op.Path == "/metadata/creationTimestamp" || op.Op == "remove" {
			t.Fatalf("patch contains a round-trip artefact: %+v", op)
		}
	}
}

func TestDefaultingOutcomes(t *testing.T) {
	noChange := DefaulterFunc[*corev1.Pod](func(context.Context, *Request, *corev1.Pod) ([]string, error) {
		return []string{"looked"}, nil
	})
	deny := DefaulterFunc[*corev1.Pod](func(context.Context, *Request, *corev1.Pod) ([]string, error) {
		return nil, errors.New("pods must not run as root")
	})
	fail := DefaulterFunc[*corev1.Pod](func(context.Context, *Request, *corev1.Pod) ([]string, error) {
		return nil, Fail(errors.New("registry unreachable"))
	})
	called := false
	record := DefaulterFunc[*corev1.Pod](func(context.Context, *Request, *corev1.Pod) ([]string, error) {
		called = true
		return nil, nil
	})
	tests := []struct {
		name        string
		d           Defaulter[*corev1.Pod]
		req         *Request
		wantOutcome Outcome
		wantCode    int32
		wantMessage string
		wantCalled  bool
	}{
		{"no change is allowed without patch", noChange, podRequest(admissionv1.Create, rawPod, ""), OutcomeAllowed, 0, "", false},
		{"error denies with 403", deny, podRequest(admissionv1.Create, rawPod, ""), OutcomeDenied, 403, "pods must not run as root", false},
		{"Fail errors with 500", fail, podRequest(admissionv1.Update, rawPod, rawPod), OutcomeError, 500, "registry unreachable", false},
		{"DELETE is not defaulted", record, podRequest(admissionv1.Delete, "", rawPod), OutcomeAllowed, 0, "", false},
		{"CONNECT is not defaulted", record, podRequest(admissionv1.Connect, `{"kind":"PodExecOptions","apiVersion":"v1"}`, ""), OutcomeAllowed, 0, "", false},
		{"missing object is a 400", record, podRequest(admissionv1.Create, "", ""), OutcomeError, 400, "CREATE request for Pod has no object", false},
		{"undecodable object is a 400", record, podRequest(admissionv1.Create, `{"spec":{"containers":"nope"}}`, ""), OutcomeError, 400, "decoding request.object as Pod", false},
		{"duplicate key in the object is a 400", record, podRequest(admissionv1.Create, `{"metadata":{"name":"a","name":"b"}}`, ""), OutcomeError, 400, `decoding request.object as Pod: duplicate field "metadata.name"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called = false
			resp := DefaultingHandler(tt.d).Admit(context.Background(), tt.req)
			if resp.Outcome != tt.wantOutcome {
				t.Fatalf("outcome = %v, want %v (%+v)", resp.Outcome, tt.wantOutcome, resp.Status)
			}
			if len(resp.Patch) != 0 {
				t.Fatalf("unexpected patch %+v", resp.Patch)
			}
			if tt.wantCode != 0 {
				if resp.Status == nil || resp.Status.Code != tt.wantCode || !contains(resp.Status.Message, tt.wantMessage) {
					t.Fatalf("status = %+v, want code %d message containing %q", resp.Status, tt.wantCode, tt.wantMessage)
				}
			}
			if called != tt.wantCalled {
				t.Fatalf("defaulter called = %v, want %v", called, tt.wantCalled)
			}
		})
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// configMapRules rejects keys starting with "bad" and records what it was given.
type configMapRules struct{ seen []string }

func (v *configMapRules) check(cm *corev1.ConfigMap) error {
	var errs field.ErrorList
	for k := range cm.Data {
		if len(k) >= 3 && k[:3] == "bad" {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(k), k, "keys must not start with bad"))
		}
	}
	return Invalid(errs)
}

func (v *configMapRules) ValidateCreate(_ context.Context, _ *Request, cm *corev1.ConfigMap) ([]string, error) {
	v.seen = append(v.seen, "create:"+cm.Name)
	return nil, v.check(cm)
}

func (v *configMapRules) ValidateUpdate(_ context.Context, _ *Request, old, cm *corev1.ConfigMap) ([]string, error) {
	v.seen = append(v.seen, "update:"+old.Data["v"]+"->"+cm.Data["v"])
	return []string{"updated"}, v.check(cm)
}

func (v *configMapRules) ValidateDelete(_ context.Context, _ *Request, old *corev1.ConfigMap) ([]string, error) {
	v.seen = append(v.seen, "delete:"+old.Name)
	if old.Labels["protected"] == "true" {
		return nil, apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, old.Name, errors.New("protected"))
	}
	return nil, nil
}

func (v *configMapRules) ValidateConnect(context.Context, *Request, *unstructured.Unstructured) ([]string, error) {
	return nil, errors.New("unexpected connect")
}

func cmRequest(op admissionv1.Operation, object, old string) *Request {
	req := podRequest(op, object, old)
	req.Kind = metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	req.Resource = metav1.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	req.Name = "cfg"
	return req
}

func TestValidatingCallsTheMethodForTheOperation(t *testing.T) {
	good := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"v":"2"}}`
	old := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"v":"1"}}`
	bad := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"badkey":"x"}}`
	protected := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","labels":{"protected":"true"}}}`
	tests := []struct {
		name         string
		req          *Request
		wantSeen     []string
		wantOutcome  Outcome
		wantStatus   *metav1.Status
		wantWarnings []string
	}{
		{name: "create valid", req: cmRequest(admissionv1.Create, good, ""), wantSeen: []string{"create:cfg"}, wantOutcome: OutcomeAllowed},
		{name: "update gets old and new", req: cmRequest(admissionv1.Update, good, old), wantSeen: []string{"update:1->2"}, wantOutcome: OutcomeAllowed, wantWarnings: []string{"updated"}},
		{
			name: "field errors become one 422 with causes", req: cmRequest(admissionv1.Create, bad, ""), wantSeen: []string{"create:cfg"}, wantOutcome: OutcomeDenied,
			wantStatus: &metav1.Status{Status: "Failure", Code: 422, Reason: metav1.StatusReasonInvalid,
				Message: `ConfigMap "cfg" is invalid: data[badkey]: Invalid value: "badkey": keys must not start with bad`,
				Details: &metav1.StatusDetails{Name: "cfg", Kind: "ConfigMap", Causes: []metav1.StatusCause{{
					Type: metav1.CauseTypeFieldValueInvalid, Field: "data[badkey]", Message: `Invalid value: "badkey": keys must not start with bad`,
				}}}},
		},
		{name: "delete gets the old object", req: cmRequest(admissionv1.Delete, "", old), wantSeen: []string{"delete:cfg"}, wantOutcome: OutcomeAllowed},
		{
			name: "API status errors pass unchanged", req: cmRequest(admissionv1.Delete, "", protected), wantSeen: []string{"delete:cfg"}, wantOutcome: OutcomeDenied,
			wantStatus: &metav1.Status{Status: "Failure", Code: 409, Reason: metav1.StatusReasonConflict,
				Message: `Operation cannot be fulfilled on configmaps "cfg": protected`, Details: &metav1.StatusDetails{Name: "cfg", Kind: "configmaps"}},
		},
		{
			name: "delete without old object is a 400", req: cmRequest(admissionv1.Delete, "", ""), wantOutcome: OutcomeError,
			wantStatus: &metav1.Status{Status: "Failure", Code: 400, Reason: metav1.StatusReasonBadRequest, Message: "DELETE request for ConfigMap has no oldObject"},
		},
		{
			name: "connect goes to ValidateConnect", req: cmRequest(admissionv1.Connect, `{"apiVersion":"v1","kind":"PodExecOptions"}`, ""), wantOutcome: OutcomeDenied,
			wantStatus: &metav1.Status{Status: "Failure", Code: 403, Reason: metav1.StatusReasonForbidden, Message: "unexpected connect"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &configMapRules{}
			resp := ValidatingHandler[*corev1.ConfigMap](v).Admit(context.Background(), tt.req)
			if diff := cmp.Diff(tt.wantSeen, v.seen); diff != "" {
				t.Fatalf("calls (-want +got):\n%s", diff)
			}
			if resp.Outcome != tt.wantOutcome {
				t.Fatalf("outcome = %v, want %v (%+v)", resp.Outcome, tt.wantOutcome, resp.Status)
			}
			if diff := cmp.Diff(tt.wantStatus, resp.Status); diff != "" {
				t.Fatalf("status (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarnings, resp.Warnings); diff != "" {
				t.Fatalf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// allowAll validates nothing; it has no ValidateConnect, so CONNECT is allowed.
type allowAll[T runtime.Object] struct{}

func (allowAll[T]) ValidateCreate(context.Context, *Request, T) ([]string, error)    { return nil, nil }
func (allowAll[T]) ValidateUpdate(context.Context, *Request, T, T) ([]string, error) { return nil, nil }
func (allowAll[T]) ValidateDelete(context.Context, *Request, T) ([]string, error)    { return nil, nil }

func TestValidatingWithoutConnectValidatorAllowsConnect(t *testing.T) {
	resp := ValidatingHandler[*corev1.Pod](allowAll[*corev1.Pod]{}).Admit(context.Background(), podRequest(admissionv1.Connect, `{"kind":"PodExecOptions"}`, ""))
	if resp.Outcome != OutcomeAllowed {
		t.Fatalf("outcome = %v, want allowed", resp.Outcome)
	}
}

func TestTypedAdaptersWorkWithUnstructured(t *testing.T) {
	raw := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3,"color":"red"}}`
	req := podRequest(admissionv1.Create, raw, "")
	req.Kind = metav1.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	h := DefaultingHandler[*unstructured.Unstructured](DefaulterFunc[*unstructured.Unstructured](
		func(_ context.Context, _ *Request, u *unstructured.Unstructured) ([]string, error) {
			return nil, unstructured.SetNestedField(u.Object, "blue", "spec", "color")
		}))
	resp := h.Admit(context.Background(), req)
	want := jsonValue(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3,"color":"blue"}}`)
	if diff := cmp.Diff(want, applyPatch(t, raw, resp)); diff != "" {
		t.Fatalf("patched (-want +got):\n%s", diff)
	}
	if len(resp.Patch) != 1 {
		t.Fatalf("patch = %+v, want a single replace", resp.Patch)
	}

	// An interface type parameter decodes into Unstructured.
	var gotKind string
	v := DefaultingHandler[runtime.Object](DefaulterFunc[runtime.Object](func(_ context.Context, _ *Request, o runtime.Object) ([]string, error) {
		gotKind = o.GetObjectKind().GroupVersionKind().Kind
		return nil, nil
	}))
	if resp := v.Admit(context.Background(), req); resp.Outcome != OutcomeAllowed || gotKind != "Widget" {
		t.Fatalf("outcome %v kind %q, want allowed Widget", resp.Outcome, gotKind)
	}
}

func TestStatusFromError(t *testing.T) {
	gk := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	fe := field.Required(field.NewPath("spec", "replicas"), "set it")
	tests := []struct {
		name string
		err  error
		want Response
	}{
		{"nil", nil, Allowed()},
		{"plain error", errors.New("no"), DeniedWithStatus(metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: "no"})},
		{"wrapped Fail", fmt.Errorf("context: %w", Fail(errors.New("down"))), Errored(fmt.Errorf("context: down"))},
		{"single field error", fe, DeniedWithStatus(apierrors.NewInvalid(gk, "d", field.ErrorList{fe}).Status())},
		{"aggregate of field errors", field.ErrorList{fe}.ToAggregate(), DeniedWithStatus(apierrors.NewInvalid(gk, "d", field.ErrorList{fe}).Status())},
		{"wrapped API status", fmt.Errorf("checking: %w", apierrors.NewTooManyRequests("slow down", 5)), DeniedWithStatus(apierrors.NewTooManyRequests("slow down", 5).Status())},
		{"empty Invalid is nil", Invalid(nil), Allowed()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := StatusFromError(tt.err, gk, "d")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
	if got := StatusFromError(errors.New("x"), gk, "d").Status.Code; got != http.StatusForbidden {
		t.Fatalf("plain error code = %d", got)
	}
}

func TestDenialsNameTheObjectWhenTheRequestDoesNot(t *testing.T) {
	req := cmRequest(admissionv1.Create, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"from-object"},"data":{"badkey":"x"}}`, "")
	req.Name = ""
	resp := ValidatingHandler[*corev1.ConfigMap](&configMapRules{}).Admit(context.Background(), req)
	if resp.Status == nil || !strings.HasPrefix(resp.Status.Message, `ConfigMap "from-object" is invalid`) {
		t.Fatalf("status = %+v, want the object's own name", resp.Status)
	}
}
