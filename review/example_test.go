package review_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http/httptest"
	"os"

	corev1 "k8s.io/api/core/v1"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/examples/quickstart"
	"github.com/admitkit/admit/review"
	"github.com/admitkit/admit/webhook"
)

// ownedPolicy is an admission policy: ConfigMaps in team namespaces need an owner label.
const ownedPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: owned}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
    namespaceSelector: {matchLabels: {tier: team}}
  validations: [{expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels", message: "a ConfigMap needs an owner"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: owned}
spec: {policyName: owned, validationActions: [Deny]}
`

// A kustomize build — a namespace, a pod, two ConfigMaps — reviewed through kube-apiserver's
// admission with an admission policy and the quickstart's webhooks, served in process.
func Example() {
	// The webhooks: the quickstart's sidecar injector and ConfigMap key validator, over TLS.
	registry, err := quickstart.NewRegistry(webhook.HTTPOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	server := httptest.NewTLSServer(registry)
	defer server.Close()
	caBundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
	configurations, err := registry.ConfigurationsYAML(webhook.ConfigOptions{
		Name: "quickstart", ClientConfig: webhook.ClientConfig{URL: server.URL, CABundle: caBundle},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	webhooks, err := config.Parse("webhooks.yaml", configurations)
	if err != nil {
		fmt.Println(err)
		return
	}
	// An admission policy: ConfigMaps in team namespaces need an owner label.
	policies, err := review.Parse("policies.yaml", []byte(ownedPolicy))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The build, as `kustomize build` prints it.
	objects, err := review.Parse("build.yaml", []byte(`apiVersion: v1
kind: Namespace
metadata: {name: payments, labels: {tier: team}}
---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: payments}
spec: {containers: [{name: api, image: registry.example/api:1.4}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: payments, labels: {owner: payments}}
data: {log-level: info}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: flags, namespace: payments}
data: {beta: "true"}
`))
	if err != nil {
		fmt.Println(err)
		return
	}

	session, err := review.New(review.Config{
		Mutating: webhooks.MutatingConfigs(), Validating: webhooks.ValidatingConfigs(), Policies: policies,
	}, objects)
	if err != nil {
		fmt.Println(err)
		return
	}
	outcomes, err := session.Review(context.Background(), review.Write{}, objects, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range outcomes {
		switch {
		case o.Err != nil:
			fmt.Printf("%s %s: not reviewed: %v\n", o.Object.GetKind(), o.Name(), o.Err)
		case o.Result.Allowed && o.Object.GetKind() == "Pod":
			var pod corev1.Pod
			if err := json.Unmarshal(o.Result.Object, &pod); err != nil {
				fmt.Println(err)
				return
			}
			var containers []string
			for _, c := range pod.Spec.Containers {
				containers = append(containers, c.Name)
			}
			fmt.Printf("%s %s: admitted with containers %v, service account %s\n", o.Object.GetKind(), o.Name(), containers, pod.Spec.ServiceAccountName)
		case o.Result.Allowed:
			fmt.Printf("%s %s: admitted\n", o.Object.GetKind(), o.Name())
		default:
			fmt.Printf("%s %s: %d %s\n", o.Object.GetKind(), o.Name(), o.Result.Status.Code, o.Result.Status.Message)
		}
	}
	// Output:
	// Namespace payments: admitted
	// Pod api: admitted with containers [api proxy], service account default
	// ConfigMap settings: admitted
	// ConfigMap flags: 422 configmaps "flags" is forbidden: ValidatingAdmissionPolicy 'owned' with binding 'owned' denied request: a ConfigMap needs an owner
}

// An input too large to hold — a cluster's dump, the build of a large repository — reviewed an
// object at a time: surveyed once, then each object admitted and its line of the summary taken
// as soon as it is decided. The objects here are held already (SliceSource); ManifestSource
// reads files of package manifest instead, a document at a time.
func ExampleStream() {
	// The quickstart's webhooks, served in process as in the first example.
	webhooks, stop, err := serveQuickstart()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	objects, err := review.Parse("dump.yaml", []byte(`apiVersion: v1
kind: Pod
metadata: {name: api, namespace: payments}
spec: {containers: [{name: api, image: registry.example/api:1.4}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: flags, namespace: payments, labels: {owner: payments}}
data: {Beta_Flag: "true"}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: payments}
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: payments}
spec: {ports: [{port: "eighty"}]}
`))
	if err != nil {
		fmt.Println(err)
		return
	}

	survey, err := review.SurveyOf(review.SliceSource(objects))
	if err != nil {
		fmt.Println(err)
		return
	}
	stream, err := review.NewStream(review.Config{
		Mutating: webhooks.MutatingConfigs(), Validating: webhooks.ValidatingConfigs(), SkipMissingCRDs: true,
	}, survey, nil, review.Write{})
	if err != nil {
		fmt.Println(err)
		return
	}
	summary := review.NewSummaryWriter(os.Stdout, review.TextOptions{})
	defer summary.Discard()
	if err := stream.Review(context.Background(), summary.Write); err != nil {
		fmt.Println(err)
		return
	}
	if err := summary.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// DECISION      OPERATION  OBJECT                    SOURCE        DETAIL
	// admitted      CREATE     Pod payments/api          dump.yaml:1   1 warning: added sidecar container "proxy" (registry.k8s.io/pause:3.10)
	// REJECTED      CREATE     ConfigMap payments/flags  dump.yaml:6   422 admission webhook "configmap-keys.quickstart.admit.dev" denied the request: ConfigMap "flags" is invalid: data[Beta_Flag]: Invalid value: "Beta_Flag": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
	// skipped                  Widget w                  dump.yaml:11  no resource for kind "Widget" in group "example.com" version "v1" (custom kinds need their CustomResourceDefinition)
	// NOT REVIEWED             Service api               dump.yaml:15  dump.yaml:15: Service in version "v1" cannot be handled as a Service: json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32
	//
	// 4 objects: 1 admitted (1 with warnings), 1 rejected, 1 skipped, 1 not reviewed
}

// serveQuickstart serves the quickstart's webhooks over TLS until stop, and returns their
// configurations.
func serveQuickstart() (_ *config.Set, stop func(), _ error) {
	registry, err := quickstart.NewRegistry(webhook.HTTPOptions{})
	if err != nil {
		return nil, nil, err
	}
	server := httptest.NewTLSServer(registry)
	caBundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
	configurations, err := registry.ConfigurationsYAML(webhook.ConfigOptions{
		Name: "quickstart", ClientConfig: webhook.ClientConfig{URL: server.URL, CABundle: caBundle},
	})
	if err == nil {
		var set *config.Set
		if set, err = config.Parse("webhooks.yaml", configurations); err == nil {
			return set, server.Close, nil
		}
	}
	server.Close()
	return nil, nil, err
}

// Outcomes built one at a time, each written its own way (a test suite's cases), admitted a
// batch at a time as if applied together: a first pass takes each outcome into a Plan, which
// keeps what the others' admission reads of it (here the Namespace's label, which the policy's
// namespaceSelector reads), and the Batches it opens admit the outcomes built again.
func ExampleSession_Plan() {
	policies, err := review.Parse("policies.yaml", []byte(ownedPolicy))
	if err != nil {
		fmt.Println(err)
		return
	}
	cases := []string{
		`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "flags", "namespace": "payments"}}`,
		`{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "payments", "labels": {"tier": "team"}}}`,
	}
	session, err := review.New(review.Config{Policies: policies}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	build := func(i int) *review.Outcome {
		objects, err := review.Parse(fmt.Sprintf("case %d", i), []byte(cases[i]))
		if err != nil {
			return &review.Outcome{Err: err}
		}
		outcomes, err := session.Requests(objects, nil, review.Write{})
		if err != nil {
			return &review.Outcome{Err: err}
		}
		return outcomes[0]
	}
	plan := session.Plan()
	for i := range cases {
		plan.Take(build(i))
	}
	batches, err := plan.Batches(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer batches.Close()
	for i := range cases {
		o := build(i)
		if err := batches.Admit(context.Background(), []*review.Outcome{o}); err != nil {
			fmt.Println(err)
			return
		}
		if o.Err != nil {
			fmt.Println(o.Err)
			continue
		}
		fmt.Println(o.Object.GetKind(), o.Result.Allowed)
	}
	// Output:
	// ConfigMap false
	// Namespace true
}
