package resources

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/openapi/openapitest"
	clienttesting "k8s.io/client-go/testing"
)

// stubDiscovery answers discovery from fixed data. The client-go fake cannot report a partial
// failure or serve OpenAPI v3, so those two methods are replaced.
type stubDiscovery struct {
	*fakediscovery.FakeDiscovery
	groups  []*metav1.APIGroup
	lists   []*metav1.APIResourceList
	err     error
	openAPI openapi.Client
}

func (s stubDiscovery) ServerGroupsAndResources() ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	return s.groups, s.lists, s.err
}

func (s stubDiscovery) OpenAPIV3() openapi.Client { return s.openAPI }

func apiGroup(name string, versions ...string) *metav1.APIGroup {
	g := &metav1.APIGroup{Name: name}
	for _, v := range versions {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: schema.GroupVersion{Group: name, Version: v}.String(), Version: v})
	}
	return g
}

// coreV1OpenAPI marks pods/exec as a connect subresource; pods/status is an ordinary one.
const coreV1OpenAPI = `{"openapi": "3.0.0", "paths": {
	"/api/v1/namespaces/{namespace}/pods/{name}/exec": {
		"parameters": [{"name": "name", "in": "path"}],
		"get": {"operationId": "connectCoreV1GetNamespacedPodExec", "x-kubernetes-action": "connect"},
		"post": {"operationId": "connectCoreV1PostNamespacedPodExec", "x-kubernetes-action": "connect"}
	},
	"/api/v1/namespaces/{namespace}/pods/{name}/status": {
		"get": {"x-kubernetes-action": "get"}, "patch": {"x-kubernetes-action": "patch"}
	},
	"/api/v1/nodes/{name}/proxy/{path}": {"head": {"x-kubernetes-action": "connect"}}
}}`

func newStubDiscovery() stubDiscovery {
	all := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	return stubDiscovery{
		FakeDiscovery: &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}, FakedServerVersion: &version.Info{GitVersion: "v1.36.9"}},
		groups: []*metav1.APIGroup{
			apiGroup("", "v1"),
			apiGroup("events.k8s.io", "v1"),
			apiGroup("autoscaling", "v2", "v1"),
			// Discovery's order, not the sorted one, decides equivalence order.
			apiGroup("example.com", "v1", "v2"),
		},
		lists: []*metav1.APIResourceList{
			{GroupVersion: "v1", APIResources: []metav1.APIResource{
				{Name: "pods", Kind: "Pod", Namespaced: true, Verbs: all},
				{Name: "pods/exec", Kind: "PodExecOptions", Namespaced: true, Verbs: []string{"get", "create"}},
				{Name: "pods/eviction", Group: "policy", Version: "v1", Kind: "Eviction", Namespaced: true, Verbs: []string{"create"}},
				{Name: "pods/status", Kind: "Pod", Namespaced: true, Verbs: []string{"update", "get", "patch"}},
				{Name: "events", Kind: "Event", Namespaced: true, Verbs: all},
				{Name: "nodes", Kind: "Node", Verbs: all},
				{Name: "nodes/proxy", Kind: "NodeProxyOptions", Verbs: []string{"get"}},
			}},
			{GroupVersion: "events.k8s.io/v1", APIResources: []metav1.APIResource{
				{Name: "events", Kind: "Event", Namespaced: true, Verbs: all},
			}},
			{GroupVersion: "autoscaling/v1", APIResources: []metav1.APIResource{
				{Name: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler", Namespaced: true, Verbs: all},
			}},
			{GroupVersion: "autoscaling/v2", APIResources: []metav1.APIResource{
				{Name: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler", Namespaced: true, Verbs: all},
			}},
			{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{{Name: "foos", Kind: "Foo", Verbs: all}}},
			{GroupVersion: "example.com/v2", APIResources: []metav1.APIResource{{Name: "foos", Kind: "Foo", Verbs: all}}},
		},
		openAPI: &openapitest.FakeClient{PathsMap: map[string]openapi.GroupVersion{
			"api/v1": openapitest.FakeGroupVersion{GVSpec: []byte(coreV1OpenAPI)},
		}},
	}
}

func TestFromDiscovery(t *testing.T) {
	m, err := FromDiscovery(newStubDiscovery())
	if err != nil {
		t.Fatal(err)
	}
	all := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	want := []Resource{
		{GVR: gvr("", "v1", "events"), Kind: gvk("", "v1", "Event"), Namespaced: true, Verbs: all},
		{GVR: gvr("", "v1", "nodes"), Kind: gvk("", "v1", "Node"), Verbs: all, Subresources: []Subresource{
			{Name: "proxy", Kind: gvk("", "v1", "NodeProxyOptions"), Verbs: []string{"get"}, Connect: true},
		}},
		{GVR: gvr("", "v1", "pods"), Kind: gvk("", "v1", "Pod"), Namespaced: true, Verbs: all, Subresources: []Subresource{
			{Name: "eviction", Kind: gvk("policy", "v1", "Eviction"), Verbs: []string{"create"}},
			{Name: "exec", Kind: gvk("", "v1", "PodExecOptions"), Verbs: []string{"create", "get"}, Connect: true},
			{Name: "status", Kind: gvk("", "v1", "Pod"), Verbs: []string{"get", "patch", "update"}},
		}},
		{GVR: gvr("autoscaling", "v2", "horizontalpodautoscalers"), Kind: gvk("autoscaling", "v2", "HorizontalPodAutoscaler"), Namespaced: true, Verbs: all},
		{GVR: gvr("autoscaling", "v1", "horizontalpodautoscalers"), Kind: gvk("autoscaling", "v1", "HorizontalPodAutoscaler"), Namespaced: true, Verbs: all},
		{GVR: gvr("events.k8s.io", "v1", "events"), Kind: gvk("events.k8s.io", "v1", "Event"), Namespaced: true, Verbs: all},
		{GVR: gvr("example.com", "v2", "foos"), Kind: gvk("example.com", "v2", "Foo"), Verbs: all},
		{GVR: gvr("example.com", "v1", "foos"), Kind: gvk("example.com", "v1", "Foo"), Verbs: all},
	}
	if diff := cmp.Diff(want, m.Resources()); diff != "" {
		t.Errorf("Resources (-want +got):\n%s", diff)
	}
	if m.ServerVersion() != "v1.36.9" {
		t.Errorf("ServerVersion() = %q", m.ServerVersion())
	}

	equivalents := []struct {
		of   schema.GroupVersionResource
		want []schema.GroupVersionResource
	}{
		{of: gvr("events.k8s.io", "v1", "events"), want: []schema.GroupVersionResource{gvr("", "v1", "events"), gvr("events.k8s.io", "v1", "events")}},
		{of: gvr("autoscaling", "v1", "horizontalpodautoscalers"), want: []schema.GroupVersionResource{
			gvr("autoscaling", "v2", "horizontalpodautoscalers"), gvr("autoscaling", "v1", "horizontalpodautoscalers"),
		}},
		{of: gvr("example.com", "v2", "foos"), want: []schema.GroupVersionResource{gvr("example.com", "v1", "foos"), gvr("example.com", "v2", "foos")}},
	}
	for _, e := range equivalents {
		if diff := cmp.Diff(e.want, m.Equivalents(e.of, "")); diff != "" {
			t.Errorf("Equivalents(%v) (-want +got):\n%s", e.of, diff)
		}
	}
}

func TestFromDiscoveryPartialFailure(t *testing.T) {
	stub := newStubDiscovery()
	stub.err = &discovery.ErrGroupDiscoveryFailed{Groups: map[schema.GroupVersion]error{
		{Group: "metrics.k8s.io", Version: "v1beta1"}: errors.New("the server is currently unable to handle the request"),
	}}
	stub.openAPI = &openapitest.FakeClient{PathsMap: map[string]openapi.GroupVersion{}}
	m, err := FromDiscovery(stub)
	want := "reading discovery: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request\n" +
		"no OpenAPI v3 document for v1 to find CONNECT subresources in"
	if diff := cmp.Diff(want, errString(err)); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	if m == nil {
		t.Fatal("no Mapper of what could be read")
	}
	if _, err := m.Resource(gvr("", "v1", "pods")); err != nil {
		t.Errorf("the partial Mapper lacks pods: %v", err)
	}
}

func TestFromDiscoveryErrors(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*stubDiscovery)
		wantErr string
	}{
		{
			name:    "discovery fails",
			change:  func(s *stubDiscovery) { s.err = errors.New("connection refused") },
			wantErr: "reading discovery: connection refused",
		},
		{
			name:    "server version fails",
			change:  func(s *stubDiscovery) { s.Fake.AddReactor("get", "version", failWith("unauthorized")) },
			wantErr: "reading the server version: unauthorized",
		},
		{
			name: "subresource without its resource",
			change: func(s *stubDiscovery) {
				s.lists[1].APIResources = append(s.lists[1].APIResources, metav1.APIResource{Name: "widgets/status", Kind: "Widget"})
			},
			wantErr: `discovery of events.k8s.io/v1 lists subresource "widgets/status" of unlisted resource "widgets"`,
		},
		{
			name: "resource twice",
			change: func(s *stubDiscovery) {
				s.lists[1].APIResources = append(s.lists[1].APIResources, s.lists[1].APIResources[0])
			},
			wantErr: `discovery of events.k8s.io/v1 lists resource "events" twice`,
		},
		{
			name:    "OpenAPI unavailable",
			change:  func(s *stubDiscovery) { s.openAPI = &openapitest.FakeClient{ForcedErr: errors.New("not found")} },
			wantErr: "listing OpenAPI v3 documents to find CONNECT subresources: not found",
		},
		{
			name: "OpenAPI document unreadable",
			change: func(s *stubDiscovery) {
				s.openAPI = &openapitest.FakeClient{PathsMap: map[string]openapi.GroupVersion{"api/v1": openapitest.FakeGroupVersion{GVSpec: []byte("{")}}}
			},
			wantErr: "OpenAPI v3 document of v1: decoding: unexpected end of JSON input",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := newStubDiscovery()
			tt.change(&stub)
			_, err := FromDiscovery(stub)
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func failWith(message string) clienttesting.ReactionFunc {
	return func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New(message)
	}
}
