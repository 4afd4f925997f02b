package resources

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// foosCRD serves v1 and v2, lists v3 without serving it, and gives v1 a status and v2 both a
// status and a scale subresource.
func foosCRD() *apiextensionsv1.CustomResourceDefinition {
	status := &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
	statusAndScale := &apiextensionsv1.CustomResourceSubresources{
		Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
		Scale:  &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"},
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "foos.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "foos", Singular: "foo", Kind: "Foo", ListKind: "FooList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Subresources: status},
				{Name: "v2", Served: true, Storage: true, Subresources: statusAndScale},
				{Name: "v3", Served: false, Subresources: statusAndScale},
			},
		},
	}
}

func withFoos(t *testing.T) *Mapper {
	t.Helper()
	m, err := builtin(t).WithCRDs(foosCRD())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWithCRDsKindFor(t *testing.T) {
	m := withFoos(t)
	tests := []struct {
		name        string
		resource    schema.GroupVersionResource
		subresource string
		want        schema.GroupVersionKind
		wantErr     string
	}{
		{name: "v1", resource: gvr("example.com", "v1", "foos"), want: gvk("example.com", "v1", "Foo")},
		{name: "v2 status", resource: gvr("example.com", "v2", "foos"), subresource: "status", want: gvk("example.com", "v2", "Foo")},
		{name: "v2 scale", resource: gvr("example.com", "v2", "foos"), subresource: "scale", want: gvk("autoscaling", "v1", "Scale")},
		{name: "v3 is known although not served, as in the apiserver", resource: gvr("example.com", "v3", "foos"), want: gvk("example.com", "v3", "Foo")},
		{
			name: "v1 has no scale", resource: gvr("example.com", "v1", "foos"), subresource: "scale",
			wantErr: `resource "foos" in group "example.com" version "v1" has no subresource "scale" (it has status)`,
		},
		{
			name: "v4 does not exist", resource: gvr("example.com", "v4", "foos"),
			wantErr: `no resource "foos" in group "example.com" version "v4" (served in versions v1, v2)`,
		},
		{name: "built-in resources are still there", resource: gvr("", "v1", "pods"), subresource: "eviction", want: gvk("policy", "v1", "Eviction")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.KindFor(tt.resource, tt.subresource)
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("kind (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWithCRDsResource(t *testing.T) {
	m := withFoos(t)
	got, err := m.Resource(gvr("example.com", "v2", "foos"))
	if err != nil {
		t.Fatal(err)
	}
	statusVerbs := []string{"get", "patch", "update"}
	want := Resource{
		GVR: gvr("example.com", "v2", "foos"), Kind: gvk("example.com", "v2", "Foo"), Namespaced: true,
		Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
		Subresources: []Subresource{
			{Name: "scale", Kind: gvk("autoscaling", "v1", "Scale"), Verbs: statusVerbs},
			{Name: "status", Kind: gvk("example.com", "v2", "Foo"), Verbs: statusVerbs},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	byKind, err := m.ResourceFor(gvk("example.com", "v1", "Foo"))
	if err != nil || byKind.GVR != gvr("example.com", "v1", "foos") {
		t.Errorf("ResourceFor(example.com/v1 Foo) = %v, %v; want example.com/v1 foos", byKind.GVR, err)
	}

	_, err = m.Resource(gvr("example.com", "v3", "foos"))
	if diff := cmp.Diff(`version "v3" of resource "foos" in group "example.com" is not served (served in versions v1, v2)`, errString(err)); diff != "" {
		t.Errorf("Resource(v3) error (-want +got):\n%s", diff)
	}
	_, err = m.ResourceFor(gvk("example.com", "v3", "Foo"))
	if diff := cmp.Diff(`no resource for kind "Foo" in group "example.com" version "v3" (served in versions v1, v2)`, errString(err)); diff != "" {
		t.Errorf("ResourceFor(v3) error (-want +got):\n%s", diff)
	}
	for _, r := range m.Resources() {
		if r.GVR.Version == "v3" && r.GVR.Group == "example.com" {
			t.Errorf("Resources() lists the unserved %v", r.GVR)
		}
	}
}

func TestWithCRDsEquivalents(t *testing.T) {
	m := withFoos(t)
	v1, v2, v3 := gvr("example.com", "v1", "foos"), gvr("example.com", "v2", "foos"), gvr("example.com", "v3", "foos")
	tests := []struct {
		name        string
		resource    schema.GroupVersionResource
		subresource string
		want        []schema.GroupVersionResource
	}{
		{name: "every version in spec order, the unserved too", resource: v1, want: []schema.GroupVersionResource{v1, v2, v3}},
		{name: "from v3", resource: v3, want: []schema.GroupVersionResource{v1, v2, v3}},
		{name: "status", resource: v2, subresource: "status", want: []schema.GroupVersionResource{v1, v2, v3}},
		{name: "scale only where declared", resource: v2, subresource: "scale", want: []schema.GroupVersionResource{v2, v3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, m.Equivalents(tt.resource, tt.subresource)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestWithCRDsLeavesTheOriginalAlone(t *testing.T) {
	base := builtin(t)
	if _, err := base.WithCRDs(foosCRD()); err != nil {
		t.Fatal(err)
	}
	if _, err := base.KindFor(gvr("example.com", "v1", "foos"), ""); err == nil {
		t.Error("the original Mapper learnt the CRD")
	}
}

func TestWithCRDsClusterScoped(t *testing.T) {
	crd := foosCRD()
	crd.Spec.Scope = apiextensionsv1.ClusterScoped
	m, err := builtin(t).WithCRDs(crd)
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Resource(gvr("example.com", "v1", "foos"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Namespaced {
		t.Error("a cluster-scoped CRD's resource is namespaced")
	}
}

func TestWithCRDsErrors(t *testing.T) {
	tests := []struct {
		name    string
		crds    func() []*apiextensionsv1.CustomResourceDefinition
		wantErr string
	}{
		{
			name: "nil",
			crds: func() []*apiextensionsv1.CustomResourceDefinition {
				return []*apiextensionsv1.CustomResourceDefinition{foosCRD(), nil}
			},
			wantErr: `CustomResourceDefinition 2 of 2 is nil`,
		},
		{
			name:    "no group",
			crds:    one(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Group = "" }),
			wantErr: `CustomResourceDefinition "foos.example.com": spec.group is empty`,
		},
		{
			name:    "no plural",
			crds:    one(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Names.Plural = "" }),
			wantErr: `CustomResourceDefinition "foos.example.com": spec.names.plural is empty`,
		},
		{
			name: "upper-case plural",
			crds: one(func(c *apiextensionsv1.CustomResourceDefinition) {
				c.Spec.Names.Plural = "Foos"
				c.Name = "Foos.example.com"
			}),
			wantErr: `CustomResourceDefinition "Foos.example.com": spec.names.plural "Foos" must be lower-case and contain no "/"`,
		},
		{
			name:    "no kind",
			crds:    one(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Names.Kind = "" }),
			wantErr: `CustomResourceDefinition "foos.example.com": spec.names.kind is empty`,
		},
		{
			name:    "name does not match",
			crds:    one(func(c *apiextensionsv1.CustomResourceDefinition) { c.Name = "foo.example.com" }),
			wantErr: `CustomResourceDefinition "foo.example.com": metadata.name must be spec.names.plural + "." + spec.group, "foos.example.com"`,
		},
		{
			name:    "bad scope",
			crds:    one(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = "Global" }),
			wantErr: `CustomResourceDefinition "foos.example.com": spec.scope is "Global", want "Namespaced" or "Cluster"`,
		},
		{
			name:    "no versions",
			crds:    one(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions = nil }),
			wantErr: `CustomResourceDefinition "foos.example.com": spec.versions is empty`,
		},
		{
			name:    "unnamed version",
			crds:    one(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[1].Name = "" }),
			wantErr: `CustomResourceDefinition "foos.example.com": spec.versions[1].name is empty`,
		},
		{
			name:    "version twice",
			crds:    one(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[2].Name = "v1" }),
			wantErr: `CustomResourceDefinition "foos.example.com": spec.versions[2]: version "v1" is listed twice`,
		},
		{
			name: "a built-in resource",
			crds: one(func(c *apiextensionsv1.CustomResourceDefinition) {
				c.Name, c.Spec.Group, c.Spec.Names.Plural = "deployments.apps", "apps", "deployments"
			}),
			wantErr: `CustomResourceDefinition "deployments.apps": resource "deployments" in group "apps": it is already defined`,
		},
		{
			name: "the same CRD twice",
			crds: func() []*apiextensionsv1.CustomResourceDefinition {
				return []*apiextensionsv1.CustomResourceDefinition{foosCRD(), foosCRD()}
			},
			wantErr: `CustomResourceDefinition "foos.example.com": resource "foos" in group "example.com": CustomResourceDefinition "foos.example.com" defines it too`,
		},
		{
			name: "a kind a built-in resource serves",
			crds: one(func(c *apiextensionsv1.CustomResourceDefinition) {
				c.Name, c.Spec.Group, c.Spec.Names.Kind = "foos.apps", "apps", "Deployment"
			}),
			wantErr: `adding CustomResourceDefinitions: kind "Deployment" in group "apps" version "v1" is served by two resources, "deployments" and "foos"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := builtin(t).WithCRDs(tt.crds()...)
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// one returns foosCRD changed by change.
func one(change func(*apiextensionsv1.CustomResourceDefinition)) func() []*apiextensionsv1.CustomResourceDefinition {
	return func() []*apiextensionsv1.CustomResourceDefinition {
		crd := foosCRD()
		change(crd)
		return []*apiextensionsv1.CustomResourceDefinition{crd}
	}
}
