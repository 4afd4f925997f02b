package lint

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources"
)

// checkUnservedResources (C05): rules naming resources nothing serves. kube-apiserver matches a
// webhook's rules against the resource of each request, and, under matchPolicy Equivalent,
// against the other versions of it it serves or stores; a rule naming a resource, version or
// subresource that no version of any group serves matches no request at all. It accepts such a
// rule when the configuration is created (the resource could be added later), so a singular or
// misspelt name silently turns the webhook off. Judged only in the groups the input can show:
// Kubernetes' own, and those of the input's CustomResourceDefinitions; a rule in another group
// is reported as assumed (info).
func checkUnservedResources(a *analysis) []finding {
	known := map[string]bool{}
	for _, r := range a.mapper.Resources() {
		known[r.GVR.Group] = true
	}
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			var assumed []string
			for j, rule := range w.spec.Rules {
				path := w.path().Child("rules").Index(j).String()
				// The rule matches the cross product of its groups, versions and resources:
				// a resource is dead only when none of its groups serves it. One the input does
				// not show may be the one that does.
				var groups []string
				unseen := false
				for _, group := range rule.APIGroups {
					if group != "*" && !known[group] {
						unseen = true
						if !slices.Contains(assumed, group) {
							assumed = append(assumed, group)
						}
						continue
					}
					groups = append(groups, group)
				}
				if unseen || len(groups) == 0 {
					continue
				}
				for _, res := range rule.Resources {
					missing, hint := a.unservedInAny(groups, rule.APIVersions, res)
					if missing == "" {
						continue
					}
					out = append(out, finding{
						config: c, webhook: w, field: path,
						message: fmt.Sprintf("names %s, which nothing serves: the rule matches no request for it, so the webhook is never called for it", missing),
						hint:    unservedHint(hint, groups[0], known),
					})
				}
			}
			if len(assumed) > 0 {
				out = append(out, finding{
					config: c, webhook: w, field: w.path().Child("rules").String(), severity: Info,
					message: fmt.Sprintf("names resources of %s, which neither Kubernetes nor the input's CustomResourceDefinitions serve: assumed served by definitions installed apart", groupNames(assumed)),
					hint:    "lint the CustomResourceDefinitions with the configuration to have the resource names checked",
				})
			}
		}
	}
	return out
}

// unservedInAny names resource as groups and versions leave it unserved, "" when one of the
// groups serves it; hint is the mapper's guess for the first group.
func (a *analysis) unservedInAny(groups, versions []string, resource string) (missing, hint string) {
	for i, group := range groups {
		m, h := a.unserved(group, versions, resource)
		if m == "" {
			return "", ""
		}
		if i == 0 {
			hint = h
		}
	}
	return describeUnserved(groups, versions, resource), hint
}

// unserved names what of resource (with its subresource) in group, in versions, nothing
// serves; "" when a version of it is served. hint is the mapper's guess at what was meant.
func (a *analysis) unserved(group string, versions []string, resource string) (missing, hint string) {
	parent, sub, _ := strings.Cut(resource, "/")
	if parent == "*" {
		return "", "" // every resource: C01's concern
	}
	if sub == "*" {
		sub = ""
	}
	var firstErr error
	for _, r := range a.mapper.Resources() {
		if (group != "*" && r.GVR.Group != group) || r.GVR.Resource != parent {
			continue
		}
		if !slices.Contains(versions, "*") && !slices.Contains(versions, r.GVR.Version) {
			continue
		}
		if _, err := a.mapper.KindFor(r.GVR, sub); err != nil {
			firstErr = cmpOr(firstErr, err)
			continue
		}
		return "", ""
	}
	// Versions a CustomResourceDefinition lists without serving them still match, as the
	// apiserver registers them.
	for _, v := range versions {
		if v == "*" || group == "*" {
			continue
		}
		_, err := a.mapper.KindFor(schema.GroupVersionResource{Group: group, Version: v, Resource: parent}, sub)
		if err == nil {
			return "", ""
		}
		firstErr = cmpOr(firstErr, err)
	}
	var notFound *resources.NotFoundError
	if errors.As(firstErr, &notFound) {
		hint = notFound.Hint()
	}
	return describeUnserved([]string{group}, versions, resource), hint
}

func cmpOr(err, next error) error {
	if err != nil {
		return err
	}
	return next
}

// describeUnserved renders what a rule names: "resource eksconfig of bootstrap.cluster.x-k8s.io",
// "resource deployments of apps in v1beta1".
func describeUnserved(groups, versions []string, resource string) string {
	out := fmt.Sprintf("resource %q", resource)
	if slices.Contains(groups, "*") {
		out += " in every group"
	} else {
		out += " of " + groupNames(groups)
	}
	if !slices.Contains(versions, "*") {
		out += " in " + strings.Join(versions, ", ")
	}
	return out
}

// unservedHint turns the mapper's guess into advice.
func unservedHint(hint, group string, known map[string]bool) string {
	if hint != "" {
		return hint
	}
	if group != "*" && known[group] {
		return fmt.Sprintf("name a resource %s serves, as its plural (kubectl api-resources --api-group=%s lists them)", groupName(group), group)
	}
	return "name a resource that is served, as its plural (kubectl api-resources lists them)"
}

func groupName(group string) string {
	if group == "" {
		return "the core group"
	}
	return group
}

func groupNames(groups []string) string {
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = groupName(g)
	}
	return joinAnd(names)
}
