package webhook

import (
	"path"
	"reflect"
	"regexp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/webhook/internal/kinds"
)

// handlerKind is what a handler's Go type says of the kinds it decodes: exactly (a Kubernetes
// API type, or a type a Scheme knows), by its name only (a type of your own in a versioned API
// package, without a Scheme), or nothing (any kind: a HandlerFunc, unstructured objects,
// metadata only, or a partial view of your own).
type handlerKind struct {
	// goType names the handler's type in messages, e.g. "*v1.Widget".
	goType string
	// exact are the kinds the type is, and source says who says so.
	exact  []schema.GroupVersionKind
	source string
	// named is set for a type named after a kind in a versioned package, e.g. Widget in
	// example.com/api/v1: its kind and version are known, its group is not.
	named *schema.GroupVersionKind
	// unregistered is set when a Scheme was given but does not know the type.
	unregistered bool
}

// apiVersionPattern matches the last element of an API types package: v1, v1beta1, v2alpha3.
func apiVersionPattern() *regexp.Regexp { return regexp.MustCompile(`^v\d+((alpha|beta)\d+)?$`) }

// kindOfHandler reads what h's Go type says of its kind, looking it up in scheme when given.
func kindOfHandler(h Handler, scheme *runtime.Scheme) handlerKind {
	typed, ok := h.(typedHandler)
	if !ok {
		return handlerKind{}
	}
	t := typed.info.objectType
	out := handlerKind{goType: t.String()}
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return out
	}
	elem := t.Elem()
	switch elem {
	case reflect.TypeFor[unstructured.Unstructured](), reflect.TypeFor[metav1.PartialObjectMetadata]():
		return out // whatever the webhook says
	}
	if scheme != nil {
		if obj, ok := reflect.New(elem).Interface().(runtime.Object); ok {
			if gvks, _, err := scheme.ObjectKinds(obj); err == nil {
				for _, gvk := range gvks {
					if gvk.Version != runtime.APIVersionInternal {
						out.exact = append(out.exact, gvk)
					}
				}
				if len(out.exact) > 0 {
					out.source = "the webhook's Scheme"
					return out
				}
			}
		}
	}
	dir, version := path.Split(elem.PkgPath())
	if !apiVersionPattern().MatchString(version) {
		out.unregistered = scheme != nil && !isKubernetesPackage(elem.PkgPath())
		return out // a partial view of any kind
	}
	if group, ok := kinds.GroupOfPackage(strings.TrimSuffix(dir, "/")); ok {
		out.exact, out.source = []schema.GroupVersionKind{{Group: group, Version: version, Kind: elem.Name()}}, "Kubernetes' API"
		return out
	}
	out.unregistered = scheme != nil && !isKubernetesPackage(elem.PkgPath())
	out.named = &schema.GroupVersionKind{Version: version, Kind: elem.Name()}
	return out
}

func isKubernetesPackage(pkg string) bool {
	return strings.HasPrefix(pkg, "k8s.io/api/") || strings.HasPrefix(pkg, "k8s.io/apiextensions-apiserver/")
}

// kindString writes a kind as people read it: "apps/v1 Deployment", "v1 Pod".
func kindString(gvk schema.GroupVersionKind) string {
	return gvk.GroupVersion().String() + " " + gvk.Kind
}

func kindStrings(gvks []schema.GroupVersionKind) string {
	out := make([]string, len(gvks))
	for i, gvk := range gvks {
		out[i] = kindString(gvk)
	}
	return strings.Join(out, ", ")
}
