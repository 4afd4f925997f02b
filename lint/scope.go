package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/matchconditions"
	"github.com/admitkit/admit/predicates"
	"github.com/admitkit/admit/resources"
)

// request is a kind of API request the apiserver admits: an operation on a resource or one of
// its subresources.
type request struct {
	gvr         schema.GroupVersionResource
	subresource string
	operation   admissionregistrationv1.OperationType
	namespaced  bool
}

// String renders "CREATE pods", "UPDATE pods/status", "CREATE leases.coordination.k8s.io".
func (r request) String() string {
	return string(r.operation) + " " + resourceName(r.gvr.GroupResource().Group, r.gvr.Resource, r.subresource)
}

func resourceName(group, resource, subresource string) string {
	if subresource != "" {
		resource += "/" + subresource
	}
	if group != "" {
		resource += "." + group
	}
	return resource
}

// matchesRules applies the apiserver's rule matching: a rule must match the scope, operation,
// group, version and resource; with matchPolicy Equivalent a rule naming another version of
// the same stored resource matches too.
func (w *webhook) matchesRules(mapper *resources.Mapper, r request) bool {
	for _, rule := range w.spec.Rules {
		if ruleMatches(rule, r, r.gvr) {
			return true
		}
	}
	if w.spec.MatchPolicy != nil && *w.spec.MatchPolicy != admissionregistrationv1.Equivalent {
		return false
	}
	for _, eq := range mapper.Equivalents(r.gvr, r.subresource) {
		for _, rule := range w.spec.Rules {
			if ruleMatches(rule, r, eq) {
				return true
			}
		}
	}
	return false
}

// ruleMatches applies the dispatcher's rule predicate, the apiserver's, to r as if it were for gvr.
func ruleMatches(rule admissionregistrationv1.RuleWithOperations, r request, gvr schema.GroupVersionResource) bool {
	return predicates.Rule(rule, gvr, r.subresource, r.operation, r.namespaced)
}

// write is one concrete admission lint imagines: who writes what, where.
type write struct {
	request
	// namespace is empty for cluster-scoped writes; nsLabels are its labels.
	namespace string
	nsLabels  labels.Set
	// objectLabels and annotations are the object's metadata.
	objectLabels labels.Set
	annotations  map[string]string
	user         authenticationv1.UserInfo
}

// intercepts says whether the apiserver would call the webhook for the write: selectors, rules
// and matchConditions. Conditions that fail to evaluate count as a match: the synthetic object
// has only metadata, and with failurePolicy Fail an evaluation error rejects the request anyway.
func (a *analysis) intercepts(w *webhook, wr write) bool {
	if w.namespaceSelector == nil || w.objectSelector == nil {
		return false // invalid: A01
	}
	if wr.namespace != "" && !w.namespaceSelector.Matches(wr.nsLabels) {
		return false
	}
	if !w.objectSelector.Matches(wr.objectLabels) {
		return false
	}
	if !w.matchesRules(a.mapper, wr.request) {
		return false
	}
	return w.conditions == nil || a.conditionsMatch(w, wr)
}

func (a *analysis) conditionsMatch(w *webhook, wr write) bool {
	kind, err := a.mapper.KindFor(wr.gvr, wr.subresource)
	if err != nil {
		kind = schema.GroupVersionKind{Group: wr.gvr.Group, Version: wr.gvr.Version}
	}
	object := map[string]any{
		"apiVersion": kind.GroupVersion().String(),
		"kind":       kind.Kind,
		"metadata": map[string]any{
			"name": "example", "namespace": wr.namespace,
			"labels": stringMap(wr.objectLabels), "annotations": stringMap(wr.annotations),
		},
	}
	if kind.Kind == "Pod" {
		// Enough of a pod for conditions that look at its containers.
		object["spec"] = map[string]any{"containers": []any{map[string]any{"name": "main", "image": "example"}}}
	}
	raw, err := json.Marshal(object)
	if err != nil {
		return true
	}
	gvk := metav1.GroupVersionKind{Group: kind.Group, Version: kind.Version, Kind: kind.Kind}
	req := &admissionv1.AdmissionRequest{
		Kind: gvk, RequestKind: &gvk,
		Resource:    metav1.GroupVersionResource{Group: wr.gvr.Group, Version: wr.gvr.Version, Resource: wr.gvr.Resource},
		SubResource: wr.subresource, Name: "example", Namespace: wr.namespace,
		Operation: admissionv1.Operation(wr.operation), UserInfo: wr.user,
	}
	in := matchconditions.Input{Request: req, Object: raw}
	if wr.operation == admissionregistrationv1.Update {
		in.OldObject = raw
	}
	res, err := w.conditions.Match(context.Background(), in)
	return err != nil || res.Matched
}

func stringMap(set map[string]string) map[string]any {
	out := make(map[string]any, len(set))
	for k, v := range set {
		out[k] = v
	}
	return out
}

// preferredResource finds the preferred version of a group-resource.
func preferredResource(mapper *resources.Mapper, gr schema.GroupResource) (resources.Resource, bool) {
	for _, r := range mapper.Resources() { // preferred versions come first
		if r.GVR.GroupResource() == gr {
			return r, true
		}
	}
	return resources.Resource{}, false
}

// describeRequests lists a few requests and counts the rest: "CREATE pods, UPDATE pods/status
// and 4 more".
func describeRequests(reqs []request) string {
	const shown = 3
	names := make([]string, 0, shown)
	for i, r := range reqs {
		if i == shown {
			break
		}
		names = append(names, r.String())
	}
	text := strings.Join(names, ", ")
	if len(reqs) > shown {
		text += fmt.Sprintf(" and %d more", len(reqs)-shown)
	}
	return text
}

// describeLabels renders a label set for messages, "{}" when empty.
func describeLabels(set labels.Set) string {
	if len(set) == 0 {
		return "{}"
	}
	return set.String()
}
