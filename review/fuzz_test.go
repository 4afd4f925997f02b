package review

import (
	"context"
	"testing"
	"time"
)

// FuzzReview reviews arbitrary documents through the whole chain: whatever the input, a
// Session answers with a result or an error per object, and never panics.
func FuzzReview(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: nginx}]}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: x-, namespace: team}\ndata: {a: b}\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: -3, selector: {matchLabels: {a: b}}}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: NodePort, ports: [{port: 80, nodePort: 99999}]}\n",
		"apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: d}\nspec: {replicas: 2}\n",
		"apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Namespace, metadata: {name: n}}, {apiVersion: v1, kind: Secret, metadata: {name: s, namespace: n}, data: {k: '!!'}}]\n",
		"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"ownerReferences\":[{},{}]}}",
	} {
		f.Add([]byte(seed), "")
		f.Add([]byte(seed), "scale")
	}
	moment := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte, subresource string) {
		objects, err := Parse("fuzz.yaml", data)
		if err != nil || len(objects) == 0 || len(objects) > 20 {
			return
		}
		s, err := New(Config{Now: func() time.Time { return moment }, Timeout: 10 * time.Second}, objects)
		if err != nil {
			return
		}
		outcomes, err := s.Review(context.Background(), Write{SubResource: subresource}, objects, nil)
		if err != nil {
			return
		}
		for _, o := range outcomes {
			if o.Err == nil && o.Result == nil && o.Request != nil {
				t.Fatalf("%s: a request without a result or an error", o.Source)
			}
		}
	})
}
