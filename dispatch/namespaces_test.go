package dispatch

import (
	"context"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

func TestNamespaceSources(t *testing.T) {
	cached := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cached", Labels: map[string]string{"env": "prod"}}}
	fresh := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fresh", Labels: map[string]string{"env": "dev"}}}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := indexer.Add(cached); err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset(cached, fresh)
	sources := map[string]NamespaceSource{
		"lister with live fallback": ListerNamespaces{Lister: corelisters.NewNamespaceLister(indexer), Client: client},
		"live":                      ClientNamespaces{Client: client},
	}
	for name, source := range sources {
		t.Run(name, func(t *testing.T) {
			for ns, want := range map[string]map[string]string{"cached": {"env": "prod"}, "fresh": {"env": "dev"}} {
				got, err := source.NamespaceLabels(context.Background(), ns)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", ns, diff)
				}
			}
			if _, err := source.NamespaceLabels(context.Background(), "missing"); !apierrors.IsNotFound(err) {
				t.Fatalf("missing namespace: %v, want NotFound (the admission then fails with 404)", err)
			}
		})
	}
	static := NewStaticNamespaces(cached)
	if got, _ := static.NamespaceLabels(context.Background(), "other"); !cmp.Equal(got, map[string]string{"kubernetes.io/metadata.name": "other"}) {
		t.Fatalf("static unlisted namespace labels = %v", got)
	}
	if got, _ := static.NamespaceLabels(context.Background(), "cached"); !cmp.Equal(got, map[string]string{"env": "prod", "kubernetes.io/metadata.name": "cached"}) {
		t.Fatalf("static listed namespace labels = %v", got)
	}
}

func TestMissingNamespaceFailsWith404(t *testing.T) {
	tw := newTestWebhooks(t)
	w := tw.webhook("/allow")
	w.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{w}, Options{Namespaces: ClientNamespaces{Client: fake.NewClientset()}})
	res, err := d.Admit(context.Background(), podRequest(admissionv1.Create))
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, &statusSummary{404, metav1.StatusReasonNotFound, `namespaces "default" not found`}, nil)
}
