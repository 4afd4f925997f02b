package devsession

import (
	"context"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/admitkit/admit/config"
)

const configurations = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: shop, labels: {team: shop}}
webhooks:
- name: defaults.shop.example.com
  clientConfig: {service: {name: shop-webhook, namespace: shop, path: /mutate-orders}, caBundle: Y2E=}
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: shop}
webhooks:
- name: checks.shop.example.com
  clientConfig: {url: "https://webhook.example.com/validate/orders"}
  sideEffects: None
  admissionReviewVersions: [v1]
- name: root.shop.example.com
  clientConfig: {service: {name: shop-webhook, namespace: shop}}
  sideEffects: None
  admissionReviewVersions: [v1]
`

func session() Session {
	return Session{ID: "s1", Prefix: "dev-", CABundle: []byte("local CA"), Base: url.URL{Scheme: "https", Host: "192.168.1.20:9443"}}
}

// Every webhook keeps its path and calls this machine with the session's CA; the copies stand
// beside the originals, labelled with the session.
func TestRewrite(t *testing.T) {
	set, err := config.Parse("webhooks.yaml", []byte(configurations))
	if err != nil {
		t.Fatal(err)
	}
	mutating, validating := session().Rewrite(set)
	type view struct {
		Name   string
		Labels map[string]string
		URLs   []string
		CAs    []string
	}
	var got []view
	for _, m := range mutating {
		v := view{Name: m.Name, Labels: m.Labels}
		for _, w := range m.Webhooks {
			v.URLs, v.CAs = append(v.URLs, *w.ClientConfig.URL), append(v.CAs, string(w.ClientConfig.CABundle))
		}
		got = append(got, v)
	}
	for _, c := range validating {
		v := view{Name: c.Name, Labels: c.Labels}
		for _, w := range c.Webhooks {
			v.URLs, v.CAs = append(v.URLs, *w.ClientConfig.URL), append(v.CAs, string(w.ClientConfig.CABundle))
		}
		got = append(got, v)
	}
	labels := map[string]string{ManagedByLabel: ManagedByValue, SessionLabel: "s1"}
	want := []view{
		{Name: "dev-shop", Labels: labels, URLs: []string{"https://192.168.1.20:9443/mutate-orders"}, CAs: []string{"local CA"}},
		{Name: "dev-shop", Labels: labels, URLs: []string{"https://192.168.1.20:9443/validate/orders", "https://192.168.1.20:9443/"}, CAs: []string{"local CA", "local CA"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the copies (-want +got):\n%s", diff)
	}
	if set.Mutating[0].Config.Name != "shop" || set.Mutating[0].Config.Webhooks[0].ClientConfig.URL != nil {
		t.Errorf("the originals changed: %+v", set.Mutating[0].Config)
	}
}

// Apply creates the copies; Delete removes one session's, DeleteAll every session's, and
// nothing else.
func TestApplyAndDelete(t *testing.T) {
	ctx := context.Background()
	set, err := config.Parse("webhooks.yaml", []byte(configurations))
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset()
	first := session()
	second := first
	second.ID, second.Prefix = "s2", "dev2-"
	for _, s := range []Session{first, second} {
		applied, err := Apply(ctx, client, nil, nil)
		if err != nil || len(applied) != 0 {
			t.Fatalf("applying nothing: %v, %v", applied, err)
		}
		m, v := s.Rewrite(set)
		if applied, err = Apply(ctx, client, m, v); err != nil || len(applied) != 2 {
			t.Fatalf("applying session %s: %v, %v", s.ID, applied, err)
		}
	}
	if n, err := Delete(ctx, client, "s1"); err != nil || n != 2 {
		t.Errorf("Delete(s1) = %d, %v; want 2", n, err)
	}
	left, _ := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
	if len(left.Items) != 1 || left.Items[0].Name != "dev2-shop" {
		t.Errorf("after Delete(s1): %v", left.Items)
	}
	if n, err := DeleteAll(ctx, client); err != nil || n != 2 {
		t.Errorf("DeleteAll = %d, %v; want 2", n, err)
	}
}
