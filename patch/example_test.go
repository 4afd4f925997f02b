package patch_test

import (
	"encoding/json"
	"fmt"

	"github.com/admitkit/admit/patch"
)

func ExampleDiff() {
	original := []byte(`{"metadata":{"name":"web","labels":{"app":"web"}},"spec":{"replicas":1.0,"ports":[80,443]}}`)
	modified := []byte(`{"metadata":{"name":"web","labels":{"app":"web","tier":"front"}},"spec":{"replicas":1,"ports":[80,443,8080]}}`)

	p, err := patch.Diff(original, modified)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(p)
	fmt.Println(string(out))
	// Output:
	// [{"op":"add","path":"/metadata/labels/tier","value":"front"},{"op":"add","path":"/spec/ports/2","value":8080}]
}

func ExampleLossless() {
	// What the API server sent: spec.futureField is unknown to the Go type.
	raw := []byte(`{"metadata":{"name":"web"},"spec":{"futureField":true,"containers":[{"name":"app"}]}}`)
	// The typed object serialised before and after user code added a label;
	// the round trip adds "status":{} and loses futureField.
	before := []byte(`{"metadata":{"name":"web"},"spec":{"containers":[{"name":"app"}]},"status":{}}`)
	after := []byte(`{"metadata":{"name":"web","labels":{"injected":"true"}},"spec":{"containers":[{"name":"app"}]},"status":{}}`)

	p, err := patch.Lossless(raw, before, after)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(p)
	fmt.Println(string(out))
	// Output:
	// [{"op":"add","path":"/metadata/labels","value":{"injected":"true"}}]
}

func ExampleDiff_invalidJSON() {
	_, err := patch.Diff([]byte(`{"a":1}`), []byte(`{"a":1,}`))
	fmt.Println(err)
	// Output:
	// modified document: invalid JSON at offset 7: unexpected character '}', expected a member name in double quotes
}

func ExamplePatch_MarshalJSON() {
	p := patch.Patch{
		{Op: patch.OpAdd, Path: "/metadata/annotations/example.com~1owner", Value: json.RawMessage(`"team-a"`)},
		{Op: patch.OpReplace, Path: "/spec/nodeName"}, // a nil value is written as null
		{Op: patch.OpRemove, Path: "/status"},
	}
	out, _ := p.MarshalJSON()
	fmt.Println(string(out))

	empty, _ := patch.Patch(nil).MarshalJSON()
	fmt.Println(string(empty))
	// Output:
	// [{"op":"add","path":"/metadata/annotations/example.com~1owner","value":"team-a"},{"op":"replace","path":"/spec/nodeName","value":null},{"op":"remove","path":"/status"}]
	// []
}

func ExampleApply() {
	// What the API server holds, and a webhook's patch: a label and a sidecar.
	pod := []byte(`{"metadata":{"name":"web","labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`)
	var p patch.Patch
	if err := json.Unmarshal([]byte(`[
		{"op":"add","path":"/metadata/labels/injected","value":"true"},
		{"op":"add","path":"/spec/containers/-","value":{"name":"proxy","image":"envoy"}}
	]`), &p); err != nil {
		fmt.Println(err)
		return
	}
	patched, err := patch.Apply(pod, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(patched))

	// A patch that does not apply names the operation and what was missing.
	_, err = patch.Apply(pod, patch.Patch{{Op: patch.OpAdd, Path: "/spec/volumes/-", Value: json.RawMessage(`{}`)}})
	fmt.Println(err)
	// Output:
	// {"metadata":{"name":"web","labels":{"app":"web","injected":"true"}},"spec":{"containers":[{"name":"app","image":"nginx"},{"name":"proxy","image":"envoy"}]}}
	// operation 0 (add "/spec/volumes/-"): no value at "/spec/volumes"
}

func ExampleDocument() {
	// An object parsed once, then patched and compared with the result, without parsing it again.
	doc, err := patch.Parse([]byte(`{"metadata":{"name":"web"},"spec":{"replicas":1}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	patched, changed, err := doc.ApplyChanged(patch.Patch{{Op: patch.OpReplace, Path: "/spec/replicas", Value: json.RawMessage(`3`)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := doc.Diff(patched)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(p)
	fmt.Println(string(patched), changed, string(out))
	// Output:
	// {"metadata":{"name":"web"},"spec":{"replicas":3}} true [{"op":"replace","path":"/spec/replicas","value":3}]
}
