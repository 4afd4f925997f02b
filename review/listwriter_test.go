package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/structured"
)

// longWarning is longer than a YAML line: the whole List folds it.
const longWarning = "metadata.annotations[example.com/owner]: the annotation is deprecated and will be removed in a later release; use the label example.com/owner instead, which selectors can read"

// admittedOutcome is an admitted CREATE of a ConfigMap whose object holds value.
func admittedOutcome(source, namespace, name, value string, warnings ...string) *Outcome {
	object, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": namespace}, "data": map[string]any{"value": value}})
	return &Outcome{
		Source: source,
		Request: &engine.Request{
			Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
			Operation: admissionv1.Create, Namespace: namespace, Name: name,
		},
		Result: &engine.Result{Allowed: true, Object: object, Warnings: warnings, AuditAnnotations: map[string]string{"example.com/note": value}},
	}
}

// rejectedOutcome is a CREATE of a Pod rejected with message.
func rejectedOutcome(source, name, message string) *Outcome {
	return &Outcome{
		Source: source,
		Request: &engine.Request{
			Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
			Operation: admissionv1.Create, Namespace: "shop", Name: name,
		},
		Result: &engine.Result{Status: &metav1.Status{Status: metav1.StatusFailure, Code: 422, Reason: metav1.StatusReasonInvalid, Message: message}},
	}
}

// unreviewedOutcome is an object not reviewed: an error, or skipped when skipped is set.
func unreviewedOutcome(source, kind, name, problem string, skipped bool) *Outcome {
	o := &Outcome{Source: source, Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": kind, "metadata": map[string]any{"name": name}}}}
	if skipped {
		o.Skipped = problem
	} else {
		o.Err = errors.New(problem)
	}
	return o
}

// writeList writes outcomes with a ListWriter.
func writeList(t testing.TB, format string, outcomes []*Outcome) string {
	t.Helper()
	out, err := tryWriteList(format, outcomes)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tryWriteList writes outcomes with a ListWriter, and says why it could not.
func tryWriteList(format string, outcomes []*Outcome) (string, error) {
	var b bytes.Buffer
	lw, err := NewListWriter(&b, format)
	if err != nil {
		return "", err
	}
	for _, o := range outcomes {
		if err := lw.Write(o); err != nil {
			return "", err
		}
	}
	if err := lw.Close(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// wholeList writes the List of outcomes at once.
func wholeList(t testing.TB, format string, outcomes []*Outcome) string {
	t.Helper()
	var b bytes.Buffer
	if err := structured.Write(&b, format, ListOf(outcomes)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A List written an entry at a time is the List written at once, byte for byte, in JSON and in
// YAML, whatever its entries hold.
func TestListWriterIsTheWholeList(t *testing.T) {
	tests := []struct {
		name     string
		outcomes []*Outcome
		// yamlFolds says an entry holds longWarning, which the YAML folds over lines.
		yamlFolds bool
	}{
		{name: "no entry"},
		{name: "one entry", outcomes: []*Outcome{admittedOutcome("build.yaml:1", "shop", "settings", "a")}},
		{name: "a long warning", yamlFolds: true, outcomes: []*Outcome{admittedOutcome("build.yaml:1", "shop", "settings", "a", longWarning)}},
		{name: "many entries", yamlFolds: true, outcomes: []*Outcome{
			admittedOutcome("<stdin>:1", "shop", "settings", "<b>a & b</b>", "one", longWarning),
			rejectedOutcome("<stdin>:9", "api", `pods "api" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true) & more <see docs>`),
			unreviewedOutcome("<stdin>:20", "Gadget", "g", `<stdin>:20: no resource for kind "Gadget" in group "example.com" version "v1"`, false),
			unreviewedOutcome("<stdin>:24", "Gadget", "h", `no resource for kind "Gadget" in group "example.com" version "v1"`, true),
			admittedOutcome("café/über.yaml:3", "équipe", "größe-日本", "naïve — “quoted” ✓"),
			admittedOutcome("multi.yaml:1", "shop", "lines", "line one\nline two\n  indented three\n", "first line\nsecond line"),
			rejectedOutcome("multi.yaml:8", "p", "denied:\n- one\n- two: with a colon\n\ttabbed"),
			admittedOutcome("odd.yaml:1", "shop", "odd", "yes", "- looks like a list", "key: value", "'quoted'", "#comment", "true", "0x10", " leading space", "trailing space ", ""),
		}},
		{name: "only not reviewed", outcomes: []*Outcome{
			unreviewedOutcome("a.yaml:1", "Gadget", "g", "a.yaml:1: "+longWarning, false),
			unreviewedOutcome("a.yaml:5", "Gadget", "h", "skipped: "+longWarning, true),
		}, yamlFolds: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, format := range []string{structured.JSON, structured.YAML} {
				want := wholeList(t, format, tt.outcomes)
				if diff := cmp.Diff(want, writeList(t, format, tt.outcomes)); diff != "" {
					t.Errorf("%s (-whole +entry at a time):\n%s", format, diff)
				}
				// Present whole in the JSON, the long warning is over several lines of the YAML.
				if whole := strings.Contains(want, longWarning); tt.yamlFolds && whole != (format == structured.JSON) {
					t.Errorf("%s holds the long warning on one line: %v:\n%s", format, whole, want)
				}
			}
		})
	}
}

// A ListWriter writes only json or yaml; after Close, Write is an error and Close writes nothing
// more.
func TestListWriterClose(t *testing.T) {
	if _, err := NewListWriter(&bytes.Buffer{}, "text"); err == nil {
		t.Error("NewListWriter(text): no error")
	}
	for _, format := range []string{structured.JSON, structured.YAML} {
		var b bytes.Buffer
		lw, err := NewListWriter(&b, format)
		if err != nil {
			t.Fatal(err)
		}
		o := admittedOutcome("a.yaml:1", "shop", "settings", "a")
		if err := lw.Write(o); err != nil {
			t.Fatal(err)
		}
		if err := lw.Close(); err != nil {
			t.Fatal(err)
		}
		closed := b.String()
		if err := lw.Write(o); err == nil {
			t.Errorf("%s: Write after Close: no error", format)
		}
		if err := lw.Close(); err != nil {
			t.Errorf("%s: Close again: %v", format, err)
		}
		if diff := cmp.Diff(wholeList(t, format, []*Outcome{o}), b.String()); diff != "" || b.String() != closed {
			t.Errorf("%s: written after Close (-want +got):\n%s", format, diff)
		}
	}
}

// FuzzListWriter holds a List written an entry at a time to the List written at once, for any
// strings in its entries.
func FuzzListWriter(f *testing.F) {
	f.Add("build.yaml:1", "shop", "settings", "value", "a warning", "a message", "an error")
	f.Add("<stdin>:3", "", "x", "<b>&amp;</b>", longWarning, "line one\nline two", "- item")
	f.Add("café.yaml:1", "équipe", "日本", "naïve", "key: value # comment", "  ", "\t\x00\xff")
	f.Fuzz(func(t *testing.T, source, namespace, name, value, warning, message, problem string) {
		outcomes := []*Outcome{
			admittedOutcome(source, namespace, name, value, warning, message),
			rejectedOutcome(source, name, message),
			unreviewedOutcome(source, "Gadget", name, problem, false),
			unreviewedOutcome(source, "Gadget", name, problem, true),
			admittedOutcome(source, namespace, name, value),
		}
		for _, format := range []string{structured.JSON, structured.YAML} {
			var whole bytes.Buffer
			wholeErr := structured.Write(&whole, format, ListOf(outcomes))
			got, err := tryWriteList(format, outcomes)
			switch {
			case wholeErr != nil:
				// A string YAML cannot hold (a control character such as DEL): the List
				// written an entry at a time fails too.
				if err == nil {
					t.Errorf("%s: the whole List fails (%v), an entry at a time it does not", format, wholeErr)
				}
			case err != nil:
				t.Errorf("%s: an entry at a time: %v", format, err)
			default:
				if diff := cmp.Diff(whole.String(), got); diff != "" {
					t.Errorf("%s (-whole +entry at a time):\n%s", format, diff)
				}
			}
		}
	})
}
