// Program uses admit as a library, from its package documentation alone: it reviews objects with
// an admission policy and a webhook written with package webhook, streams 10,000 objects through
// one review session, and converts a custom resource between versions and back without loss.
package main

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/review"
	"github.com/admitkit/admit/webhook"
	"github.com/admitkit/admit/webhook/conversion"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	session, err := newSession()
	if err != nil {
		return err
	}
	if err := reviewSome(ctx, session); err != nil {
		return err
	}
	if err := stream(ctx, session, 10000); err != nil {
		return err
	}
	return roundTrip(ctx)
}

// newSession serves a webhook refusing ConfigMaps that hold a password, over TLS on loopback,
// and opens a review session with it and a policy capping Deployments at 10 replicas.
func newSession() (*review.Session, error) {
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	err := registry.Register(webhook.Webhook{
		Name: "configmaps.example.com", Type: webhook.TypeValidating,
		Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"),
		Handler: webhook.HandlerFunc(func(_ context.Context, req *webhook.Request) webhook.Response {
			var cm corev1.ConfigMap
			if err := json.Unmarshal(req.Object.Raw, &cm); err != nil {
				return webhook.Errored(err)
			}
			if _, ok := cm.Data["password"]; ok {
				return webhook.Denied("a ConfigMap is no place for a password")
			}
			return webhook.Allowed()
		}),
	})
	if err != nil {
		return nil, err
	}
	server := httptest.NewTLSServer(registry) // left running until the program ends
	caBundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
	_, validating, err := registry.Configurations(webhook.ConfigOptions{
		Name: "library", ClientConfig: webhook.ClientConfig{URL: server.URL, CABundle: caBundle},
	})
	if err != nil {
		return nil, err
	}
	policies, err := review.Parse("policy.yaml", []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations: [{expression: "object.spec.replicas <= 10", message: "at most 10 replicas"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas}
spec: {policyName: replicas, validationActions: [Deny]}
`))
	if err != nil {
		return nil, err
	}
	return review.New(review.Config{
		Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{validating}, Policies: policies,
	}, nil)
}

// reviewSome reviews a Deployment and two ConfigMaps, and prints what admission answered.
func reviewSome(ctx context.Context, session *review.Session) error {
	objects, err := review.Parse("objects.yaml", []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 20
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: shop}
data: {mode: fast}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: secrets, namespace: shop}
data: {password: hunter2}
`))
	if err != nil {
		return err
	}
	outcomes, err := session.Review(ctx, review.Write{}, objects, nil)
	if err != nil {
		return err
	}
	for _, o := range outcomes {
		switch {
		case o.Err != nil:
			return fmt.Errorf("%s: %w", o.Name(), o.Err)
		case o.Result.Allowed:
			fmt.Printf("%s %s: admitted\n", o.Object.GetKind(), o.Name())
		default:
			fmt.Printf("%s %s: %s\n", o.Object.GetKind(), o.Name(), o.Result.Status.Message)
		}
	}
	return nil
}

// stream reviews n ConfigMaps in batches of 1,000 through one chain, holding one batch at a
// time, and counts the admitted ones.
func stream(ctx context.Context, session *review.Session, n int) error {
	batches, err := session.Batches(ctx, []string{"bulk"})
	if err != nil {
		return err
	}
	defer batches.Close()
	admitted := 0
	for start := 0; start < n; start += 1000 {
		var yaml strings.Builder
		for i := start; i < min(start+1000, n); i++ {
			fmt.Fprintf(&yaml, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%d, namespace: bulk}\ndata: {index: \"%d\"}\n", i, i)
		}
		objects, err := review.Parse(fmt.Sprintf("batch-%d.yaml", start), []byte(yaml.String()))
		if err != nil {
			return err
		}
		outcomes, err := session.Requests(objects, nil, review.Write{})
		if err != nil {
			return err
		}
		if err := batches.Admit(ctx, outcomes); err != nil {
			return err
		}
		for _, o := range outcomes {
			if o.Err == nil && o.Result.Allowed {
				admitted++
			}
		}
	}
	fmt.Printf("streamed %d ConfigMaps: %d admitted\n", n, admitted)
	return nil
}

// cacheV1 keeps a size; cacheV2, the hub, a size and an eviction policy, which v1 keeps in an
// annotation so that a round trip through v1 loses nothing.
type cacheV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size              string `json:"size"`
}

type cacheV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size              string `json:"size"`
	Eviction          string `json:"eviction,omitempty"`
}

const evictionAnnotation = "example.com/v2-eviction"

// roundTrip converts a v2 Cache to v1 and back, and prints both.
func roundTrip(ctx context.Context) error {
	hub := conversion.NewHub[cacheV2]("Cache")
	if err := conversion.AddHubVersion(hub, "example.com/v2"); err != nil {
		return err
	}
	err := conversion.AddVersion(hub, "example.com/v1",
		func(v *cacheV1, h *cacheV2) error {
			h.Size, h.Eviction = v.Size, h.Annotations[evictionAnnotation]
			delete(h.Annotations, evictionAnnotation)
			return nil
		},
		func(h *cacheV2, v *cacheV1) error {
			v.Size = h.Size
			if h.Eviction != "" {
				if v.Annotations == nil {
					v.Annotations = map[string]string{}
				}
				v.Annotations[evictionAnnotation] = h.Eviction
			}
			return nil
		})
	if err != nil {
		return err
	}
	v2 := []byte(`{"apiVersion":"example.com/v2","kind":"Cache","metadata":{"name":"sessions","labels":{"app":"shop"}},"size":"1Gi","eviction":"lru"}`)
	v1, err := hub.Convert(ctx, v2, "example.com/v1")
	if err != nil {
		return err
	}
	back, err := hub.Convert(ctx, v1, "example.com/v2")
	if err != nil {
		return err
	}
	fmt.Printf("v1: %s\nv2 again: %s\n", v1, back)
	return nil
}
