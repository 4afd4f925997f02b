package builtin

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/admitkit/admit/resources"
)

// resolveKind finds the kind and plural resource that an operator names in the environment:
//
//	ConfigMap                       a kind Kubernetes 1.36 serves, in its preferred version
//	Deployment.apps, Event.core     the same, in one group ("core" is the group of ConfigMap)
//	Widget.v1.example.com/widgets   any kind, custom resources included: Kind.version.group/resource
//
// Built-in kinds are looked up in m; the last form needs no lookup.
func resolveKind(m *resources.Mapper, name string) (schema.GroupVersionKind, string, error) {
	if qualified, resource, explicit := strings.Cut(name, "/"); explicit {
		return explicitKind(qualified, resource)
	}
	kind, group, grouped := strings.Cut(name, ".")
	if group == "core" {
		group = ""
	}
	var matches []resources.Resource // the preferred version of kind in each group that has it
	var caseHint string
	for _, r := range m.Resources() { // sorted by group, then preferred version first
		if grouped && r.Kind.Group != group {
			continue
		}
		if r.Kind.Kind != kind {
			if strings.EqualFold(r.Kind.Kind, kind) {
				caseHint = r.Kind.Kind
			}
			continue
		}
		if len(matches) == 0 || matches[len(matches)-1].Kind.Group != r.Kind.Group {
			matches = append(matches, r)
		}
	}
	switch {
	case len(matches) == 1:
		return matches[0].Kind, matches[0].GVR.Resource, nil
	case len(matches) > 1:
		names := make([]string, len(matches))
		for i, r := range matches {
			names[i] = qualifiedKind(r.Kind)
		}
		return schema.GroupVersionKind{}, "", fmt.Errorf("kind %s is served by several groups: name one of %s", kind, strings.Join(names, ", "))
	case caseHint != "":
		return schema.GroupVersionKind{}, "", fmt.Errorf("no kind %s (kinds are case-sensitive): did you mean %s?", name, caseHint)
	default:
		return schema.GroupVersionKind{}, "", fmt.Errorf("no kind %s in Kubernetes %s; a custom kind is written Kind.version.group/resource, e.g. Widget.v1.example.com/widgets", name, m.ServerVersion())
	}
}

// qualifiedKind writes gvk the way resolveKind reads a kind in a group.
func qualifiedKind(gvk schema.GroupVersionKind) string {
	if gvk.Group == "" {
		return gvk.Kind + ".core"
	}
	return gvk.Kind + "." + gvk.Group
}

// explicitKind reads "Kind.version.group" and "resource".
func explicitKind(qualified, resource string) (schema.GroupVersionKind, string, error) {
	parts := strings.SplitN(qualified, ".", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return schema.GroupVersionKind{}, "", errors.New("want Kind.version.group/resource, e.g. Widget.v1.example.com/widgets")
	}
	gvk := schema.GroupVersionKind{Kind: parts[0], Version: parts[1], Group: parts[2]}
	if !isKindName(gvk.Kind) {
		return schema.GroupVersionKind{}, "", fmt.Errorf("kind %q must be a letter followed by letters and digits, e.g. Widget", gvk.Kind)
	}
	if msgs := validation.IsDNS1123Label(gvk.Version); len(msgs) > 0 {
		return schema.GroupVersionKind{}, "", fmt.Errorf("version %q: %s", gvk.Version, strings.Join(msgs, "; "))
	}
	if msgs := validation.IsDNS1123Subdomain(gvk.Group); len(msgs) > 0 {
		return schema.GroupVersionKind{}, "", fmt.Errorf("group %q: %s", gvk.Group, strings.Join(msgs, "; "))
	}
	if msgs := validation.IsDNS1123Label(resource); len(msgs) > 0 {
		return schema.GroupVersionKind{}, "", fmt.Errorf("resource %q: %s", resource, strings.Join(msgs, "; "))
	}
	return gvk, resource, nil
}

// isKindName reports whether kind could be a Kubernetes kind: a letter, then letters and digits.
func isKindName(kind string) bool {
	if kind == "" || isDigit(kind[0]) {
		return false
	}
	for i := 0; i < len(kind); i++ {
		if !isAlnum(kind[i]) {
			return false
		}
	}
	return true
}
