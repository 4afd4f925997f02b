package review

import (
	"cmp"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/admitkit/admit/config"
)

// Input is an object to review, or an old object, with where it came from.
type Input struct {
	// Source says where the object was read, e.g. "deploy/app.yaml:12"; it names the object in
	// messages.
	Source string
	Object *unstructured.Unstructured
}

// Parse reads the objects of one file or stream, named label in sources, in the order they
// appear: documents in order, a List's items in order. Webhook configurations are objects like
// any other here.
func Parse(label string, data []byte) ([]Input, error) {
	set, err := config.Parse(label, data)
	if err != nil {
		return nil, err
	}
	type located struct {
		source config.Source
		object *unstructured.Unstructured
	}
	var objects []located
	for _, m := range set.Mutating {
		objects = append(objects, located{m.Source, toUnstructured(m.Config, "MutatingWebhookConfiguration")})
	}
	for _, v := range set.Validating {
		objects = append(objects, located{v.Source, toUnstructured(v.Config, "ValidatingWebhookConfiguration")})
	}
	for _, other := range set.Others {
		objects = append(objects, located{other.Source, other.Object})
	}
	// config.Parse sorts webhook configurations apart from other objects; their sources give the
	// order back.
	slices.SortStableFunc(objects, func(x, y located) int {
		return cmp.Or(cmp.Compare(x.source.Document, y.source.Document), cmp.Compare(x.source.Line, y.source.Line), cmp.Compare(x.source.Item, y.source.Item))
	})
	out := make([]Input, len(objects))
	for i, o := range objects {
		out[i] = Input{Source: o.source.String(), Object: o.object}
	}
	return out, nil
}

func toUnstructured(obj any, kind string) *unstructured.Unstructured {
	m, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion("admissionregistration.k8s.io/v1")
	u.SetKind(kind)
	return u
}

// objectKey identifies an object for pairing an UPDATE's new and old objects: group, kind,
// namespace and name (the version may differ, as it may between a client and the storage).
type objectKey struct {
	group, kind, namespace, name string
}

func (k objectKey) String() string {
	kind := k.kind
	if k.group != "" {
		kind += "." + k.group
	}
	if k.namespace != "" {
		return fmt.Sprintf("%s %s/%s", kind, k.namespace, k.name)
	}
	return fmt.Sprintf("%s %s", kind, k.name)
}
