package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/yaml"
)

// FuzzParse feeds arbitrary bytes to Parse: it must return an error or a well-formed Set, and
// validating that Set must not panic either. What it accepts round-trips: the configurations
// written back as YAML parse to the same configurations, and validate with the same problems.
// Seeds are the files under testdata plus the corpus in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"webhooks.yaml", "list.yaml", "manifests/b-validating.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, filepath.Ext(name) == ".json")
	}
	f.Add([]byte(minimalMutating), false)
	f.Add([]byte(setYAML), false)
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		name := "in.yaml"
		if asJSON {
			name = "in.json"
		}
		set, err := Parse(name, data)
		if err != nil {
			if set != nil {
				t.Fatalf("a Set along with an error: %v", err)
			}
			return
		}
		checkWellFormed(t, set, name)
		// Validation compiles match conditions: arbitrary expressions must not panic either.
		warnings, verr := set.Validate()

		var docs []string
		for _, c := range set.MutatingConfigs() {
			docs = append(docs, mustYAML(t, c))
		}
		for _, c := range set.ValidatingConfigs() {
			docs = append(docs, mustYAML(t, c))
		}
		if len(docs) == 0 {
			return
		}
		again, err := Parse("again.yaml", []byte(strings.Join(docs, "---\n")))
		if err != nil {
			t.Fatalf("the configurations Parse accepted, written back, do not parse: %v\n%s", err, strings.Join(docs, "---\n"))
		}
		if diff := cmp.Diff(set.MutatingConfigs(), again.MutatingConfigs(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("mutating configurations change in a round trip (-first +again):\n%s", diff)
		}
		if diff := cmp.Diff(set.ValidatingConfigs(), again.ValidatingConfigs(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("validating configurations change in a round trip (-first +again):\n%s", diff)
		}
		if len(set.Others) > 0 {
			return // policies and other objects are checked with the configurations they came with
		}
		againWarnings, againErr := again.Validate()
		if diff := cmp.Diff(withoutLocations(problems(warnings, verr)), withoutLocations(problems(againWarnings, againErr))); diff != "" {
			t.Fatalf("validation differs after a round trip (-first +again):\n%s", diff)
		}
	})
}

func mustYAML(t *testing.T, v any) string {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatalf("writing a parsed configuration: %v", err)
	}
	return string(data)
}

// problems lists the warnings and the error's lines.
func problems(warnings []string, err error) []string {
	out := append([]string(nil), warnings...)
	if err != nil {
		out = append(out, strings.Split(err.Error(), "\n")...)
	}
	return out
}

// location is where a problem was found (file:line:), which differs between the two parses.
var location = regexp.MustCompile(`(in|again)\.(yaml|json):\d+(:\d+)?:? ?`)

func withoutLocations(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = location.ReplaceAllString(l, "")
	}
	return out
}

func checkWellFormed(t *testing.T, set *Set, name string) {
	t.Helper()
	checkSource := func(s Source) {
		if s.File != name || s.Line < 1 || s.Document < 1 {
			t.Fatalf("bad source %#v", s)
		}
	}
	for _, m := range set.Mutating {
		checkSource(m.Source)
		for _, w := range m.Config.Webhooks {
			if w.FailurePolicy == nil || w.MatchPolicy == nil || w.NamespaceSelector == nil || w.ObjectSelector == nil || w.TimeoutSeconds == nil || w.ReinvocationPolicy == nil {
				t.Fatalf("mutating webhook %q not defaulted", w.Name)
			}
		}
	}
	for _, v := range set.Validating {
		checkSource(v.Source)
		for _, w := range v.Config.Webhooks {
			if w.FailurePolicy == nil || w.MatchPolicy == nil || w.NamespaceSelector == nil || w.ObjectSelector == nil || w.TimeoutSeconds == nil {
				t.Fatalf("validating webhook %q not defaulted", w.Name)
			}
		}
	}
	for _, o := range set.Others {
		checkSource(o.Source)
		if o.Object.GetKind() == "" || o.Object.GetAPIVersion() == "" {
			t.Fatalf("object without kind or apiVersion: %v", o.Object.Object)
		}
	}
}
