package engine_test

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/engine"
)

// requireOwner is a validating step of a program's own: it denies ConfigMaps without an owner
// label, as an admission plugin would.
type requireOwner struct{}

func (requireOwner) Name() string { return "RequireOwner" }

func (requireOwner) Validate(_ context.Context, at *engine.Attributes) error {
	if at.Request.Kind.Kind != "ConfigMap" {
		at.NotApplicable()
		return nil
	}
	return fmt.Errorf("configmap %q has no owner label", at.Name())
}

// A Pipeline of one step of the program's own. dispatch.NewWebhooks gives the webhooks' steps
// and chain.Chain.Steps Kubernetes' own; chain.Steps.Pipeline puts them in the apiserver's order.
func Example() {
	p := &engine.Pipeline{Validating: []engine.ValidatingStep{requireOwner{}}}
	res, err := p.Admit(context.Background(), &engine.Request{
		Kind:     schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Name:     "settings", Namespace: "default", Operation: admissionv1.Create,
		Object: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"}}`),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Allowed, res.Status.Code, res.Status.Message)
	for _, row := range res.Rows {
		fmt.Println(row.Phase, row.Name, row.Outcome)
	}
	// Output:
	// false 500 Internal error occurred: configmap "settings" has no owner label
	// validating RequireOwner error
}
