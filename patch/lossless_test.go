package patch

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestLossless(t *testing.T) {
	tests := []struct {
		name               string
		raw, before, after string
		want               string // the patch as JSON
		wantApplied        string // raw with the patch applied
	}{
		{
			name:        "unknown sibling is kept",
			raw:         `{"spec":{"a":1,"future":true}}`,
			before:      `{"spec":{"a":1}}`,
			after:       `{"spec":{"a":2}}`,
			want:        `[{"op":"replace","path":"/spec/a","value":2}]`,
			wantApplied: `{"spec":{"a":2,"future":true}}`,
		},
		{
			name:        "unknown fields go with a parent the user removed",
			raw:         `{"spec":{"a":1,"future":true},"x":1}`,
			before:      `{"spec":{"a":1},"x":1}`,
			after:       `{"x":1}`,
			want:        `[{"op":"remove","path":"/spec"}]`,
			wantApplied: `{"x":1}`,
		},
		{
			name:        "round-trip artefacts are not added",
			raw:         `{"metadata":{"name":"p"}}`,
			before:      `{"metadata":{"name":"p","creationTimestamp":null},"status":{}}`,
			after:       `{"metadata":{"name":"p","creationTimestamp":null,"labels":{"a":"b"}},"status":{}}`,
			want:        `[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]`,
			wantApplied: `{"metadata":{"name":"p","labels":{"a":"b"}}}`,
		},
		{
			name:        "a change inside an artefact creates it with the change only",
			raw:         `{"metadata":{}}`,
			before:      `{"metadata":{},"status":{"conditions":null}}`,
			after:       `{"metadata":{},"status":{"conditions":null,"phase":"Running"}}`,
			want:        `[{"op":"add","path":"/status","value":{"phase":"Running"}}]`,
			wantApplied: `{"metadata":{},"status":{"phase":"Running"}}`,
		},
		{
			name:        "missing parents are created",
			raw:         `{}`,
			before:      `{"a":{"b":{"x":null},"y":0}}`,
			after:       `{"a":{"b":{"x":null,"c":1},"y":0}}`,
			want:        `[{"op":"add","path":"/a","value":{"b":{"c":1}}}]`,
			wantApplied: `{"a":{"b":{"c":1}}}`,
		},
		{
			name:        "null in raw where the type has an object",
			raw:         `{"status":null}`,
			before:      `{"status":{}}`,
			after:       `{"status":{"phase":"x"}}`,
			want:        `[{"op":"replace","path":"/status","value":{"phase":"x"}}]`,
			wantApplied: `{"status":{"phase":"x"}}`,
		},
		{
			name:        "removing an artefact raw never had is nothing",
			raw:         `{"a":1}`,
			before:      `{"a":1,"b":null}`,
			after:       `{"a":1}`,
			want:        `[]`,
			wantApplied: `{"a":1}`,
		},
		{
			name:        "numbers the user did not change keep their text",
			raw:         `{"a":1.0,"b":"x"}`,
			before:      `{"a":1,"b":"x"}`,
			after:       `{"a":1,"b":"y"}`,
			want:        `[{"op":"replace","path":"/b","value":"y"}]`,
			wantApplied: `{"a":1.0,"b":"y"}`,
		},
		{
			name:        "unknown fields inside array elements are kept",
			raw:         `{"c":[{"name":"a","future":1}]}`,
			before:      `{"c":[{"name":"a"}]}`,
			after:       `{"c":[{"name":"a","image":"i"},{"name":"s"}]}`,
			want:        `[{"op":"add","path":"/c/0/image","value":"i"},{"op":"add","path":"/c/1","value":{"name":"s"}}]`,
			wantApplied: `{"c":[{"name":"a","future":1,"image":"i"},{"name":"s"}]}`,
		},
		{
			name:        "removing an element keeps the next element's unknown fields",
			raw:         `[{"n":"a","u":1},{"n":"b","u":2}]`,
			before:      `[{"n":"a"},{"n":"b"}]`,
			after:       `[{"n":"b"}]`,
			want:        `[{"op":"remove","path":"/0"}]`,
			wantApplied: `[{"n":"b","u":2}]`,
		},
		{
			name:        "raw array of another length is replaced whole",
			raw:         `{"c":[1]}`,
			before:      `{"c":[1,2]}`,
			after:       `{"c":[1,3]}`,
			want:        `[{"op":"replace","path":"/c","value":[1,3]}]`,
			wantApplied: `{"c":[1,3]}`,
		},
		{
			name:        "raw null where the type has an empty array",
			raw:         `{"c":null}`,
			before:      `{"c":[]}`,
			after:       `{"c":[1]}`,
			want:        `[{"op":"replace","path":"/c","value":[1]}]`,
			wantApplied: `{"c":[1]}`,
		},
		{
			name:        "array missing from raw is added",
			raw:         `{}`,
			before:      `{"c":[]}`,
			after:       `{"c":[1]}`,
			want:        `[{"op":"add","path":"/c","value":[1]}]`,
			wantApplied: `{"c":[1]}`,
		},
		{
			name:        "a member omitted as empty in before replaces raw's empty value",
			raw:         `{"labels":{}}`,
			before:      `{}`,
			after:       `{"labels":{"a":"b"}}`,
			want:        `[{"op":"replace","path":"/labels","value":{"a":"b"}}]`,
			wantApplied: `{"labels":{"a":"b"}}`,
		},
		{
			name:        "no change",
			raw:         `{"a":1,"future":2}`,
			before:      `{"a":1}`,
			after:       `{"a":1}`,
			want:        `[]`,
			wantApplied: `{"a":1,"future":2}`,
		},
		{
			name:        "equal after normalisation is no change",
			raw:         `{"a":{"b":1,"c":2}}`,
			before:      `{"a":{"b":1,"c":2}}`,
			after:       `{"a":{"c":2.0,"b":1}}`,
			want:        `[]`,
			wantApplied: `{"a":{"b":1,"c":2}}`,
		},
		{
			name:        "raw equal to before is a plain diff",
			raw:         `{"a":1,"b":{"c":1}}`,
			before:      `{"a":1,"b":{"c":1}}`,
			after:       `{"b":{"c":2}}`,
			want:        `[{"op":"remove","path":"/a"},{"op":"replace","path":"/b/c","value":2}]`,
			wantApplied: `{"b":{"c":2}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Lossless([]byte(tt.raw), []byte(tt.before), []byte(tt.after))
			if err != nil {
				t.Fatalf("Lossless: %v", err)
			}
			encoded, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("marshalling the patch: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(encoded)); diff != "" {
				t.Errorf("patch mismatch (-want +got):\n%s", diff)
			}
			applied := mustApply(t, []byte(tt.raw), got)
			if diff := cmp.Diff(semantic(t, []byte(tt.wantApplied)), semantic(t, applied)); diff != "" {
				t.Errorf("patched raw mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLosslessInvalidJSON(t *testing.T) {
	tests := []struct {
		name               string
		raw, before, after string
		wantDocument       string
		wantOffset         int
	}{
		{name: "raw", raw: `{"a":}`, before: `{}`, after: `{"a":1}`, wantDocument: "raw", wantOffset: 5},
		{name: "raw with no change", raw: `{"a"`, before: `{}`, after: `{}`, wantDocument: "raw", wantOffset: 4},
		{name: "before", raw: `{}`, before: `{"a":[}`, after: `{}`, wantDocument: "before", wantOffset: 6},
		{name: "before with no change", raw: `{}`, before: `nul`, after: `nul`, wantDocument: "before", wantOffset: 0},
		{name: "after", raw: `{}`, before: `{}`, after: `{"a" "b"}`, wantDocument: "after", wantOffset: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Lossless([]byte(tt.raw), []byte(tt.before), []byte(tt.after))
			var syntaxErr *SyntaxError
			if !errors.As(err, &syntaxErr) {
				t.Fatalf("Lossless error = %v, want a *SyntaxError", err)
			}
			if syntaxErr.Document != tt.wantDocument || syntaxErr.Offset != tt.wantOffset {
				t.Errorf("error %q is about %s at offset %d, want %s at offset %d",
					err, syntaxErr.Document, syntaxErr.Offset, tt.wantDocument, tt.wantOffset)
			}
		})
	}
}

// rawPod is a Pod as the API server could send it from a newer version than
// the Go types know: spec.futureField and a container's futureContainerField
// are unknown to corev1, and there is no status or creationTimestamp.
const rawPod = `{
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
  "spec": {
    "futureField": {"enabled": true},
    "containers": [
      {"name": "app", "image": "nginx:1.27", "futureContainerField": "keep-me",
       "ports": [{"containerPort": 8080, "protocol": "TCP"}]}
    ]
  }
}`

// typedRoundTrip decodes rawPod into a corev1.Pod, lets mutate change it and
// returns the serialisations before and after the change, as a typed
// mutating webhook does.
func typedRoundTrip(t *testing.T, mutate func(*corev1.Pod)) (before, after []byte) {
	t.Helper()
	var pod corev1.Pod
	if err := json.Unmarshal([]byte(rawPod), &pod); err != nil {
		t.Fatal(err)
	}
	before, err := json.Marshal(&pod)
	if err != nil {
		t.Fatal(err)
	}
	mutate(&pod)
	after, err = json.Marshal(&pod)
	if err != nil {
		t.Fatal(err)
	}
	return before, after
}

func TestLosslessTypedPod(t *testing.T) {
	tests := []struct {
		name        string
		mutate      func(*corev1.Pod)
		want        string // the patch as JSON
		wantApplied string
	}{
		{
			name: "label and sidecar",
			mutate: func(pod *corev1.Pod) {
				pod.Labels["injected"] = "true"
				pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "proxy", Image: "envoy:1.31"})
			},
			want: `[{"op":"add","path":"/metadata/labels/injected","value":"true"},` +
				`{"op":"add","path":"/spec/containers/1","value":{"name":"proxy","image":"envoy:1.31","resources":{}}}]`,
			wantApplied: `{"apiVersion":"v1","kind":"Pod",
				"metadata":{"name":"web","namespace":"default","labels":{"app":"web","injected":"true"}},
				"spec":{"futureField":{"enabled":true},"containers":[
					{"name":"app","image":"nginx:1.27","futureContainerField":"keep-me","ports":[{"containerPort":8080,"protocol":"TCP"}]},
					{"name":"proxy","image":"envoy:1.31","resources":{}}]}}`,
		},
		{
			name:   "image change in a container with unknown fields",
			mutate: func(pod *corev1.Pod) { pod.Spec.Containers[0].Image = "nginx:1.28" },
			want:   `[{"op":"replace","path":"/spec/containers/0/image","value":"nginx:1.28"}]`,
			wantApplied: `{"apiVersion":"v1","kind":"Pod",
				"metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},
				"spec":{"futureField":{"enabled":true},"containers":[
					{"name":"app","image":"nginx:1.28","futureContainerField":"keep-me","ports":[{"containerPort":8080,"protocol":"TCP"}]}]}}`,
		},
		{
			name:   "status set by the user is created with only the change",
			mutate: func(pod *corev1.Pod) { pod.Status.Phase = corev1.PodPending },
			want:   `[{"op":"add","path":"/status","value":{"phase":"Pending"}}]`,
			wantApplied: `{"apiVersion":"v1","kind":"Pod",
				"metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},
				"spec":{"futureField":{"enabled":true},"containers":[
					{"name":"app","image":"nginx:1.27","futureContainerField":"keep-me","ports":[{"containerPort":8080,"protocol":"TCP"}]}]},
				"status":{"phase":"Pending"}}`,
		},
		{
			name:        "no change",
			mutate:      func(*corev1.Pod) {},
			want:        `[]`,
			wantApplied: rawPod,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, after := typedRoundTrip(t, tt.mutate)
			got, err := Lossless([]byte(rawPod), before, after)
			if err != nil {
				t.Fatalf("Lossless: %v", err)
			}
			encoded, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(encoded)); diff != "" {
				t.Errorf("patch mismatch (-want +got):\n%s", diff)
			}
			applied := mustApply(t, []byte(rawPod), got)
			if diff := cmp.Diff(semantic(t, []byte(tt.wantApplied)), semantic(t, applied)); diff != "" {
				t.Errorf("patched pod mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNaiveDiffLosesUnknownFields documents why Lossless exists: diffing the
// received document against the re-serialised typed object, as other
// frameworks do, deletes fields the Go type does not know and adds
// round-trip artefacts.
func TestNaiveDiffLosesUnknownFields(t *testing.T) {
	_, after := typedRoundTrip(t, func(pod *corev1.Pod) { pod.Labels["injected"] = "true" })
	naive, err := Diff([]byte(rawPod), after)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{}
	for _, op := range naive {
		paths[op.Path] = op.Op
	}
	want := map[string]string{
		"/spec/futureField":                       OpRemove,
		"/spec/containers/0/futureContainerField": OpRemove,
		"/status":                      OpAdd,
		"/metadata/labels/injected":    OpAdd,
		"/spec/containers/0/resources": OpAdd,
	}
	for path, op := range want {
		if paths[path] != op {
			t.Errorf("naive diff has %q at %s, want %q (patch: %v)", paths[path], path, op, naive)
		}
	}
}
