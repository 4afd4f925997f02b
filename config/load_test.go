package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoad(t *testing.T) {
	manifests := filepath.Join("testdata", "manifests")
	tests := []struct {
		name    string
		opts    Options
		paths   []string
		want    []string
		wantErr string
	}{{
		name:  "a file with several documents",
		paths: []string{filepath.Join("testdata", "webhooks.yaml")},
		want: []string{
			"testdata/webhooks.yaml:3 (document 1, item 0): mutating pod-defaults",
			"testdata/webhooks.yaml:22 (document 2, item 0): validating pod-policy",
			"testdata/webhooks.yaml:46 (document 3, item 0): apps/v1 Deployment webhook",
			"testdata/webhooks.yaml:63 (document 4, item 0): v1 Service webhook",
		},
	}, {
		name:  "a List",
		paths: []string{filepath.Join("testdata", "list.yaml")},
		want: []string{
			"testdata/list.yaml:11 (document 1, item 1): validating from-typed-list",
			"testdata/list.yaml:4 (document 1, item 1): v1 Namespace pod-policy",
		},
	}, {
		name:  "a directory: its manifests in lexical order, not its subdirectories",
		paths: []string{manifests},
		want: []string{
			"testdata/manifests/a-mutating.yaml:1 (document 1, item 0): mutating a",
			"testdata/manifests/b-validating.json:1 (document 1, item 0): validating b",
			"testdata/manifests/b-validating.json:14 (document 2, item 0): v1 Namespace ns",
			"testdata/manifests/c-namespace.yml:1 (document 1, item 0): v1 Namespace c",
		},
	}, {
		name:  "a directory, recursively",
		opts:  Options{Recursive: true},
		paths: []string{manifests},
		want: []string{
			"testdata/manifests/a-mutating.yaml:1 (document 1, item 0): mutating a",
			"testdata/manifests/b-validating.json:1 (document 1, item 0): validating b",
			"testdata/manifests/nested/d-validating.yaml:1 (document 1, item 0): validating d",
			"testdata/manifests/b-validating.json:14 (document 2, item 0): v1 Namespace ns",
			"testdata/manifests/c-namespace.yml:1 (document 1, item 0): v1 Namespace c",
		},
	}, {
		name:  "files and directories together, in argument order",
		paths: []string{filepath.Join(manifests, "nested"), filepath.Join(manifests, "a-mutating.yaml")},
		want: []string{
			"testdata/manifests/a-mutating.yaml:1 (document 1, item 0): mutating a",
			"testdata/manifests/nested/d-validating.yaml:1 (document 1, item 0): validating d",
		},
	}, {
		name:    "a file named by path is read whatever its extension",
		paths:   []string{filepath.Join(manifests, "README.md")},
		wantErr: "testdata/manifests/README.md:1: object has no kind",
	}, {
		name:    "a missing file",
		paths:   []string{filepath.Join("testdata", "missing.yaml"), filepath.Join("testdata", "webhooks.yaml")},
		wantErr: "stat testdata/missing.yaml: no such file or directory",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Load(tc.opts, tc.paths...)
			if diff := cmp.Diff(tc.wantErr, errString(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, summarize(set)); diff != "" {
				t.Errorf("set (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadReportsEveryFile(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"1.yaml": "kind: A\n",
		"2.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: ok}\n",
		"3.json": "{",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Load(Options{}, dir)
	want := filepath.Join(dir, "1.yaml") + ":1: A has no apiVersion\n" + filepath.Join(dir, "3.json") + ":1: unexpected EOF"
	if diff := cmp.Diff(want, errString(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLoadAround reads the inputs twice (Options.Around): standard input too, spooled; the
// second reading sees what Others saw, a file that did not read the first time included, after
// the first reading's Set is given to Around.
func TestLoadAround(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	// The second document is read, the third is not a document of an object.
	if err := os.WriteFile(bad, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: before}\n---\nkind: A\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdin := strings.NewReader(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: hook}
webhooks: []
---
apiVersion: v1
kind: Namespace
metadata: {name: ns}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: server, namespace: ns}
`)
	var first, second []string
	configurationsSeen := -1
	set, err := Load(Options{
		KeepGoing: true,
		Stdin:     stdin,
		Others: func(o Object) bool {
			first = append(first, o.Source.String()+" "+o.Object.GetName())
			return false
		},
		Around: func(read *Set) func(Object) {
			configurationsSeen = len(read.Validating)
			return func(o Object) { second = append(second, o.Source.String()+" "+o.Object.GetName()) }
		},
	}, "-", bad)
	if want := bad + ":5: A has no apiVersion"; errString(err) != want {
		t.Errorf("error: got %q, want %q", errString(err), want)
	}
	if set == nil || len(set.Validating) != 1 || configurationsSeen != 1 {
		t.Fatalf("the first reading's configuration was not given to Around (set %v, Around saw %d)", set, configurationsSeen)
	}
	if len(first) != 3 {
		t.Errorf("the first reading saw %q, want the Namespace, the Deployment and the ConfigMap", first)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("the second reading saw otherwise than the first (-first +second):\n%s", diff)
	}
}

// TestLoadAroundFileChanged: a file that holds other objects when read the second time changed
// in between, which Load says rather than read two different inputs as one.
func TestLoadAroundFileChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(path, []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(Options{Around: func(*Set) func(Object) {
		if err := os.WriteFile(path, []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return func(Object) {}
	}}, path)
	if want := path + " changed while it was read: 1 object at first, 2 when read again"; errString(err) != want {
		t.Errorf("error %q, want %q", errString(err), want)
	}
}
