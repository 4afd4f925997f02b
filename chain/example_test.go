package chain_test

import (
	"context"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
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
