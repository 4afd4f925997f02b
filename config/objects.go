package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	sigsjson "sigs.k8s.io/json"
)

// FromObjects builds a Set from Go values: webhook configurations and their Lists, typed or
// unstructured, and objects of other kinds. Webhook configurations are copied, then defaulted
// like loaded ones (the arguments are not modified); unstructured ones are decoded strictly.
// Objects of other kinds are converted to unstructured; when a typed object's apiVersion and kind
// are not set, they are looked up among the Kubernetes API types.
//
// Sources are "object N", N the position in the arguments.
func FromObjects(objects ...runtime.Object) (*Set, error) {
	p := &parser{set: &Set{}}
	for i, object := range objects {
		source := Source{Document: i + 1}
		switch object := object.(type) {
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			if object != nil {
				p.addMutating(object, source)
				continue
			}
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			if object != nil {
				p.addValidating(object, source)
				continue
			}
		case *admissionregistrationv1.MutatingWebhookConfigurationList:
			if object != nil {
				for j := range object.Items {
					p.addMutating(&object.Items[j], Source{Document: i + 1, Item: j + 1})
				}
				continue
			}
		case *admissionregistrationv1.ValidatingWebhookConfigurationList:
			if object != nil {
				for j := range object.Items {
					p.addValidating(&object.Items[j], Source{Document: i + 1, Item: j + 1})
				}
				continue
			}
		}
		content, err := unstructuredContent(object)
		if err != nil {
			p.fail(source, err)
			continue
		}
		p.addContent(content, source)
	}
	if err := errors.Join(p.errs...); err != nil {
		return nil, err
	}
	return p.set, nil
}

func (p *parser) addMutating(config *admissionregistrationv1.MutatingWebhookConfiguration, source Source) {
	config = config.DeepCopy()
	SetDefaultsMutating(config)
	p.set.Mutating = append(p.set.Mutating, Mutating{Source: source, Config: config})
}

func (p *parser) addValidating(config *admissionregistrationv1.ValidatingWebhookConfiguration, source Source) {
	config = config.DeepCopy()
	SetDefaultsValidating(config)
	p.set.Validating = append(p.set.Validating, Validating{Source: source, Config: config})
}

// unstructuredContent converts any object to a fresh map with its apiVersion and kind.
func unstructuredContent(object runtime.Object) (map[string]any, error) {
	if object == nil || reflect.ValueOf(object).IsNil() {
		return nil, errors.New("the object is nil")
	}
	if u, ok := object.(runtime.Unstructured); ok {
		// A JSON round trip copies the content; unlike runtime.DeepCopyJSON it does not panic
		// on values built by hand with Go types JSON does not have (int, []string...).
		data, err := json.Marshal(u.UnstructuredContent())
		if err != nil {
			return nil, fmt.Errorf("encoding %T: %w", object, err)
		}
		var content map[string]any
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &content); err != nil {
			return nil, fmt.Errorf("decoding %T: %w", object, err)
		}
		return content, nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(object)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", object, err)
	}
	gvk := object.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		kinds, _, err := scheme.Scheme.ObjectKinds(object)
		if err != nil || len(kinds) == 0 {
			return nil, fmt.Errorf("%T has no apiVersion and kind, and is not a Kubernetes API type: set its TypeMeta", object)
		}
		gvk = kinds[0]
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(gvk)
	return u.Object, nil
}
