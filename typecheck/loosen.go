package typecheck

import "k8s.io/kube-openapi/pkg/validation/spec"

// Loosen returns s with the parts whose fields at runtime the schema does not list made dyn,
// so that the declared types CEL checks against refuse nothing objects hold: a part with
// x-kubernetes-preserve-unknown-fields (a custom resource keeps fields its schema does not
// name), an object without properties (a RawExtension, whose JSON is any object), a part
// without a type. kube-apiserver's type checker declares such parts as objects without fields,
// or leaves them out, and reports every field read from them. s is not changed: the parts on
// the way to a loosened one are copies.
func Loosen(s *spec.Schema) *spec.Schema {
	if s == nil {
		return nil
	}
	if anyJSON(s) {
		// CEL types an int-or-string dyn: the one way a schema declares a value of any type.
		loose := &spec.Schema{}
		loose.AddExtension("x-kubernetes-int-or-string", true)
		return loose
	}
	out := *s
	if len(s.Properties) > 0 {
		out.Properties = make(map[string]spec.Schema, len(s.Properties))
		for name, p := range s.Properties {
			out.Properties[name] = *Loosen(&p)
		}
	}
	if s.Items != nil {
		items := *s.Items
		items.Schema = Loosen(s.Items.Schema)
		out.Items = &items
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		additional := *s.AdditionalProperties
		additional.Schema = Loosen(s.AdditionalProperties.Schema)
		out.AdditionalProperties = &additional
	}
	return &out
}

// anyJSON reports a part of a schema whose fields at runtime it does not list.
func anyJSON(s *spec.Schema) bool {
	if s.Format == "int-or-string" || extension(s, "x-kubernetes-int-or-string") {
		return false // dyn already
	}
	if extension(s, "x-kubernetes-preserve-unknown-fields") || len(s.Type) == 0 {
		return true
	}
	return s.Type.Contains("object") && len(s.Properties) == 0 && s.AdditionalProperties == nil
}

func extension(s *spec.Schema, name string) bool {
	v, ok := s.Extensions.GetBool(name)
	return ok && v
}
