package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// notAnAPIType is a runtime.Object no scheme knows.
type notAnAPIType struct {
	metav1.TypeMeta `json:",inline"`
}

func (n *notAnAPIType) DeepCopyObject() runtime.Object { c := *n; return &c }

func TestFromObjects(t *testing.T) {
	typedMutating := toMutating(validValidating())
	typedMutating.Name = "typed"
	unstructuredValidating := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1",
		"kind":       "ValidatingWebhookConfiguration",
		"metadata":   map[string]any{"name": "unstructured", "generation": 3},
		"webhooks":   []any{map[string]any{"name": "u.example.com", "timeoutSeconds": 5, "admissionReviewVersions": []string{"v1"}}},
	}}
	tests := []struct {
		name    string
		objects []runtime.Object
		want    []string
		wantErr string
	}{{
		name: "typed, typed lists, unstructured and other objects",
		objects: []runtime.Object{
			typedMutating,
			&admissionregistrationv1.ValidatingWebhookConfigurationList{Items: []admissionregistrationv1.ValidatingWebhookConfiguration{*validValidating(), *validValidating()}},
			unstructuredValidating,
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "no-type-meta"}},
			&unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List"}, Items: []unstructured.Unstructured{
				{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "listed"}}},
			}},
		},
		want: []string{
			"object 1 (document 1, item 0): mutating typed",
			"object 2, item 1 (document 2, item 1): validating pod-policy",
			"object 2, item 2 (document 2, item 2): validating pod-policy",
			"object 3 (document 3, item 0): validating unstructured",
			"object 4 (document 4, item 0): v1 Namespace no-type-meta",
			"object 5, item 1 (document 5, item 1): v1 ConfigMap listed",
		},
	}, {
		name: "unknown fields in unstructured configurations",
		objects: []runtime.Object{&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
			"metadata": map[string]any{"name": "x"}, "webhooks": []any{map[string]any{"nmae": "typo"}},
		}}},
		wantErr: `object 1: MutatingWebhookConfiguration "x": unknown field "webhooks[0].nmae"`,
	}, {
		name: "v1beta1 configurations",
		objects: []runtime.Object{&admissionregistrationv1beta1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "old"},
		}},
		wantErr: "object 1: admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration is not served since Kubernetes 1.22: use admissionregistration.k8s.io/v1 (where sideEffects and admissionReviewVersions are required, and failurePolicy defaults to Fail)",
	}, {
		name: "admission policies of versions 1.36 does not serve",
		objects: []runtime.Object{
			&admissionregistrationv1beta1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "old"}},
			&admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "current"}},
		},
		wantErr: `object 1: no matches for kind "ValidatingAdmissionPolicy" in version "admissionregistration.k8s.io/v1beta1": Kubernetes 1.36 serves admission policies as admissionregistration.k8s.io/v1, with the same fields`,
	}, {
		name:    "nil objects",
		objects: []runtime.Object{typedMutating, nil, (*admissionregistrationv1.MutatingWebhookConfiguration)(nil)},
		wantErr: "object 2: the object is nil\nobject 3: the object is nil",
	}, {
		name:    "a type no scheme knows",
		objects: []runtime.Object{&notAnAPIType{}},
		wantErr: "object 1: *config.notAnAPIType has no apiVersion and kind, and is not a Kubernetes API type: set its TypeMeta",
	}, {
		name:    "a type no scheme knows, with its TypeMeta set",
		objects: []runtime.Object{&notAnAPIType{TypeMeta: metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Thing"}}},
		want:    []string{"object 1 (document 1, item 0): example.com/v1 Thing "},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := FromObjects(tc.objects...)
			if diff := cmp.Diff(tc.wantErr, errString(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, summarize(set)); diff != "" {
				t.Errorf("set (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromObjectsCopiesAndDefaults(t *testing.T) {
	original := toMutating(validValidating())
	before := original.DeepCopy()
	set, err := FromObjects(original)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, original); diff != "" {
		t.Errorf("FromObjects modified its argument (-before +after):\n%s", diff)
	}
	got := set.Mutating[0].Config.Webhooks[0]
	if got.FailurePolicy == nil || *got.FailurePolicy != admissionregistrationv1.Fail || got.ClientConfig.Service.Port == nil || *got.ClientConfig.Service.Port != 443 {
		t.Errorf("the configuration was not defaulted: %+v", got)
	}
}

func TestFromObjectsUnstructuredWebhookIsDecoded(t *testing.T) {
	set, err := FromObjects(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1",
		"kind":       "ValidatingWebhookConfiguration",
		"metadata":   map[string]any{"name": "u"},
		"webhooks":   []any{map[string]any{"name": "u.example.com", "timeoutSeconds": 5}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: "u"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:              "u.example.com",
			TimeoutSeconds:    ptr(int32(5)),
			FailurePolicy:     ptr(admissionregistrationv1.Fail),
			MatchPolicy:       ptr(admissionregistrationv1.Equivalent),
			NamespaceSelector: &metav1.LabelSelector{},
			ObjectSelector:    &metav1.LabelSelector{},
		}},
	}
	if diff := cmp.Diff(want, set.Validating[0].Config); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
