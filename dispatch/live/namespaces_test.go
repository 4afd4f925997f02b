package live

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/webhooktest"
)

func TestNamespaceSources(t *testing.T) {
	cached := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cached", Labels: map[string]string{"env": "prod"}}}
	fresh := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fresh", Labels: map[string]string{"env": "dev"}}}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := indexer.Add(cached); err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset(cached, fresh)
	sources := map[string]dispatch.NamespaceSource{
		"lister with live fallback": ListerNamespaces{Lister: corelisters.NewNamespaceLister(indexer), Client: client},
		"live":                      Namespaces{Client: client},
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
}

// TestMissingNamespaceFailsWith404: a webhook with a namespaceSelector makes the dispatcher look
// the namespace up; a namespace the cluster does not have fails the request with the 404.
func TestMissingNamespaceFailsWith404(t *testing.T) {
	server := webhooktest.Start(t)
	none := admissionregistrationv1.SideEffectClassNone
	d, err := dispatch.New(dispatch.Options{
		Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{{
			ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: "prod-only.example.com", ClientConfig: server.ClientConfig(webhooktest.PathAllow),
				Rules: []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				}},
				NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
				ObjectSelector:          &metav1.LabelSelector{},
				SideEffects:             &none,
				AdmissionReviewVersions: []string{"v1"},
			}},
		}},
		Namespaces: Namespaces{Client: fake.NewClientset()},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Admit(context.Background(), &engine.Request{
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name: "c", Namespace: "default", Operation: admissionv1.Create,
		Object: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"}}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Allowed || res.Status.Code != 404 || res.Status.Reason != metav1.StatusReasonNotFound || res.Status.Message != `namespaces "default" not found` {
		t.Fatalf("result %+v, want 404 NotFound for the missing namespace", res.Status)
	}
	if n := server.Calls(webhooktest.PathAllow); n != 0 {
		t.Fatalf("webhook called %d times, want 0", n)
	}
}
