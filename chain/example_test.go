package chain_test

import (
	"context"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/engine"
)

// A Pod admitted through kube-apiserver's chain: its defaults, the built-in plugins' changes
// and the registry's preparation, with no webhook configured.
func Example() {
	c, err := chain.New(context.Background(), chain.Config{})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	// The chain's steps alone; dispatch.NewWebhooks' steps would go in the two nil places.
	pipeline := c.Steps().Pipeline(nil, nil)
	res, err := pipeline.Admit(context.Background(), &engine.Request{
		Kind:     schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Name:     "web", Namespace: "default", Operation: admissionv1.Create,
		Object: []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`),
	})
	if err != nil {
		panic(err)
	}
	var pod struct {
		Spec struct {
			ServiceAccountName string `json:"serviceAccountName"`
			RestartPolicy      string `json:"restartPolicy"`
			Tolerations        []any  `json:"tolerations"`
		} `json:"spec"`
		Status struct {
			Phase string `json:"phase"`
		} `json:"status"`
	}
	if err := json.Unmarshal(res.Object, &pod); err != nil {
		panic(err)
	}
	fmt.Println(res.Allowed, pod.Spec.ServiceAccountName, pod.Spec.RestartPolicy, len(pod.Spec.Tolerations), pod.Status.Phase)
	for _, step := range res.Rows {
		if step.Outcome == engine.OutcomePatched {
			fmt.Println(step.Type, step.Name)
		}
	}
	// Output:
	// true default Always 2 Pending
	// admission-plugin ServiceAccount
	// admission-plugin Priority
	// admission-plugin DefaultTolerationSeconds
	// preparation registry
}

// A custom resource converted as kube-apiserver converts it for a webhook registered for another
// version: here its CRD converts with strategy None, so only the apiVersion changes; a CRD with
// strategy Webhook is converted by calling its conversion webhook, placed by the Conversion.
func ExampleNewConverter() {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true}, {Name: "v2", Served: true, Storage: true},
			},
		},
	}
	converter, err := chain.NewConverter([]*apiextensionsv1.CustomResourceDefinition{crd}, chain.Conversion{})
	if err != nil {
		panic(err)
	}
	out, err := converter.Convert(context.Background(),
		[]byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3}}`),
		schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output: {"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3}}
}
