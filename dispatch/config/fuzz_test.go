package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse: it must return an error or a well-formed Set, and
// validating that Set must not panic either. Seeds are the files under testdata plus the corpus
// in testdata/fuzz/FuzzParse.
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
		_, _ = set.Validate()
	})
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
