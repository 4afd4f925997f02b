package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// summarize lists what a Set holds, one line per object, in the Set's order.
func summarize(set *Set) []string {
	var out []string
	for _, m := range set.Mutating {
		out = append(out, fmt.Sprintf("%s (document %d, item %d): mutating %s", m.Source, m.Source.Document, m.Source.Item, m.Config.Name))
	}
	for _, v := range set.Validating {
		out = append(out, fmt.Sprintf("%s (document %d, item %d): validating %s", v.Source, v.Source.Document, v.Source.Item, v.Config.Name))
	}
	for _, o := range set.Others {
		out = append(out, fmt.Sprintf("%s (document %d, item %d): %s %s %s", o.Source, o.Source.Document, o.Source.Item, o.Object.GetAPIVersion(), o.Object.GetKind(), o.Object.GetName()))
	}
	return out
}

const minimalMutating = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: m
webhooks:
  - name: m.example.com
    clientConfig:
      url: https://127.0.0.1:8443/m
    sideEffects: None
    admissionReviewVersions: ["v1"]
`

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		data    string
		want    []string
		wantErr string
	}{{
		name: "empty input",
		file: "empty.yaml",
		data: "",
	}, {
		name: "only comments and separators",
		file: "comments.yaml",
		data: "# nothing here\n---\n\n---\n# still nothing\n",
	}, {
		name: "documents start at their first line with content",
		file: "w.yaml",
		data: "---\n# a comment\n\n" + minimalMutating + "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n",
		want: []string{
			"w.yaml:4 (document 1, item 0): mutating m",
			"w.yaml:15 (document 2, item 0): v1 Namespace ns",
		},
	}, {
		name: "separators with comments and document end markers",
		file: "w.yaml",
		data: "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n--- # next\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n...\napiVersion: v1\nkind: Namespace\nmetadata: {name: c}\n",
		want: []string{
			"w.yaml:1 (document 1, item 0): v1 Namespace a",
			"w.yaml:5 (document 2, item 0): v1 Namespace b",
			"w.yaml:9 (document 3, item 0): v1 Namespace c",
		},
	}, {
		name: "a document that is null",
		file: "w.yaml",
		data: "~\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n",
		want: []string{"w.yaml:3 (document 2, item 0): v1 Namespace a"},
	}, {
		name: "a byte order mark",
		file: "w.yaml",
		data: "\ufeffapiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n",
		want: []string{"w.yaml:1 (document 1, item 0): v1 Namespace a"},
	}, {
		name: "a JSON stream",
		file: "w.json",
		data: "{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"a\"}}\n\n  {\"apiVersion\": \"v1\",\n   \"kind\": \"Namespace\", \"metadata\": {\"name\": \"b\"}}",
		want: []string{
			"w.json:1 (document 1, item 0): v1 Namespace a",
			"w.json:3 (document 2, item 0): v1 Namespace b",
		},
	}, {
		name: "JSON sniffed on standard input",
		file: "<stdin>",
		data: "\n{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"a\"}}",
		want: []string{"<stdin>:2 (document 1, item 0): v1 Namespace a"},
	}, {
		name: "YAML on standard input",
		file: "<stdin>",
		data: minimalMutating,
		want: []string{"<stdin>:1 (document 1, item 0): mutating m"},
	}, {
		name: "a List with a typed list inside",
		file: "l.yaml",
		data: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n- apiVersion: admissionregistration.k8s.io/v1\n  kind: MutatingWebhookConfigurationList\n  items:\n  - metadata: {name: typed}\n    webhooks: []\n",
		want: []string{
			"l.yaml:10 (document 1, item 1): mutating typed",
			"l.yaml:4 (document 1, item 1): v1 Namespace a",
		},
	}, {
		name: "an empty List",
		file: "l.yaml",
		data: "apiVersion: v1\nkind: List\n",
	}, {
		name: "a kind ending in List without items is an ordinary object",
		file: "l.yaml",
		data: "apiVersion: shop.example.com/v1\nkind: ShoppingList\nmetadata: {name: groceries}\n",
		want: []string{"l.yaml:1 (document 1, item 0): shop.example.com/v1 ShoppingList groceries"},
	}, {
		name:    "YAML syntax error, with the line counted from the top of the file",
		file:    "w.yaml",
		data:    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n bad: x\n",
		wantErr: "w.yaml:9: yaml: did not find expected key",
	}, {
		name:    "duplicate keys",
		file:    "w.yaml",
		data:    "# first\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  name: c\n",
		wantErr: "w.yaml:7: yaml: key \"name\" already set in map",
	}, {
		name:    "unknown fields, each at its line",
		file:    "w.yaml",
		data:    "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: x\nwebhooks:\n- name: a.b.c\n  namespaceSelecter: {}\n  timeoutSeconds: 3\n- name: b\n  clientConfig:\n    sevice: {}\nstatus: {}\n",
		wantErr: "w.yaml:7: MutatingWebhookConfiguration \"x\": unknown field \"webhooks[0].namespaceSelecter\"\nw.yaml:11: MutatingWebhookConfiguration \"x\": unknown field \"webhooks[1].clientConfig.sevice\"\nw.yaml:12: MutatingWebhookConfiguration \"x\": unknown field \"status\"",
	}, {
		name:    "unknown field in a List item",
		file:    "l.yaml",
		data:    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: admissionregistration.k8s.io/v1\n  kind: ValidatingWebhookConfiguration\n  metadata:\n    name: v\n    labells: {}\n",
		wantErr: "l.yaml:8: ValidatingWebhookConfiguration \"v\": unknown field \"metadata.labells\"",
	}, {
		name:    "duplicate field in JSON",
		file:    "w.json",
		data:    "{\"apiVersion\": \"admissionregistration.k8s.io/v1\",\n \"kind\": \"ValidatingWebhookConfiguration\",\n \"metadata\": {\"name\": \"x\"},\n \"webhooks\": [],\n \"webhooks\": []}",
		wantErr: "w.json:4: ValidatingWebhookConfiguration \"x\": duplicate field \"webhooks\"",
	}, {
		name:    "an admission policy's misspelt field is named, at its line",
		file:    "p.yaml",
		data:    "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\nspec:\n  matchConstraint:\n    resourceRules: []\n  validations:\n  - expression: \"true\"\n    messageExpresion: \"'no'\"\n",
		wantErr: "p.yaml:5: ValidatingAdmissionPolicy \"p\": unknown field \"spec.matchConstraint\"\np.yaml:9: ValidatingAdmissionPolicy \"p\": unknown field \"spec.validations[0].messageExpresion\"",
	}, {
		name:    "a binding's misspelt field",
		file:    "b.yaml",
		data:    "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p, validationAction: [Deny]}\n",
		wantErr: "b.yaml:4: ValidatingAdmissionPolicyBinding \"b\": unknown field \"spec.validationAction\"",
	}, {
		name:    "a value of the wrong type",
		file:    "w.yaml",
		data:    "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: x\nwebhooks:\n- name: a.b.c\n  timeoutSeconds: ten\n",
		wantErr: "w.yaml:1: decoding ValidatingWebhookConfiguration \"x\": json: cannot unmarshal string into Go struct field ValidatingWebhook.webhooks.timeoutSeconds of type int32",
	}, {
		name:    "v1beta1 was removed",
		file:    "w.yaml",
		data:    strings.Replace(minimalMutating, "/v1", "/v1beta1", 1),
		wantErr: "w.yaml:1: admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration is not served since Kubernetes 1.22: use admissionregistration.k8s.io/v1 (where sideEffects and admissionReviewVersions are required, and failurePolicy defaults to Fail)",
	}, {
		name:    "other versions are not supported",
		file:    "w.yaml",
		data:    "apiVersion: admissionregistration.k8s.io/v2\nkind: ValidatingWebhookConfiguration\n",
		wantErr: "w.yaml:1: admissionregistration.k8s.io/v2 ValidatingWebhookConfiguration is not supported: use admissionregistration.k8s.io/v1",
	}, {
		name:    "no kind",
		file:    "w.yaml",
		data:    "apiVersion: v1\nmetadata:\n  name: a\n",
		wantErr: `w.yaml:1: object "a" has no kind`,
	}, {
		name:    "no apiVersion",
		file:    "w.yaml",
		data:    "kind: Namespace\n",
		wantErr: "w.yaml:1: Namespace has no apiVersion",
	}, {
		name:    "a kind that is not a string",
		file:    "w.yaml",
		data:    "apiVersion: v1\nkind: [Namespace]\n",
		wantErr: "w.yaml:1: kind must be a string, got an array",
	}, {
		name:    "an invalid apiVersion",
		file:    "w.yaml",
		data:    "apiVersion: a/b/c\nkind: Thing\n",
		wantErr: "w.yaml:1: Thing: unexpected GroupVersion string: a/b/c",
	}, {
		name:    "a document that is not an object",
		file:    "w.yaml",
		data:    "- a\n- b\n",
		wantErr: "w.yaml:1: expected an object with apiVersion and kind, got an array",
	}, {
		name:    "a List item that is not an object",
		file:    "l.yaml",
		data:    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n- 42\n",
		wantErr: "l.yaml:7: List item 2: expected an object, got a number",
	}, {
		name:    "content after a separator",
		file:    "w.yaml",
		data:    "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n--- {kind: Namespace}\n",
		wantErr: "w.yaml:4: content after a '---' document separator is not supported: put it on the next line",
	}, {
		name:    "JSON syntax error",
		file:    "w.json",
		data:    "{\"apiVersion\": \"v1\",\n \"kind\": \"Namespace\"}\n{\n\"a\": }",
		wantErr: "w.json:4: invalid character '}' looking for beginning of value",
	}, {
		name:    "truncated JSON",
		file:    "w.json",
		data:    "\n\n{\"apiVersion\": \"v1\",",
		wantErr: "w.json:3: unexpected EOF",
	}, {
		name:    "every problem is reported",
		file:    "w.yaml",
		data:    "kind: A\n---\n- 1\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: fine}\n---\napiVersion: v1\n",
		wantErr: "w.yaml:1: A has no apiVersion\nw.yaml:3: expected an object with apiVersion and kind, got an array\nw.yaml:9: object has no kind",
	}, {
		name:    "Lists nested too deep",
		file:    "l.json",
		data:    strings.Repeat(`{"kind":"List","items":[`, 9) + strings.Repeat(`]}`, 9),
		wantErr: "l.json:1: lists nested more than 8 deep are not supported",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Parse(tc.file, []byte(tc.data))
			if diff := cmp.Diff(tc.wantErr, errString(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				if set != nil {
					t.Errorf("Parse returned a set along with an error")
				}
				return
			}
			if diff := cmp.Diff(tc.want, summarize(set)); diff != "" {
				t.Errorf("set (-want +got):\n%s", diff)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestParseDefaultsWebhooks(t *testing.T) {
	set, err := Parse("w.yaml", []byte(minimalMutating))
	if err != nil {
		t.Fatal(err)
	}
	want := admissionregistrationv1.MutatingWebhook{
		Name:                    "m.example.com",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr("https://127.0.0.1:8443/m")},
		SideEffects:             ptr(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
		FailurePolicy:           ptr(admissionregistrationv1.Fail),
		MatchPolicy:             ptr(admissionregistrationv1.Equivalent),
		NamespaceSelector:       &metav1.LabelSelector{},
		ObjectSelector:          &metav1.LabelSelector{},
		TimeoutSeconds:          ptr(int32(10)),
		ReinvocationPolicy:      ptr(admissionregistrationv1.NeverReinvocationPolicy),
	}
	if diff := cmp.Diff(want, set.Mutating[0].Config.Webhooks[0]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseKeepsOtherObjectsAsRead(t *testing.T) {
	set, err := Parse("d.yaml", []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  paused: false\n  ratio: 0.5\n  future: {anything: [1, two]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"replicas": int64(2), "paused": false, "ratio": 0.5, "future": map[string]any{"anything": []any{int64(1), "two"}}},
	}
	if diff := cmp.Diff(want, set.Others[0].Object.Object); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Documents are decoded in parallel; what Parse returns keeps the input's order: objects in
// document order, every error in document order, whatever finished first.
func TestParseKeepsDocumentOrder(t *testing.T) {
	var in strings.Builder
	var wantNames, wantErrs []string
	for i := range 300 {
		if i > 0 {
			in.WriteString("---\n")
		}
		switch {
		case i%37 == 5:
			fmt.Fprintf(&in, "kind: [unclosed\n")
			wantErrs = append(wantErrs, fmt.Sprintf("in.yaml:%d", 2*i+1))
		case i%41 == 7:
			fmt.Fprintf(&in, "- a list\n")
			wantErrs = append(wantErrs, fmt.Sprintf("in.yaml:%d", 2*i+1))
		default:
			fmt.Fprintf(&in, "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm-%d}}\n", i)
			wantNames = append(wantNames, fmt.Sprintf("cm-%d", i))
		}
	}
	for range 3 {
		_, err := Parse("in.yaml", []byte(in.String()))
		if err == nil {
			t.Fatal("Parse succeeded on documents with errors")
		}
		var gotErrs []string
		for _, line := range strings.Split(err.Error(), "\n") {
			gotErrs = append(gotErrs, strings.Join(strings.SplitN(line, ":", 3)[:2], ":"))
		}
		if diff := cmp.Diff(wantErrs, gotErrs); diff != "" {
			t.Fatalf("errors out of document order (-want +got):\n%s", diff)
		}
	}
	valid := strings.NewReplacer("kind: [unclosed", "{apiVersion: v1, kind: ConfigMap, metadata: {name: x}}", "- a list", "null").Replace(in.String())
	set, err := Parse("in.yaml", []byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	var gotNames []string
	for _, o := range set.Others {
		if name := o.Object.GetName(); name != "x" {
			gotNames = append(gotNames, name)
		}
	}
	if diff := cmp.Diff(wantNames, gotNames); diff != "" {
		t.Errorf("objects out of document order (-want +got):\n%s", diff)
	}
}
