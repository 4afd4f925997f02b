package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeFiles writes files (path: content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// scanDir holds one input of each kind: objects that read, a document that does not, files that
// hold nothing, a kustomize base.
func scanDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"one.yaml":                "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
		"broken.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\napiVersion: v1\nkind: [unclosed\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\n",
		"empty.yaml":              "# nothing here\n",
		"emptydir/nothing.yaml":   "---\n",
		"base/kustomization.yaml": "namePrefix: prod-\nresources: [cm.yaml]\n",
		"base/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: e}\n",
	})
	return dir
}

// Scan reports every problem Read reports, in the same words, and calls fn with every object
// that reads, those of a file with a problem among them; Read returns the same objects when
// nothing is wrong.
func TestScanIsRead(t *testing.T) {
	dir := scanDir(t)
	stdin := "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
	in := func(name string) string { return filepath.Join(dir, name) }
	base := in("base") + ` holds kustomize's input, not what is applied: kustomize build renames the objects (namePrefix "prod-", nameSuffix ""); give what kustomize builds from the overlay you apply: kustomize build OVERLAY | admit review -f -`
	tests := []struct {
		name  string
		paths []string
		// gone is a file removed once the paths are expanded.
		gone    string
		want    []string
		wantErr []string
	}{{
		name:  "every input reads",
		paths: []string{in("one.yaml"), "-"},
		want:  []string{in("one.yaml") + ":1 Namespace a", in("one.yaml") + ":5 ConfigMap b", "<stdin>:1 Secret s"},
	}, {
		name:    "a document that does not read",
		paths:   []string{in("broken.yaml"), in("one.yaml")},
		want:    []string{in("broken.yaml") + ":1 ConfigMap c", in("broken.yaml") + ":8 ConfigMap d", in("one.yaml") + ":1 Namespace a", in("one.yaml") + ":5 ConfigMap b"},
		wantErr: []string{in("broken.yaml") + ":6: yaml: "},
	}, {
		name:    "inputs that hold nothing",
		paths:   []string{in("empty.yaml"), in("emptydir"), in("one.yaml")},
		want:    []string{in("one.yaml") + ":1 Namespace a", in("one.yaml") + ":5 ConfigMap b"},
		wantErr: []string{in("empty.yaml") + " holds no objects", in("emptydir") + ": its files hold no objects"},
	}, {
		name:    "a kustomize base",
		paths:   []string{in("base")},
		want:    []string{in("base/cm.yaml") + ":1 ConfigMap e"},
		wantErr: []string{base},
	}, {
		name:    "a file gone after it was listed",
		paths:   []string{in("one.yaml"), in("gone.yaml")},
		gone:    "gone.yaml",
		want:    []string{in("one.yaml") + ":1 Namespace a", in("one.yaml") + ":5 ConfigMap b"},
		wantErr: []string{"open " + in("gone.yaml") + ": no such file or directory"},
	}, {
		name:    "every problem at once",
		paths:   []string{in("empty.yaml"), in("broken.yaml"), "-", in("base"), in("emptydir")},
		want:    []string{in("broken.yaml") + ":1 ConfigMap c", in("broken.yaml") + ":8 ConfigMap d", "<stdin>:1 Secret s", in("base/cm.yaml") + ":1 ConfigMap e"},
		wantErr: []string{in("empty.yaml") + " holds no objects", in("broken.yaml") + ":6: yaml: ", in("emptydir") + ": its files hold no objects", base},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.gone != "" {
				writeFiles(t, dir, map[string]string{tt.gone: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: g}\n"})
			}
			scanned, read := expandAll(t, tt.paths, stdin), expandAll(t, tt.paths, stdin)
			if tt.gone != "" {
				os.Remove(in(tt.gone))
			}
			var got []string
			scanErr := scanned.Scan(func(o Object) { got = append(got, o.Source.String()+" "+o.Object.GetKind()+" "+o.Object.GetName()) })
			objects, readErr := read.Read()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("objects scanned (-want +got):\n%s", diff)
			}
			if errString(scanErr) != errString(readErr) {
				t.Errorf("Scan: %v\nRead: %v", scanErr, readErr)
			}
			checkErr(t, scanErr, tt.wantErr)
			if readErr == nil && len(objects) != len(got) {
				t.Errorf("Read: %d objects, Scan %d", len(objects), len(got))
			}
			if readErr != nil && objects != nil {
				t.Errorf("Read: %d objects with its error, want none", len(objects))
			}
		})
	}
}

// expandAll expands paths, standard input reading stdin.
func expandAll(t *testing.T, paths []string, stdin string) *Inputs {
	t.Helper()
	in, err := Expand(paths, Options{Stdin: strings.NewReader(stdin)})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// checkErr checks that err has one line (or paragraph) per problem wanted, each starting as
// wanted, in order.
func checkErr(t *testing.T, err error, want []string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("err = %v, want none", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	rest := err.Error()
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("err lacks %q after the problems before it:\n%v", w, err)
			return
		}
		rest = rest[i+len(w):]
	}
}
