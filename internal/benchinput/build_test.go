package benchinput

import (
	"bytes"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The build has the CRD and n objects, each a document that parses, of the kinds it says.
func TestBuild(t *testing.T) {
	docs := bytes.Split(Build(100), []byte("\n---\n"))
	if len(docs) != 101 {
		t.Fatalf("%d documents, want the CRD and 100 objects", len(docs))
	}
	kinds := map[string]int{}
	for i, doc := range docs {
		var obj struct{ Kind string }
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			t.Fatalf("document %d: %v\n%s", i, err, doc)
		}
		kinds[obj.Kind]++
	}
	for _, kind := range []string{"CustomResourceDefinition", "Namespace", "LimitRange", "Deployment", "Service", "ConfigMap", "Widget", "Pod"} {
		if kinds[kind] == 0 {
			t.Errorf("no %s among %v", kind, kinds)
		}
	}
	if !strings.Contains(Policy, "ValidatingAdmissionPolicyBinding") {
		t.Error("the policy has no binding")
	}
}
