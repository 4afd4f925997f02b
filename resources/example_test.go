package resources_test

import (
	"errors"
	"fmt"
	"log"
	"os"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/admitkit/admit/resources"
)

// The kind a webhook receives for a request to a subresource.
func ExampleMapper_KindFor() {
	m, err := resources.Builtin()
	if err != nil {
		log.Fatal(err)
	}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	for _, sub := range []string{"", "status", "eviction", "exec"} {
		kind, err := m.KindFor(pods, sub)
		if err != nil {
			log.Fatal(err)
		}
		name := "pods"
		if sub != "" {
			name += "/" + sub
		}
		fmt.Printf("%-13s %s\n", name, kind)
	}

	_, err = m.KindFor(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "foos"}, "")
	var notFound *resources.NotFoundError
	fmt.Println(errors.As(err, &notFound), err)
	// Output:
	// pods          /v1, Kind=Pod
	// pods/status   /v1, Kind=Pod
	// pods/eviction policy/v1, Kind=Eviction
	// pods/exec     /v1, Kind=PodExecOptions
	// true no resource "foos" in group "example.com" version "v1"
}

// Which resources a webhook rule with matchPolicy Equivalent also matches, in the order the
// apiserver tries them.
func ExampleMapper_Equivalents() {
	m, err := resources.Builtin()
	if err != nil {
		log.Fatal(err)
	}
	for _, gvr := range []schema.GroupVersionResource{
		{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"},
		{Group: "events.k8s.io", Version: "v1", Resource: "events"},
	} {
		fmt.Println(m.Equivalents(gvr, ""))
	}
	// Output:
	// [autoscaling/v2, Resource=horizontalpodautoscalers autoscaling/v1, Resource=horizontalpodautoscalers]
	// [/v1, Resource=events events.k8s.io/v1, Resource=events]
}

// From an object's apiVersion and kind to its resource and scope.
func ExampleMapper_ResourceFor() {
	m, err := resources.Builtin()
	if err != nil {
		log.Fatal(err)
	}
	for _, kind := range []schema.GroupVersionKind{
		{Group: "apps", Version: "v1", Kind: "Deployment"},
		{Version: "v1", Kind: "Namespace"},
	} {
		r, err := m.ResourceFor(kind)
		if err != nil {
			log.Fatal(err)
		}
		sub, _ := r.Subresource("status")
		fmt.Printf("%s: %s, namespaced=%v, status takes %s\n", kind.Kind, r.GVR.Resource, r.Namespaced, sub.Kind.Kind)
	}
	// Output:
	// Deployment: deployments, namespaced=true, status takes Deployment
	// Namespace: namespaces, namespaced=false, status takes Namespace
}

// Custom resources: served versions, their subresources, and every listed version as an
// equivalent.
func ExampleMapper_WithCRDs() {
	builtin, err := resources.Builtin()
	if err != nil {
		log.Fatal(err)
	}
	scale := &apiextensionsv1.CustomResourceSubresources{Scale: &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}}
	m, err := builtin.WithCRDs(&apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Subresources: scale},
				{Name: "v1beta1", Served: false},
			},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	v1 := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	kind, _ := m.KindFor(v1, "scale")
	fmt.Println("scale:", kind)
	fmt.Println("equivalents:", m.Equivalents(v1, ""))
	_, err = m.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1beta1", Resource: "widgets"})
	fmt.Println(err)
	// Output:
	// scale: autoscaling/v1, Kind=Scale
	// equivalents: [example.com/v1, Resource=widgets example.com/v1beta1, Resource=widgets]
	// version "v1beta1" of resource "widgets" in group "example.com" is not served (served in version v1)
}

// A snapshot of a live cluster's resources, written to a file for offline use with FromJSON.
// (Not run here: it needs a cluster.)
func ExampleFromDiscovery() {
	config, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		log.Fatal(err)
	}
	client, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		log.Fatal(err)
	}
	m, err := resources.FromDiscovery(client)
	if err != nil {
		log.Fatal(err)
	}
	data, err := m.MarshalJSON()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("cluster-resources.json", data, 0o644); err != nil {
		log.Fatal(err)
	}
}

func ExampleFromJSON() {
	m, err := resources.FromJSON([]byte(`{
	  "serverVersion": "v1.36.0",
	  "resources": [
	    {"group": "example.com", "version": "v1", "resource": "gadgets", "kind": "Gadget", "namespaced": true,
	     "verbs": ["get", "list"],
	     "subresources": [{"name": "scale", "kind": "Scale", "kindAPIVersion": "autoscaling/v1", "verbs": ["get"]}]}
	  ],
	  "equivalents": []
	}`))
	if err != nil {
		log.Fatal(err)
	}
	kind, err := m.KindFor(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}, "scale")
	fmt.Println(kind, err)
	// Output:
	// autoscaling/v1, Kind=Scale <nil>
}
