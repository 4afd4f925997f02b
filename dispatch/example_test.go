package dispatch_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http/httptest"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/dispatch/celconditions"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/examples/quickstart"
	"github.com/admitkit/admit/webhook"
)

// Admit runs one write through webhook configurations, calling the webhooks over HTTPS exactly
// as kube-apiserver would, and returns its decision.
func Example() {
	// Webhooks to call: the quickstart's, served over TLS on loopback.
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

	// Load them as kube-apiserver stores them: defaulted, validated.
	set, err := config.Parse("webhooks.yaml", configurations)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := set.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	// matchConditions in the apiserver's CEL environment (the quickstart's sidecar webhook skips
	// mirror pods with one).
	d, err := dispatch.New(dispatch.Options{Mutating: set.MutatingConfigs(), Validating: set.ValidatingConfigs(), Conditions: celconditions.Compiler(nil)})
	if err != nil {
		fmt.Println(err)
		return
	}

	result, err := d.Admit(context.Background(), &engine.Request{
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name:      "settings",
		Namespace: "default",
		Operation: admissionv1.Create,
		Object:    json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},"data":{"Bad_Key":"x"}}`),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("allowed:", result.Allowed)
	fmt.Println("code:", result.Status.Code, result.Status.Reason)
	for _, w := range result.Rows {
		fmt.Printf("%s %s %s\n", w.Type, w.Name, w.Outcome)
	}
	// Output:
	// allowed: false
	// code: 422 Invalid
	// mutating sidecar.quickstart.admit.dev skipped
	// validating configmap-keys.quickstart.admit.dev denied
}
