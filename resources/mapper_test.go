package resources

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func builtin(t *testing.T) *Mapper {
	t.Helper()
	m, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func gvr(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}

func gvk(group, version, kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: group, Version: version, Kind: kind}
}

// errString is "" for a nil error, so that want and got compare in one table column.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestBuiltinKindFor(t *testing.T) {
	m := builtin(t)
	tests := []struct {
		name        string
		resource    schema.GroupVersionResource
		subresource string
		want        schema.GroupVersionKind
		wantErr     string
	}{
		{name: "pods", resource: gvr("", "v1", "pods"), want: gvk("", "v1", "Pod")},
		{name: "pods/status takes a Pod", resource: gvr("", "v1", "pods"), subresource: "status", want: gvk("", "v1", "Pod")},
		{name: "pods/eviction takes a policy/v1 Eviction", resource: gvr("", "v1", "pods"), subresource: "eviction", want: gvk("policy", "v1", "Eviction")},
		{name: "pods/attach takes its connect options", resource: gvr("", "v1", "pods"), subresource: "attach", want: gvk("", "v1", "PodAttachOptions")},
		{name: "pods/exec", resource: gvr("", "v1", "pods"), subresource: "exec", want: gvk("", "v1", "PodExecOptions")},
		{name: "pods/binding", resource: gvr("", "v1", "pods"), subresource: "binding", want: gvk("", "v1", "Binding")},
		{name: "serviceaccounts/token", resource: gvr("", "v1", "serviceaccounts"), subresource: "token", want: gvk("authentication.k8s.io", "v1", "TokenRequest")},
		{name: "deployments apps/v1", resource: gvr("apps", "v1", "deployments"), want: gvk("apps", "v1", "Deployment")},
		{name: "deployments/scale", resource: gvr("apps", "v1", "deployments"), subresource: "scale", want: gvk("autoscaling", "v1", "Scale")},
		{name: "hpa v1", resource: gvr("autoscaling", "v1", "horizontalpodautoscalers"), want: gvk("autoscaling", "v1", "HorizontalPodAutoscaler")},
		{name: "hpa v2", resource: gvr("autoscaling", "v2", "horizontalpodautoscalers"), want: gvk("autoscaling", "v2", "HorizontalPodAutoscaler")},
		{name: "events.k8s.io events", resource: gvr("events.k8s.io", "v1", "events"), want: gvk("events.k8s.io", "v1", "Event")},
		{name: "namespaces/finalize", resource: gvr("", "v1", "namespaces"), subresource: "finalize", want: gvk("", "v1", "Namespace")},
		{
			name: "unknown resource", resource: gvr("example.com", "v1", "foos"),
			wantErr: `no resource "foos" in group "example.com" version "v1"`,
		},
		{
			name: "version no longer served", resource: gvr("autoscaling", "v2beta2", "horizontalpodautoscalers"),
			wantErr: `no resource "horizontalpodautoscalers" in group "autoscaling" version "v2beta2" (served in versions v2, v1)`,
		},
		{
			name: "group not served any more", resource: gvr("extensions", "v1beta1", "deployments"),
			wantErr: `no resource "deployments" in group "extensions" version "v1beta1"`,
		},
		{
			name: "singular resource name", resource: gvr("", "v1", "pod"),
			wantErr: `no resource "pod" in group "" version "v1" (resource names are lower-case plurals: did you mean "pods"?)`,
		},
		{
			name: "kind instead of resource", resource: gvr("apps", "v1", "Deployment"),
			wantErr: `no resource "Deployment" in group "apps" version "v1" (resource names are lower-case plurals: did you mean "deployments"?)`,
		},
		{
			name: "upper-case resource", resource: gvr("", "v1", "Pods"),
			wantErr: `no resource "Pods" in group "" version "v1" (resource names are lower-case plurals: did you mean "pods"?)`,
		},
		{
			name: "unknown subresource", resource: gvr("apps", "v1", "deployments"), subresource: "rollback",
			wantErr: `resource "deployments" in group "apps" version "v1" has no subresource "rollback" (it has scale, status)`,
		},
		{
			name: "resource without subresources", resource: gvr("", "v1", "configmaps"), subresource: "status",
			wantErr: `resource "configmaps" in group "" version "v1" has no subresource "status" (it has no subresources)`,
		},
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
			if err != nil {
				var notFound *NotFoundError
				if !errors.As(err, &notFound) || notFound.Resource != tt.resource || notFound.Subresource != tt.subresource {
					t.Errorf("error %#v is not a NotFoundError for %v %q", err, tt.resource, tt.subresource)
				}
			}
		})
	}
}

func TestBuiltinResource(t *testing.T) {
	m := builtin(t)
	allVerbs := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	statusVerbs := []string{"get", "patch", "update"}
	tests := []struct {
		name     string
		resource schema.GroupVersionResource
		want     Resource
	}{
		{
			name:     "deployments are namespaced with scale and status",
			resource: gvr("apps", "v1", "deployments"),
			want: Resource{
				GVR: gvr("apps", "v1", "deployments"), Kind: gvk("apps", "v1", "Deployment"), Namespaced: true, Verbs: allVerbs,
				Subresources: []Subresource{
					{Name: "scale", Kind: gvk("autoscaling", "v1", "Scale"), Verbs: statusVerbs},
					{Name: "status", Kind: gvk("apps", "v1", "Deployment"), Verbs: statusVerbs},
				},
			},
		},
		{
			name:     "namespaces are cluster-scoped and cannot be deleted as a collection",
			resource: gvr("", "v1", "namespaces"),
			want: Resource{
				GVR: gvr("", "v1", "namespaces"), Kind: gvk("", "v1", "Namespace"), Namespaced: false,
				Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"},
				Subresources: []Subresource{
					{Name: "finalize", Kind: gvk("", "v1", "Namespace"), Verbs: []string{"update"}},
					{Name: "status", Kind: gvk("", "v1", "Namespace"), Verbs: statusVerbs},
				},
			},
		},
		{
			name:     "review resources are create-only",
			resource: gvr("authorization.k8s.io", "v1", "subjectaccessreviews"),
			want: Resource{
				GVR: gvr("authorization.k8s.io", "v1", "subjectaccessreviews"), Kind: gvk("authorization.k8s.io", "v1", "SubjectAccessReview"),
				Verbs: []string{"create"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.Resource(tt.resource)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuiltinConnectSubresources(t *testing.T) {
	m := builtin(t)
	var got []string
	for _, r := range m.Resources() {
		for _, s := range r.Subresources {
			if s.Connect {
				got = append(got, r.GVR.Resource+"/"+s.Name+" "+s.Kind.Kind)
			}
		}
	}
	want := []string{
		"nodes/proxy NodeProxyOptions",
		"pods/attach PodAttachOptions",
		"pods/exec PodExecOptions",
		"pods/portforward PodPortForwardOptions",
		"pods/proxy PodProxyOptions",
		"services/proxy ServiceProxyOptions",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CONNECT subresources (-want +got):\n%s", diff)
	}
}

func TestBuiltinResourceFor(t *testing.T) {
	m := builtin(t)
	tests := []struct {
		name    string
		kind    schema.GroupVersionKind
		want    schema.GroupVersionResource
		wantErr string
	}{
		{name: "Deployment", kind: gvk("apps", "v1", "Deployment"), want: gvr("apps", "v1", "deployments")},
		{name: "core Event", kind: gvk("", "v1", "Event"), want: gvr("", "v1", "events")},
		{name: "events.k8s.io Event", kind: gvk("events.k8s.io", "v1", "Event"), want: gvr("events.k8s.io", "v1", "events")},
		{name: "Endpoints", kind: gvk("", "v1", "Endpoints"), want: gvr("", "v1", "endpoints")},
		{name: "Binding is also a top-level resource", kind: gvk("", "v1", "Binding"), want: gvr("", "v1", "bindings")},
		{
			name: "Scale is only a subresource kind", kind: gvk("autoscaling", "v1", "Scale"),
			wantErr: `no resource for kind "Scale" in group "autoscaling" version "v1"`,
		},
		{
			name: "old version", kind: gvk("apps", "v1beta2", "Deployment"),
			wantErr: `no resource for kind "Deployment" in group "apps" version "v1beta2" (served in version v1)`,
		},
		{
			name: "wrong case", kind: gvk("apps", "v1", "deployment"),
			wantErr: `no resource for kind "deployment" in group "apps" version "v1" (kinds are case-sensitive: did you mean "Deployment"?)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.ResourceFor(tt.kind)
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got.GVR); diff != "" {
				t.Errorf("resource (-want +got):\n%s", diff)
			}
			if err == nil && got.Kind != tt.kind {
				t.Errorf("resource %v has kind %v, want %v", got.GVR, got.Kind, tt.kind)
			}
		})
	}
}

func TestBuiltinEquivalents(t *testing.T) {
	m := builtin(t)
	hpaV1, hpaV2 := gvr("autoscaling", "v1", "horizontalpodautoscalers"), gvr("autoscaling", "v2", "horizontalpodautoscalers")
	coreEvents, events := gvr("", "v1", "events"), gvr("events.k8s.io", "v1", "events")
	tests := []struct {
		name        string
		resource    schema.GroupVersionResource
		subresource string
		want        []schema.GroupVersionResource
	}{
		{name: "hpa v1 is v2 and v1, preferred version first", resource: hpaV1, want: []schema.GroupVersionResource{hpaV2, hpaV1}},
		{name: "hpa v2", resource: hpaV2, want: []schema.GroupVersionResource{hpaV2, hpaV1}},
		{name: "hpa status", resource: hpaV1, subresource: "status", want: []schema.GroupVersionResource{hpaV2, hpaV1}},
		{name: "hpa has no scale", resource: hpaV1, subresource: "scale"},
		{name: "core events, core group first", resource: coreEvents, want: []schema.GroupVersionResource{coreEvents, events}},
		{name: "events.k8s.io events", resource: events, want: []schema.GroupVersionResource{coreEvents, events}},
		{name: "pods stand alone", resource: gvr("", "v1", "pods"), want: []schema.GroupVersionResource{gvr("", "v1", "pods")}},
		{name: "deployments/scale", resource: gvr("apps", "v1", "deployments"), subresource: "scale", want: []schema.GroupVersionResource{gvr("apps", "v1", "deployments")}},
		{
			name: "the version asked for does not matter, as in the apiserver", resource: gvr("autoscaling", "v2beta2", "horizontalpodautoscalers"),
			want: []schema.GroupVersionResource{hpaV2, hpaV1},
		},
		{name: "unknown resource", resource: gvr("example.com", "v1", "foos")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, m.Equivalents(tt.resource, tt.subresource)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The equivalence classes of more than one member in Kubernetes 1.36. Regenerated data that
// changes them fails here, so that the change is looked at.
func TestBuiltinEquivalenceClasses(t *testing.T) {
	m := builtin(t)
	var got [][]schema.GroupVersionResource
	for _, class := range m.classes() {
		if len(class) > 1 {
			got = append(got, class)
		}
	}
	want := [][]schema.GroupVersionResource{
		{gvr("", "v1", "events"), gvr("events.k8s.io", "v1", "events")},
		{gvr("autoscaling", "v2", "horizontalpodautoscalers"), gvr("autoscaling", "v1", "horizontalpodautoscalers")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBuiltinData(t *testing.T) {
	m := builtin(t)
	if got, want := m.ServerVersion(), "v1.36.3"; got != want {
		t.Errorf("ServerVersion() = %q, want %q", got, want)
	}
	all := m.Resources()
	if len(all) < 60 {
		t.Fatalf("only %d built-in resources", len(all))
	}
	for i, r := range all {
		if i > 0 && compareGVR(all[i-1].GVR, r.GVR) >= 0 {
			t.Errorf("resources out of order: %v before %v", all[i-1].GVR, r.GVR)
		}
		if r.Kind.GroupVersion() != r.GVR.GroupVersion() {
			t.Errorf("%v has kind %v of another group-version", r.GVR, r.Kind)
		}
		if len(r.Verbs) == 0 {
			t.Errorf("%v has no verbs", r.GVR)
		}
		for _, s := range r.Subresources {
			if len(s.Verbs) == 0 {
				t.Errorf("%v subresource %q has no verbs", r.GVR, s.Name)
			}
		}
	}
	// Every version a group serves, not only the preferred one.
	if _, err := m.Resource(gvr("autoscaling", "v1", "horizontalpodautoscalers")); err != nil {
		t.Error(err)
	}
}

// What a caller does with a Resource it got must not change the Mapper.
func TestMapperIsImmutable(t *testing.T) {
	m := builtin(t)
	pods := gvr("", "v1", "pods")
	r, err := m.Resource(pods)
	if err != nil {
		t.Fatal(err)
	}
	r.Verbs[0] = "changed"
	r.Subresources[0].Name = "changed"
	r.Subresources[0].Verbs[0] = "changed"
	for _, listed := range m.Resources() {
		if listed.GVR == pods {
			listed.Verbs[1] = "changed"
		}
	}
	again, err := m.Resource(pods)
	if err != nil {
		t.Fatal(err)
	}
	if again.Verbs[0] != "create" || again.Verbs[1] != "delete" || again.Subresources[0].Name != "attach" || again.Subresources[0].Verbs[0] != "create" {
		t.Errorf("the Mapper changed: %+v", again)
	}
}

func TestResourceSubresource(t *testing.T) {
	r := Resource{Subresources: []Subresource{{Name: "status"}, {Name: "scale"}}}
	for _, tt := range []struct {
		name  string
		found bool
	}{{"scale", true}, {"status", true}, {"eviction", false}, {"", false}} {
		got, found := r.Subresource(tt.name)
		if found != tt.found || (found && got.Name != tt.name) {
			t.Errorf("Subresource(%q) = %+v, %v; want found=%v", tt.name, got, found, tt.found)
		}
	}
}

func TestAnonymous(t *testing.T) {
	m, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind schema.GroupVersionKind
		want bool
	}{
		{schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "SelfSubjectReview"}, true},
		{schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview"}, true},
		{schema.GroupVersionKind{Group: "authorization.k8s.io", Version: "v1", Kind: "LocalSubjectAccessReview"}, true},
		{schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, false},
		{schema.GroupVersionKind{Version: "v1", Kind: "Binding"}, false},
	}
	for _, tt := range tests {
		res, err := m.ResourceFor(tt.kind)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Anonymous(); got != tt.want {
			t.Errorf("%s: Anonymous() = %v, want %v (verbs %v)", tt.kind.Kind, got, tt.want, res.Verbs)
		}
	}
}
