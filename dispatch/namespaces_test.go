package dispatch

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestStaticNamespaces(t *testing.T) {
	static := NewStaticNamespaces(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cached", Labels: map[string]string{"env": "prod"}}})
	if got, _ := static.NamespaceLabels(context.Background(), "other"); !cmp.Equal(got, map[string]string{"kubernetes.io/metadata.name": "other"}) {
		t.Fatalf("static unlisted namespace labels = %v", got)
	}
	if got, _ := static.NamespaceLabels(context.Background(), "cached"); !cmp.Equal(got, map[string]string{"env": "prod", "kubernetes.io/metadata.name": "cached"}) {
		t.Fatalf("static listed namespace labels = %v", got)
	}
}
