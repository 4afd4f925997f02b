package resources

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The verbs the apiextensions apiserver lists for a custom resource and for its status and scale
// subresources. Functions rather than variables, so that no caller can change them.
func customResourceVerbs() []string {
	return []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
}

func customSubresourceVerbs() []string { return []string{"get", "patch", "update"} }

// WithCRDs returns a new Mapper that also knows the custom resources the given
// CustomResourceDefinitions define, as kube-apiserver knows them once they are established:
//   - one resource per version in spec.versions, of kind spec.names.kind in that version, with the
//     scope of spec.scope and the verbs of a custom resource;
//   - a "status" subresource of the same kind, and a "scale" subresource of kind autoscaling/v1
//     Scale, for the versions that declare them;
//   - all versions equivalent to each other, in spec.versions order.
//
// Versions with served: false are kept as the apiserver keeps them: KindFor knows their kind and
// Equivalents lists them (so a webhook rule naming only such a version still matches under
// matchPolicy Equivalent, and the webhook receives objects converted to it), while Resource and
// ResourceFor refuse them. Names come from spec.names; a CRD's status is not consulted.
//
// A CRD whose group and plural the Mapper already knows (a built-in resource, or another CRD) is
// an error, as is a CRD the apiserver would reject for its names, scope or versions.
func (m *Mapper) WithCRDs(crds ...*apiextensionsv1.CustomResourceDefinition) (*Mapper, error) {
	// Copies, because newMapper normalizes what it is given and m may be in use elsewhere.
	entries := make([]*entry, 0, len(m.entries)+len(crds))
	known := map[schema.GroupResource]string{}
	for _, e := range m.entries {
		entries = append(entries, &entry{Resource: e.clone(), served: e.served})
		known[e.GVR.GroupResource()] = "it is already defined"
	}
	classes := m.classes()
	for i, crd := range crds {
		if crd == nil {
			return nil, fmt.Errorf("CustomResourceDefinition %d of %d is nil", i+1, len(crds))
		}
		crdEntries, class, err := customResources(crd)
		if err != nil {
			return nil, fmt.Errorf("CustomResourceDefinition %q: %w", crd.Name, err)
		}
		gr := class[0].GroupResource()
		if why, ok := known[gr]; ok {
			return nil, fmt.Errorf("CustomResourceDefinition %q: resource %q in group %q: %s", crd.Name, gr.Resource, gr.Group, why)
		}
		known[gr] = fmt.Sprintf("CustomResourceDefinition %q defines it too", crd.Name)
		entries = append(entries, crdEntries...)
		classes = append(classes, class)
	}
	out, err := newMapper(m.serverVersion, entries, classes)
	if err != nil {
		return nil, fmt.Errorf("adding CustomResourceDefinitions: %w", err)
	}
	return out, nil
}

// customResources returns the entries of crd's versions and their equivalence class.
func customResources(crd *apiextensionsv1.CustomResourceDefinition) ([]*entry, []schema.GroupVersionResource, error) {
	group, names := crd.Spec.Group, crd.Spec.Names
	switch {
	case group == "":
		return nil, nil, fmt.Errorf("spec.group is empty")
	case names.Plural == "":
		return nil, nil, fmt.Errorf("spec.names.plural is empty")
	case names.Plural != strings.ToLower(names.Plural) || strings.Contains(names.Plural, "/"):
		return nil, nil, fmt.Errorf("spec.names.plural %q must be lower-case and contain no \"/\"", names.Plural)
	case names.Kind == "":
		return nil, nil, fmt.Errorf("spec.names.kind is empty")
	case crd.Name != names.Plural+"."+group:
		return nil, nil, fmt.Errorf("metadata.name must be spec.names.plural + \".\" + spec.group, %q", names.Plural+"."+group)
	case len(crd.Spec.Versions) == 0:
		return nil, nil, fmt.Errorf("spec.versions is empty")
	}
	var namespaced bool
	switch crd.Spec.Scope {
	case apiextensionsv1.NamespaceScoped:
		namespaced = true
	case apiextensionsv1.ClusterScoped:
	default:
		return nil, nil, fmt.Errorf("spec.scope is %q, want %q or %q", crd.Spec.Scope, apiextensionsv1.NamespaceScoped, apiextensionsv1.ClusterScoped)
	}

	entries := make([]*entry, 0, len(crd.Spec.Versions))
	class := make([]schema.GroupVersionResource, 0, len(crd.Spec.Versions))
	seen := map[string]bool{}
	for i, v := range crd.Spec.Versions {
		if v.Name == "" {
			return nil, nil, fmt.Errorf("spec.versions[%d].name is empty", i)
		}
		if seen[v.Name] {
			return nil, nil, fmt.Errorf("spec.versions[%d]: version %q is listed twice", i, v.Name)
		}
		seen[v.Name] = true
		gv := schema.GroupVersion{Group: group, Version: v.Name}
		e := &entry{
			Resource: Resource{GVR: gv.WithResource(names.Plural), Kind: gv.WithKind(names.Kind), Namespaced: namespaced},
			served:   v.Served,
		}
		var subVerbs []string
		if v.Served {
			e.Verbs = customResourceVerbs()
			subVerbs = customSubresourceVerbs()
		}
		if v.Subresources != nil && v.Subresources.Status != nil {
			e.Subresources = append(e.Subresources, Subresource{Name: "status", Kind: e.Kind, Verbs: subVerbs})
		}
		if v.Subresources != nil && v.Subresources.Scale != nil {
			scale := schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
			e.Subresources = append(e.Subresources, Subresource{Name: "scale", Kind: scale, Verbs: append([]string(nil), subVerbs...)})
		}
		entries = append(entries, e)
		class = append(class, e.GVR)
	}
	return entries, class, nil
}
