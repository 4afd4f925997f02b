package bench_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admitkit/admit/bench"
	"github.com/admitkit/admit/patch"
)

// response builds the answer a correct server gives, with change applied to the review first.
func response(t *testing.T, uid types.UID, podJSON []byte, change func(*corev1.Pod), edit func(*admissionv1.AdmissionReview)) []byte {
	t.Helper()
	var pod corev1.Pod
	if err := json.Unmarshal(podJSON, &pod); err != nil {
		t.Fatal(err)
	}
	change(&pod)
	after, err := json.Marshal(&pod)
	if err != nil {
		t.Fatal(err)
	}
	p, err := patch.Diff(podJSON, after)
	if err != nil {
		t.Fatal(err)
	}
	patchJSON, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	jsonPatch := admissionv1.PatchTypeJSONPatch
	review := admissionv1.AdmissionReview{Response: &admissionv1.AdmissionResponse{UID: uid, Allowed: true, Patch: patchJSON, PatchType: &jsonPatch}}
	review.APIVersion, review.Kind = "admission.k8s.io/v1", "AdmissionReview"
	if edit != nil {
		edit(&review)
	}
	body, err := json.Marshal(review)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func TestCheckResponse(t *testing.T) {
	podJSON, err := bench.PodJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		change  func(*corev1.Pod)
		edit    func(*admissionv1.AdmissionReview)
		wantErr string // empty: the response is correct
	}{
		{name: "correct", change: bench.Inject},
		{name: "wrong uid", change: bench.Inject, edit: func(r *admissionv1.AdmissionReview) { r.Response.UID = "other" },
			wantErr: `response uid is "other"`},
		{name: "denied", change: bench.Inject, edit: func(r *admissionv1.AdmissionReview) { r.Response.Allowed = false },
			wantErr: "not allowed"},
		{name: "v1beta1", change: bench.Inject, edit: func(r *admissionv1.AdmissionReview) { r.APIVersion = "admission.k8s.io/v1beta1" },
			wantErr: "want an admission.k8s.io/v1 AdmissionReview"},
		{name: "no patch type", change: bench.Inject, edit: func(r *admissionv1.AdmissionReview) { r.Response.PatchType = nil },
			wantErr: "patchType"},
		{name: "label only", change: func(p *corev1.Pod) { p.Labels[bench.InjectedLabel] = "true" },
			wantErr: "found 0 containers named proxy"},
		{name: "one change too many", change: func(p *corev1.Pod) { bench.Inject(p); p.Spec.Hostname = "extra" },
			wantErr: "differs from the expected one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := response(t, bench.ReviewUID, podJSON, tc.change, tc.edit)
			err := bench.CheckResponse(body, bench.ReviewUID, podJSON)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("correct response refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestInjectIsIdempotent(t *testing.T) {
	pod, err := bench.Pod()
	if err != nil {
		t.Fatal(err)
	}
	once := pod.DeepCopy()
	bench.Inject(once)
	twice := once.DeepCopy()
	bench.Inject(twice)
	if diff := cmp.Diff(once, twice); diff != "" {
		t.Errorf("a second Inject changed the pod (-once +twice):\n%s", diff)
	}
	if err := bench.CheckInjected(twice); err != nil {
		t.Error(err)
	}
}

func TestAdmissionReviewCarriesThePod(t *testing.T) {
	podJSON, err := bench.PodJSON()
	if err != nil {
		t.Fatal(err)
	}
	body, err := bench.AdmissionReview(bench.ReviewUID, podJSON)
	if err != nil {
		t.Fatal(err)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		t.Fatal(err)
	}
	req := review.Request
	got := []string{string(req.UID), string(req.Operation), req.Kind.Kind, req.Resource.Resource, req.Namespace, req.Name}
	want := []string{string(bench.ReviewUID), "CREATE", "Pod", "pods", "shop", "checkout-7d9f8b6c5d-x2x9q"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if string(req.Object.Raw) != string(podJSON) {
		t.Error("the review's object is not the pod JSON")
	}
	if n := len(podJSON); n < 8<<10 || n > 12<<10 {
		t.Errorf("the pod is %d bytes, want about 10 KB", n)
	}
}

func TestAdmissionReviewRefusesBadJSON(t *testing.T) {
	if _, err := bench.AdmissionReview(bench.ReviewUID, []byte(`{"metadata":`)); err == nil {
		t.Error("a truncated pod was accepted")
	}
}
