package review

import (
	"context"
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Batches answer as Session.Review does for the same configuration: a namespace the Config's
// state gives has its default ServiceAccount in both, as in any cluster.
func TestBatchesAnswerAsReview(t *testing.T) {
	pod, err := Parse("pod.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: web, image: nginx}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	shop := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shop"}}}
	s, err := New(Config{Cluster: []*unstructured.Unstructured{shop}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reviewed, err := s.Review(ctx, Write{}, pod, nil)
	if err != nil {
		t.Fatal(err)
	}
	batches, err := s.Batches(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	batch, err := s.Requests(pod, nil, Write{})
	if err != nil {
		t.Fatal(err)
	}
	if err := batches.Admit(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]*Outcome{"Review": reviewed[0], "Batches": batch[0]} {
		if o.Err != nil || !o.Result.Allowed {
			t.Errorf("%s: %v %+v", name, o.Err, o.Result.Status)
		}
	}
	// Closed, they refuse at once rather than wait for a chain that is gone.
	batches.Close()
	again, err := s.Requests(pod, nil, Write{})
	if err != nil {
		t.Fatal(err)
	}
	if err := batches.Admit(ctx, again); !errors.Is(err, ErrClosed) || again[0].Result != nil {
		t.Errorf("Admit after Close: %v, result %+v; want ErrClosed and no result", err, again[0].Result)
	}
}
