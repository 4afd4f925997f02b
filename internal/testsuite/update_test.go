package testsuite

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/dispatch"
)

// --update rewrites the expect blocks of the cases it is given results for, and leaves every
// other byte of the file as written: comments, flow style, quoting, the other cases.
func TestUpdateRewritesOnlyExpectBlocks(t *testing.T) {
	file := `# a suite
apiVersion: admit.dev/v1alpha1
kind: TestSuite
cases:
  # first
  - name: rejected now
    object: {apiVersion: v1, kind: Pod, metadata: {name: 'p'}}
    expect:
      allowed: true   # was admitted
      # checked fields
      fields:
        spec.image: old
        spec.gone: 1
    # trailing comment of the case
  - name: untouched
    object: {apiVersion: v1, kind: Pod}
    expect: {allowed: true, called: [x]}
  - name: regexp kept
    object: {apiVersion: v1, kind: Pod}
    expect: {allowed: false, messageRegexp: "denied", outcomes: {w: denied, gone: error}, warnings: [old], reason: Forbidden}
`
	s, err := Parse("t.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	rejected := &dispatch.Result{
		Allowed: false, Object: json.RawMessage(`{"spec":{"image":"new:1"}}`),
		Status:   &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: `admission webhook "w" denied: it's "quoted"`},
		Webhooks: []dispatch.WebhookResult{{Name: "w", Type: "validating", Outcome: dispatch.OutcomeDenied}},
		Warnings: []string{"careful: a colon"},
	}
	if err := s.Cases[0].Update(rejected); err != nil {
		t.Fatal(err)
	}
	if err := s.Cases[2].Update(&dispatch.Result{Allowed: false, Status: &metav1.Status{Code: 422, Reason: metav1.StatusReasonInvalid, Message: "it was denied"},
		Webhooks: []dispatch.WebhookResult{{Name: "w", Type: "validating", Outcome: dispatch.OutcomeDenied}}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `# a suite
apiVersion: admit.dev/v1alpha1
kind: TestSuite
cases:
  # first
  - name: rejected now
    object: {apiVersion: v1, kind: Pod, metadata: {name: 'p'}}
    expect:
      allowed: false
      code: 403
      message: 'admission webhook "w" denied: it''s "quoted"'
      warnings:
        - 'careful: a colon'
      called:
        - w
      fields:
        spec.gone: null
        spec.image: new:1
    # trailing comment of the case
  - name: untouched
    object: {apiVersion: v1, kind: Pod}
    expect: {allowed: true, called: [x]}
  - name: regexp kept
    object: {apiVersion: v1, kind: Pod}
    expect:
      allowed: false
      code: 422
      reason: Invalid
      messageRegexp: denied
      warnings: []
      called:
        - w
      outcomes:
        w: denied
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("updated file (-want +got):\n%s", diff)
	}
	// The rewritten file reads back with the new expectations, which the results pass.
	again, err := Parse("t.yaml", got)
	if err != nil {
		t.Fatalf("the updated file does not parse: %v", err)
	}
	if failures := Check(again.Cases[0].Expect, rejected); len(failures) > 0 {
		t.Errorf("the updated expectations fail on the result they came from: %v", failures)
	}
}
