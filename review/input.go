package review

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/manifest"
)

// Input is an object to review, or an old object, with where it came from.
type Input struct {
	// Source says where the object was read, e.g. "deploy/app.yaml:12"; it names the object in
	// messages.
	Source string
	Object *unstructured.Unstructured
}

// Inputs are the objects package manifest read, to review.
func Inputs(objects []manifest.Object) []Input {
	out := make([]Input, len(objects))
	for i, o := range objects {
		out[i] = Input{Source: o.Source.String(), Object: o.Object}
	}
	return out
}

// Parse reads the objects of one file or stream, named label in sources, in the order they
// appear, as package manifest reads every input: documents in order, a List's items in order.
func Parse(label string, data []byte) ([]Input, error) {
	objects, err := manifest.Parse(label, data)
	if err != nil {
		return nil, err
	}
	return Inputs(objects), nil
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
