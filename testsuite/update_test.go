package testsuite

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/engine"
)

// --update rewrites the expect blocks of the cases it is given results for, and leaves every
// other byte of the file as written: comments, flow style, quoting, the other cases. The
// comments of the expectations it rewrites are kept on their keys.
func TestUpdateRewritesOnlyExpectBlocks(t *testing.T) {
	file := updateFile
	s, err := Parse("t.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	rejected := &engine.Result{
		Allowed: false, Object: json.RawMessage(`{"spec":{"image":"new:1"}}`),
		Status:   &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: `admission webhook "w" denied: it's "quoted"`},
		Rows:     []engine.Row{{Name: "w", Type: "validating", Outcome: engine.OutcomeDenied}},
		Warnings: []string{"careful: a colon"},
	}
	if err := s.Cases[0].Update(rejected); err != nil {
		t.Fatal(err)
	}
	if err := s.Cases[2].Update(&engine.Result{Allowed: false, Status: &metav1.Status{Code: 422, Reason: metav1.StatusReasonInvalid, Message: "it was denied"},
		Rows: []engine.Row{{Name: "w", Type: "validating", Outcome: engine.OutcomeDenied}}}); err != nil {
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
      allowed: false # was admitted
      code: 403
      message: 'admission webhook "w" denied: it''s "quoted"'
      warnings:
        - 'careful: a colon'
      called:
        - w
      outcomes:
        w: denied
      # checked fields
      fields:
        spec.gone: null
        spec.image: new:1
    # trailing comment of the case
  - name: untouched
    object: {apiVersion: v1, kind: Pod}
    expect: {allowed: true, called: [x]}
  - name: regexp kept
    object: {apiVersion: v1, kind: Pod}
    expect: # a denial
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

// A reused anchor (expect: *ok) and merge keys read as the mapping they stand for; --update
// writes each case's own expectations, keeps the anchor where it was defined, the comment of
// the expect line, and rewrites an expectation file in place.
func TestUpdateAnchorsAndObjects(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "want.yaml", "# the admitted object\napiVersion: v1\nkind: Pod\n")
	file := `apiVersion: admit.dev/v1alpha1
kind: TestSuite
cases:
- name: anchored
  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  expect: &ok  # admitted as is
    allowed: true
    object: {metadata: {labels: {a: x}}}
- name: aliased
  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  expect: *ok
- name: merged
  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  expect:
    <<: *ok
    wholeObject: want.yaml
`
	s, err := Parse(filepath.Join(dir, "t.yaml"), []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Cases {
		if c.Expect.Allowed == nil || !*c.Expect.Allowed || c.Expect.Object == nil {
			t.Fatalf("case %q: expectations not read through the anchor: %+v", c.Name, c.Expect)
		}
	}
	if s.Cases[2].Expect.WholeObjectFile != filepath.Join(dir, "want.yaml") {
		t.Fatalf("wholeObject read from %q", s.Cases[2].Expect.WholeObjectFile)
	}
	res := &engine.Result{Allowed: true, Object: json.RawMessage(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","uid":"u","labels":{"a":"y","b":"z"}},"spec":{"enabled":"true"}}`)}
	for _, c := range s.Cases {
		if err := c.Update(res); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: admit.dev/v1alpha1
kind: TestSuite
cases:
- name: anchored
  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  expect: &ok
    allowed: true # admitted as is
    called: []
    object:
      metadata:
        labels:
          a: "y"
- name: aliased
  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  expect:
    allowed: true # admitted as is
    called: []
    object:
      metadata:
        labels:
          a: "y"
- name: merged
  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  expect:
    allowed: true # admitted as is
    called: []
    object:
      metadata:
        labels:
          a: "y"
    wholeObject: want.yaml
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("updated file (-want +got):\n%s", diff)
	}
	files, err := s.Files()
	if err != nil {
		t.Fatal(err)
	}
	wantObject := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n    a: \"y\"\n    b: z\nspec:\n  enabled: \"true\"\n"
	if diff := cmp.Diff(map[string][]byte{filepath.Join(dir, "want.yaml"): []byte(wantObject)}, files); diff != "" {
		t.Errorf("rewritten expectation files (-want +got):\n%s", diff)
	}
	again, err := Parse(filepath.Join(dir, "t.yaml"), got)
	if err != nil {
		t.Fatalf("the updated file does not parse: %v", err)
	}
	if failures := Check(again.Cases[1].Expect, res); len(failures) > 0 {
		t.Errorf("the updated expectations fail on the result they came from: %v", failures)
	}
}
