package convert_test

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/resources/convert"
)

// An autoscaling/v1 HorizontalPodAutoscaler as a webhook whose rule names autoscaling/v2 sees it.
func ExampleConverter_Convert() {
	c, err := convert.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	v1 := `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},
		"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"minReplicas":1,"maxReplicas":5,"targetCPUUtilizationPercentage":60}}`
	v2, err := c.Convert(context.Background(), json.RawMessage(v1), schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"})
	if err != nil {
		fmt.Println(err)
		return
	}
	var object struct {
		APIVersion string `json:"apiVersion"`
		Spec       struct {
			Metrics json.RawMessage `json:"metrics"`
		} `json:"spec"`
	}
	_ = json.Unmarshal(v2, &object)
	fmt.Println(object.APIVersion)
	fmt.Println(string(object.Spec.Metrics))
	// Output:
	// autoscaling/v2
	// [{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}}]
}

// The dispatcher takes a Converter for webhooks matched through matchPolicy Equivalent, with the
// resource mapper that says which resources are equivalent.
func ExampleNew() {
	c, err := convert.New() // pass CustomResourceDefinitions for custom resources
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = dispatch.New(dispatch.Options{Converter: c})
	fmt.Println(err)
	// Output: <nil>
}
