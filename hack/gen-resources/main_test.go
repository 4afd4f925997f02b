package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/resources"
)

func TestCheckSharedPlurals(t *testing.T) {
	builtin, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	// Two groups serving "widgets", and nothing saying whether they share storage.
	shared, err := resources.FromJSON([]byte(`{"serverVersion": "v1.36.0", "resources": [
		{"group": "a.k8s.io", "version": "v1", "resource": "widgets", "kind": "Widget", "verbs": ["get"]},
		{"group": "b.k8s.io", "version": "v1", "resource": "widgets", "kind": "Widget", "verbs": ["get"]},
		{"group": "b.k8s.io", "version": "v1", "resource": "gadgets", "kind": "Gadget", "verbs": ["get"]}
	], "equivalents": []}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		mapper  *resources.Mapper
		wantErr string
	}{
		{name: "Kubernetes 1.36: only events are served by two groups, and they are equivalent", mapper: builtin},
		{
			name:   "same plural in two groups",
			mapper: shared,
			wantErr: "resources of the same name in different groups, which kube-apiserver may store together:\n" +
				"  \"widgets\" is served by groups \"a.k8s.io\" and \"b.k8s.io\"\n" +
				"check its storage factory (cohabitating resources, special resource prefixes) and teach resources.storageKey which are equivalent",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			if err := checkSharedPlurals(tt.mapper); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.wantErr, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummary(t *testing.T) {
	m, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	want := "wrote kube.json: kube-apiserver v1.36.3, 68 resources and 45 subresources in 22 group-versions; " +
		"equivalent: v1/events = events.k8s.io/v1/events; autoscaling/v2/horizontalpodautoscalers = autoscaling/v1/horizontalpodautoscalers"
	if diff := cmp.Diff(want, summary(m, "kube.json")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
