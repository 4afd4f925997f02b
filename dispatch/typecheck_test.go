package dispatch

import (
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/patch"
)

// typedPod has fields of the kinds a patch can break: strings, integers, booleans, maps, slices
// of structs, quantities and int-or-strings (types that decode themselves), a time, bytes.
const typedPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"web"},"creationTimestamp":"2026-01-01T00:00:00Z"},
"spec":{"containers":[{"name":"app","image":"nginx","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"1"}},
"livenessProbe":{"httpGet":{"port":8080,"path":"/"}},"env":[{"name":"A","value":"1"}]}],"hostNetwork":false,
"terminationGracePeriodSeconds":30,"nodeSelector":{"disk":"ssd"}},"status":{"phase":"Pending"}}`

// TestTypeCheckMatchesFullDecode checks the verdict of typeChecker.check, which decodes only
// the values a patch writes, against decoding the whole patched object, and that a failure
// carries the whole decode's message.
func TestTypeCheckMatchesFullDecode(t *testing.T) {
	patches := []string{
		`[{"op":"add","path":"/metadata/labels/x","value":"y"}]`,
		`[{"op":"add","path":"/metadata/labels/x","value":1}]`,
		`[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]`,
		`[{"op":"add","path":"/metadata/labels","value":{"a":true}}]`,
		`[{"op":"replace","path":"/metadata","value":"a string"}]`,
		`[{"op":"add","path":"/spec/containers/-","value":{"name":"s","image":"busybox","ports":[{"containerPort":9090}]}}]`,
		`[{"op":"add","path":"/spec/containers/-","value":{"name":"s","ports":[{"containerPort":"9090"}]}}]`,
		`[{"op":"add","path":"/spec/containers/0/ports/0/containerPort","value":3000000000}]`,
		`[{"op":"replace","path":"/spec/terminationGracePeriodSeconds","value":1.5}]`,
		`[{"op":"replace","path":"/spec/hostNetwork","value":"true"}]`,
		`[{"op":"replace","path":"/spec/hostNetwork","value":null}]`,
		`[{"op":"add","path":"/spec/containers/0/resources/limits/memory","value":"1Gi"}]`,
		`[{"op":"add","path":"/spec/containers/0/resources/limits/memory","value":"lots"}]`,
		`[{"op":"replace","path":"/spec/containers/0/livenessProbe/httpGet/port","value":"http"}]`,
		`[{"op":"replace","path":"/spec/containers/0/livenessProbe/httpGet/port","value":true}]`,
		`[{"op":"replace","path":"/metadata/creationTimestamp","value":"yesterday"}]`,
		`[{"op":"add","path":"/spec/unknownField","value":{"anything":[1]}}]`,
		`[{"op":"add","path":"/spec/Containers","value":"case matters: an unknown member"}]`,
		`[{"op":"add","path":"/metadata/labels/x","value":1},{"op":"remove","path":"/metadata/labels/x"}]`,
		`[{"op":"add","path":"/spec/containers/0/env/-","value":{"name":"B","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}}]`,
		`[{"op":"add","path":"/spec/containers/0/env/-","value":{"name":"B","valueFrom":[]}}]`,
		`[{"op":"add","path":"/kind","value":5}]`,
		`[{"op":"add","path":"/metadata/labels/x"}]`,
	}
	for _, p := range patches {
		t.Run(p, func(t *testing.T) {
			checkTypeCheck(t, &typeChecker{}, []byte(typedPod), []byte(p))
		})
	}
}

// FuzzTypeCheck holds typeChecker.check to a decode of the whole object for generated patches
// of a Pod: values of every JSON type at the Pod's own paths and next to them.
func FuzzTypeCheck(f *testing.F) {
	f.Add([]byte{0, 3, 1, 0, 9, 2, 4, 20, 4})
	f.Add([]byte{2, 17, 3, 1, 40, 0, 0, 33, 6, 4, 7, 1})
	c := &typeChecker{}
	f.Fuzz(func(t *testing.T, program []byte) {
		checkTypeCheck(t, c, []byte(typedPod), generatePatch([]byte(typedPod), program))
	})
}

func checkTypeCheck(t *testing.T, c *typeChecker, object, rawPatch []byte) {
	t.Helper()
	var ops patch.Patch
	if err := json.Unmarshal(rawPatch, &ops); err != nil {
		t.Fatal(err)
	}
	patched, err := patch.Apply(object, ops)
	if err != nil {
		return // not applied: nothing to check
	}
	want := kjson.UnmarshalCaseSensitivePreserveInts(patched, &corev1.Pod{})
	got := c.check(&corev1.Pod{}, patched, ops)
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Fatalf("patch %s:\nwhole decode: %v\ncheck:        %v", rawPatch, want, got)
	}
}

func TestTypeCheckLooksOnlyWherePatched(t *testing.T) {
	// An object that does not decode, patched where it does: the check trusts the object, as the
	// apiserver decoded it before admission, and looks only at the value the patch wrote.
	broken := []byte(`{"spec":{"hostNetwork":"yes"},"metadata":{}}`)
	ops := patch.Patch{{Op: patch.OpAdd, Path: "/metadata/labels", Value: json.RawMessage(`{"a":"b"}`)}}
	patched, err := patch.Apply(broken, ops)
	if err != nil {
		t.Fatal(err)
	}
	c := &typeChecker{}
	if err := c.check(&corev1.Pod{}, patched, ops); err != nil {
		t.Errorf("check with the patch = %v, want nil", err)
	}
	if err := c.check(&corev1.Pod{}, patched, nil); err == nil {
		t.Error("check without the patch decoded the whole object and found nothing wrong")
	}
}

// quotedAndShadowed has member rules a type checker can get wrong: a ",string" option, whose
// value is a JSON string holding the number, and an embedded struct's member shadowed by a
// shallower one of the same name.
type quotedAndShadowed struct {
	Count int64 `json:"count,string"`
	embedded
	Shadowing string `json:"name"`
}

type embedded struct {
	Name int `json:"name"`
}

func TestTypeCheckFollowsMemberRules(t *testing.T) {
	object := []byte(`{"count":"1","name":"n"}`)
	for _, p := range []string{
		`[{"op":"replace","path":"/count","value":"2"}]`,
		`[{"op":"replace","path":"/count","value":2}]`,
		`[{"op":"replace","path":"/name","value":"the shallower string wins"}]`,
		`[{"op":"replace","path":"/name","value":3}]`,
	} {
		t.Run(p, func(t *testing.T) {
			var ops patch.Patch
			if err := json.Unmarshal([]byte(p), &ops); err != nil {
				t.Fatal(err)
			}
			patched, err := patch.Apply(object, ops)
			if err != nil {
				t.Fatal(err)
			}
			want := kjson.UnmarshalCaseSensitivePreserveInts(patched, &quotedAndShadowed{})
			got := (&typeChecker{}).check(&quotedAndShadowed{}, patched, ops)
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Errorf("whole decode: %v\ncheck:        %v", want, got)
			}
		})
	}
}
