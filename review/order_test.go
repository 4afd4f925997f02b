package review

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A custom resource with several schema errors gets them in one order, run after run: kube-apiserver
// walks a schema's properties in Go's random map order, admit in the order of their names, which
// is one of the orders the apiserver gives. Fifty reviews in one process walk fifty random orders.
func TestSchemaErrorsComeInOneOrder(t *testing.T) {
	crd, err := Parse("crd.yaml", []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [owner, name]
            properties:
              size: {type: integer, maximum: 10}
              color: {type: string, enum: [red, blue]}
              parts: {type: array, items: {type: object, properties: {weight: {type: integer, minimum: 1}, finish: {type: string, enum: [matte]}}}}
              labels: {type: object, additionalProperties: {type: string, maxLength: 3}}
`))
	if err != nil {
		t.Fatal(err)
	}
	widget, err := Parse("widget.yaml", []byte(`apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: shop}
spec:
  size: 99
  color: green
  parts: [{weight: 0, finish: glossy}, {weight: 5}, {weight: -1, finish: satin}]
  labels: {zeta: long-value, alpha: longer-value}
`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{}, append(crd, widget...))
	if err != nil {
		t.Fatal(err)
	}
	const want = `Widget.example.com "w" is invalid: [spec.color: Unsupported value: "green": supported values: "red", "blue", ` +
		`spec.labels.alpha: Too long: may not be more than 3 bytes, spec.labels.zeta: Too long: may not be more than 3 bytes, ` +
		`spec.parts[0].finish: Unsupported value: "glossy": supported values: "matte", spec.parts[0].weight: Invalid value: 0: spec.parts[0].weight in body should be greater than or equal to 1, ` +
		`spec.parts[2].finish: Unsupported value: "satin": supported values: "matte", spec.parts[2].weight: Invalid value: -1: spec.parts[2].weight in body should be greater than or equal to 1, ` +
		`spec.size: Invalid value: 99: spec.size in body should be less than or equal to 10, spec.owner: Required value, spec.name: Required value]`
	for range 50 {
		outcomes, err := s.Review(context.Background(), Write{}, widget, nil)
		if err != nil {
			t.Fatal(err)
		}
		o := outcomes[0]
		if o.Err != nil || o.Result.Allowed {
			t.Fatalf("%v %+v", o.Err, o.Result)
		}
		if diff := cmp.Diff(want, o.Result.Status.Message); diff != "" {
			t.Fatalf("message (-want +got):\n%s", diff)
		}
	}
}
