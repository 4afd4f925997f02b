package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// summarize lists what was read, one line per object.
func summarize(objects []Object) []string {
	var out []string
	for _, o := range objects {
		out = append(out, fmt.Sprintf("%s (document %d, item %d): %s %s %s", o.Source, o.Source.Document, o.Source.Item, o.Object.GetAPIVersion(), o.Object.GetKind(), o.Object.GetName()))
	}
	return out
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// parseWith reads data as Parse does, with documents larger than limit read an item at a time.
func parseWith(name, data string, limit int) ([]Object, error) {
	return readAll(newReader(name, strings.NewReader(data), limit))
}

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
	}, {
		name: "only comments and separators",
		file: "comments.yaml",
		data: "# nothing here\n---\n\n---\n# still nothing\n",
	}, {
		name: "documents start at their first line with content",
		file: "w.yaml",
		data: "---\n# a comment\n\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n",
		want: []string{"w.yaml:4 (document 1, item 0): v1 Namespace a", "w.yaml:9 (document 2, item 0): v1 Namespace b"},
	}, {
		name: "separators with comments and document end markers",
		file: "w.yaml",
		data: "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n--- # next\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n...\napiVersion: v1\nkind: Namespace\nmetadata: {name: c}\n",
		want: []string{"w.yaml:1 (document 1, item 0): v1 Namespace a", "w.yaml:5 (document 2, item 0): v1 Namespace b", "w.yaml:9 (document 3, item 0): v1 Namespace c"},
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
		want: []string{"w.json:1 (document 1, item 0): v1 Namespace a", "w.json:3 (document 2, item 0): v1 Namespace b"},
	}, {
		name: "JSON sniffed on standard input",
		file: "<stdin>",
		data: "\n{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"a\"}}",
		want: []string{"<stdin>:2 (document 1, item 0): v1 Namespace a"},
	}, {
		name: "a List with a typed list inside",
		file: "l.yaml",
		data: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n- apiVersion: v1\n  kind: NamespaceList\n  items:\n  - metadata: {name: typed}\n",
		want: []string{"l.yaml:4 (document 1, item 1): v1 Namespace a", "l.yaml:10 (document 1, item 1): v1 Namespace typed"},
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
		name:    "several duplicate keys: every line named",
		file:    "w.yaml",
		data:    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  name: c\ndata:\n  x: a\n  x: b\n",
		wantErr: "w.yaml:5: yaml: unmarshal errors:\n  line 5: key \"name\" already set in map\n  line 8: key \"x\" already set in map",
	}, {
		name:    "no kind",
		file:    "w.yaml",
		data:    "apiVersion: v1\nmetadata:\n  name: a\n",
		wantErr: `w.yaml:1: object "a" has no kind`,
	}, {
		name:    "a List cut off before its kind",
		file:    "dump.yaml",
		data:    "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n",
		wantErr: "dump.yaml:1: a List without its kind: the input looks cut off (kubectl writes a List's kind after its items)",
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
		name:    "a JSON array",
		file:    "w.json",
		data:    "[{\"apiVersion\": \"v1\", \"kind\": \"Namespace\"}]",
		wantErr: "w.json:1: expected an object with apiVersion and kind, got an array",
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
	}, {
		name:    "a template",
		file:    "t.yaml",
		data:    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n",
		wantErr: "t.yaml:1: yaml: invalid map key: map[interface {}]interface {}{\".Values.name\":interface {}(nil)}\nt.yaml: this looks like a template ({{ ... }}), not a manifest: render it first (helm template RELEASE CHART, or your templating tool) and read the output",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objects, err := Parse(tc.file, []byte(tc.data))
			if diff := cmp.Diff(tc.wantErr, errString(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, summarize(objects)); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}

// kubectlList is a List as kubectl get -o yaml prints it.
const kubectlList = `apiVersion: v1
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: first
    namespace: shop
  data:
    script: |
      #!/bin/sh

      echo "- not an item"
    empty: ""
# a comment between items
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    namespace: shop
    labels: {app: web}
  spec:
    template:
      spec:
        containers:
        - name: web
          image: nginx
-
  apiVersion: v1
  kind: Namespace
  metadata:
    name: shop
kind: List
metadata:
  resourceVersion: ""
`

// TestStreamingMatchesWhole reads documents both ways — whole, and an item at a time as a
// document over the size limit is — and requires the same objects, sources and errors.
func TestStreamingMatchesWhole(t *testing.T) {
	indented := strings.ReplaceAll(strings.ReplaceAll(kubectlList, "\n- ", "\n  - "), "\n-\n", "\n  -\n")
	indented = strings.ReplaceAll(indented, "\n  ", "\n    ")
	indented = strings.ReplaceAll(indented, "\n    - apiVersion", "\n  - apiVersion")
	for _, tc := range []struct {
		name, file, data string
		// streamed says the streaming read must differ from the whole read only in this error.
		streamErr string
	}{
		{name: "kubectl's List", file: "dump.yaml", data: kubectlList},
		{name: "after another document", file: "dump.yaml", data: "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n" + kubectlList + "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: z}\n"},
		{name: "items indented", file: "dump.yaml", data: "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Namespace\n    metadata:\n      name: a\n  - apiVersion: v1\n    kind: Namespace\n    metadata: {name: b}\n"},
		{name: "a typed List, its kind first", file: "pods.yaml", data: "apiVersion: v1\nkind: NamespaceList\nitems:\n- metadata:\n    name: a\n- metadata:\n    name: b\n"},
		{name: "a List item that is not an object", file: "l.yaml", data: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n- 42\n"},
		{name: "an item with a duplicate key", file: "l.yaml", data: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  kind: Namespace\n  metadata: {name: a}\n"},
		{name: "an item without a kind", file: "l.yaml", data: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: b}\n"},
		{name: "items that are not a list", file: "o.yaml", data: "apiVersion: example.com/v1\nkind: Basket\nmetadata: {name: a}\nitems:\n  apple: 3\n"},
		{name: "a List cut off", file: "dump.yaml", data: kubectlList[:strings.Index(kubectlList, "kind: List")]},
		{name: "a syntax error after the items", file: "dump.yaml", data: kubectlList + "metadata: [\n"},
		{name: "JSON as kubectl prints it", file: "dump.json", data: `{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "a"}
        },
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b", "namespace": "a"}, "data": {"x": "]}\"["}}
    ],
    "kind": "List",
    "metadata": {"resourceVersion": ""}
}
`},
		{name: "a JSON typed List", file: "ns.json", data: `{"kind": "NamespaceList", "apiVersion": "v1", "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]}`},
		{name: "a JSON List cut off", file: "dump.json", data: `{"apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}, {"apiVers`},
		{name: "a JSON item with a syntax error", file: "dump.json", data: "{\"apiVersion\": \"v1\", \"items\": [\n{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"a\"}},\n{\"apiVersion\" \"v1\"}\n], \"kind\": \"List\"}"},
		{name: "an empty JSON List", file: "dump.json", data: `{"apiVersion": "v1", "items": [], "kind": "List"}`},
		{name: "a List whose kind is not a List", file: "o.yaml", data: "apiVersion: example.com/v1\nitems:\n- a: 1\nkind: Basket\nmetadata: {name: b}\n",
			streamErr: "o.yaml:1: a document over 4 MiB whose items are a list is read an item at a time as a List, but its kind is Basket: split it into documents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, wholeErr := parseWith(tc.file, tc.data, 1<<30)
			streamed, streamedErr := parseWith(tc.file, tc.data, 1)
			if tc.streamErr != "" {
				if got := errString(streamedErr); !strings.Contains(got, tc.streamErr) {
					t.Fatalf("streamed error %q, want it to hold %q", got, tc.streamErr)
				}
				return
			}
			if diff := cmp.Diff(errString(wholeErr), errString(streamedErr)); diff != "" {
				t.Errorf("errors differ (-whole +streamed):\n%s", diff)
			}
			if diff := cmp.Diff(summarize(whole), summarize(streamed)); diff != "" {
				t.Errorf("objects differ (-whole +streamed):\n%s", diff)
			}
			for i := range min(len(whole), len(streamed)) {
				if diff := cmp.Diff(whole[i].Object.Object, streamed[i].Object.Object); diff != "" {
					t.Errorf("object %d differs (-whole +streamed):\n%s", i, diff)
				}
			}
		})
	}
}

// TestCutOffListIsAnError cuts kubectl's List at every byte before its kind: no cut reads clean.
func TestCutOffListIsAnError(t *testing.T) {
	end := strings.Index(kubectlList, "\nkind: List")
	for _, limit := range []int{1 << 30, 64} {
		for cut := len("apiVersion: v1\nitems:\n-"); cut <= end; cut++ {
			objects, err := parseWith("dump.yaml", kubectlList[:cut], limit)
			if err == nil {
				t.Fatalf("limit %d: cut at %d (%q...) read %d objects and no error", limit, cut, kubectlList[max(0, cut-20):cut], len(objects))
			}
		}
	}
}

// TestSourceField locates fields of objects read whole and an item at a time alike.
func TestSourceField(t *testing.T) {
	for _, limit := range []int{1 << 30, 1} {
		objects, err := parseWith("dump.yaml", kubectlList, limit)
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			Pos       Position
			Found, OK bool
		}
		got := map[string]result{}
		for _, path := range []string{"metadata.name", "spec.template.spec.containers[0].image", "data.empty", "status"} {
			pos, found, ok := objects[1].Source.Field(path)
			if path == "data.empty" {
				pos, found, ok = objects[0].Source.Field(path)
			}
			got[path] = result{pos, found, ok}
		}
		want := map[string]result{
			"metadata.name":                          {Position{18, 5}, true, true},
			"spec.template.spec.containers[0].image": {Position{26, 11}, true, true},
			"data.empty":                             {Position{13, 5}, true, true},
			"status":                                 {Position{15, 3}, false, true},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("limit %d: (-want +got):\n%s", limit, diff)
		}
	}
}

// TestReaderGoesOnAfterAnError reads past a document that does not decode.
func TestReaderGoesOnAfterAnError(t *testing.T) {
	r := NewReader("w.yaml", strings.NewReader("kind: A\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"))
	var got []string
	for {
		obj, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			got = append(got, "error: "+err.Error())
			continue
		}
		got = append(got, obj.Source.String())
	}
	if diff := cmp.Diff([]string{"error: w.yaml:1: A has no apiVersion", "w.yaml:3"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLongLine refuses a line longer than the reader takes.
func TestLongLine(t *testing.T) {
	data := "apiVersion: v1\nkind: ConfigMap\ndata:\n  x: " + string(bytes.Repeat([]byte("a"), maxLine+1)) + "\n"
	_, err := Parse("big.yaml", []byte(data))
	if want := "big.yaml:4: a line longer than 64 MiB"; errString(err) != want {
		t.Errorf("error %q, want %q", errString(err), want)
	}
}

// FuzzStreamingMatchesWhole reads inputs whole and an item at a time. Reading an item at a time
// may refuse what a whole read takes (anchors shared by items, an item whose kind only its List
// names after it), never the other way round; when both read, they read the same.
func FuzzStreamingMatchesWhole(f *testing.F) {
	f.Add("dump.yaml", kubectlList)
	f.Add("dump.yaml", kubectlList[:200])
	f.Add("a.yaml", "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Namespace\n    metadata: {name: a}\n")
	f.Add("dump.json", `{"apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b\"]}"}}], "kind": "List"}`)
	f.Add("x", "{\"kind\": \"NamespaceList\", \"apiVersion\": \"v1\", \"items\": [{\"metadata\": {\"name\": \"a\"}}]}\n[1]\n42")
	f.Fuzz(func(t *testing.T, name, data string) {
		whole, wholeErr := parseWith(name, data, 1<<30)
		streamed, streamedErr := parseWith(name, data, 1)
		switch {
		case wholeErr != nil && streamedErr == nil:
			t.Fatalf("read an item at a time, %q reads; whole, it fails: %v", data, wholeErr)
		case wholeErr != nil || streamedErr != nil:
			return
		}
		if diff := cmp.Diff(summarize(whole), summarize(streamed)); diff != "" {
			t.Fatalf("objects differ (-whole +streamed):\n%s", diff)
		}
		for i := range whole {
			if diff := cmp.Diff(whole[i].Object.Object, streamed[i].Object.Object); diff != "" {
				t.Fatalf("object %d differs (-whole +streamed):\n%s", i, diff)
			}
		}
	})
}
