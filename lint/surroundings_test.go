package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/config"
)

// TestTwoPassesKeepWhatTheRulesRead lints a fixture whose findings depend on objects outside the
// webhook's namespace or without one, and checks that the reading in two passes keeps them and
// drops what no configuration refers to. lintFiles checks the findings equal a whole reading's.
func TestTwoPassesKeepWhatTheRulesRead(t *testing.T) {
	path := filepath.Join("testdata", "twopass", "surroundings.yaml")
	findings := lintFiles(t, Options{}, path)
	var got []string
	for _, f := range findings {
		got = append(got, f.Rule)
		if f.Rule == "E05" && !strings.Contains(f.Message, "Job cert-jobs/certgen") {
			t.Errorf("E05 does not name the Job another namespace runs as a bound ServiceAccount: %s", f.Message)
		}
	}
	if diff := cmp.Diff([]string{"B07", "B08", "E05", "F02"}, got); diff != "" {
		t.Errorf("rules found (-want +got):\n%s", diff)
	}

	s := NewSurroundings()
	if _, err := config.Load(config.Options{Others: s.Keep, Around: s.Around}, path); err != nil {
		t.Fatal(err)
	}
	kept := map[string][]string{}
	for key := range s.inv.services {
		kept["services"] = append(kept["services"], key.String())
	}
	for _, w := range s.inv.workloads {
		kept["workloads"] = append(kept["workloads"], w.String())
	}
	for _, w := range s.inv.jobs {
		kept["jobs"] = append(kept["jobs"], w.String())
	}
	for kind, refs := range s.inv.objects {
		for _, ref := range refs {
			kept["objects"] = append(kept["objects"], kind.String()+" "+namespacedName{ref.namespace, ref.name}.String())
		}
	}
	want := map[string][]string{
		"services":  {"hook"},
		"workloads": {"Deployment hook"},
		"jobs":      {"Job cert-jobs/certgen"},
		"objects":   {schema.GroupKind{Kind: "ConfigMap"}.String() + " policy-params/defaults", schema.GroupKind{Kind: "ConfigMap"}.String() + " shop/shop"},
	}
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("records kept by the second reading (-want +got):\n%s", diff)
	}
}
