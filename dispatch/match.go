package dispatch

import (
	"context"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/predicates"
)

// ConditionMatcher evaluates the compiled matchConditions of one webhook. It returns false when
// a condition is false; an error when none is false but one could not be evaluated and the
// webhook's failurePolicy is Fail (with Ignore such errors mean "not matched"); and, for the
// metrics, how many conditions failed to evaluate, whatever the outcome.
type ConditionMatcher interface {
	Match(ctx context.Context, in ConditionInput) (matched bool, evaluationErrors int, err error)
}

// ConditionInput is what matchConditions see: the objects in the webhook's version and the
// AdmissionRequest the webhook would receive.
type ConditionInput struct {
	Object, OldObject json.RawMessage
	Request           *admissionv1.AdmissionRequest
}

// ConditionCompiler compiles a webhook's matchConditions once, when the dispatcher is built.
type ConditionCompiler func(conditions []admissionregistrationv1.MatchCondition, failurePolicy *admissionregistrationv1.FailurePolicyType) (ConditionMatcher, error)

// ResourceMapper knows which resources are the same objects served under other versions (for
// matchPolicy Equivalent) and the kind of each.
type ResourceMapper interface {
	// Equivalents lists the resources equivalent to gvr that have the subresource, gvr
	// included, in the apiserver's order.
	Equivalents(gvr schema.GroupVersionResource, subresource string) []schema.GroupVersionResource
	// KindFor returns the kind of gvr's subresource (or of gvr itself when subresource is empty).
	KindFor(gvr schema.GroupVersionResource, subresource string) (schema.GroupVersionKind, error)
}

// Converter converts an object between versions of the same resource, for webhooks matched
// through matchPolicy Equivalent that expect another version.
type Converter = engine.Converter

// invocation is a webhook to call and the resource version it is called for.
type invocation struct {
	hook        *hook
	resource    schema.GroupVersionResource
	subresource string
	kind        schema.GroupVersionKind

	// object and oldObject are the admission's objects in kind's version, once versioned has
	// converted them: matchConditions and the call see the same, converted once.
	object, oldObject json.RawMessage
	converted         bool
}

// versioned returns the admission's current objects in the invocation's version. The objects do
// not change between matching a webhook and calling it, so they are converted once.
func (a *admission) versioned(inv *invocation) (object, old json.RawMessage, err error) {
	if !inv.converted {
		if inv.object, err = a.objectAs(inv.kind); err == nil {
			inv.oldObject, err = a.oldObjectAs(inv.kind)
		}
		if err != nil {
			err = apierrors.NewInternalError(err)
			if inv.hook.mutating {
				// The apiserver's mutating dispatcher wraps a conversion's error as an internal
				// error where it converts, and again where it asked: the message says
				// "Internal error occurred: " twice (the validating one, once).
				err = apierrors.NewInternalError(err)
			}
			return nil, nil, err
		}
		inv.converted = true
	}
	return inv.object, inv.oldObject, nil
}

// skip explains why a webhook was not called; it is shown by `admit review`.
type skip struct{ reason string }

// shouldCall decides whether h is called for the admission in its current state, in the
// apiserver's order: namespaceSelector, objectSelector, rules (then equivalent resources), and
// only then the selector errors and matchConditions. It returns the invocation, or why the
// webhook is skipped, or the error that fails the whole request.
func (a *admission) shouldCall(ctx context.Context, h *hook) (*invocation, *skip, error) {
	nsMatches, nsErr := a.matchNamespace(ctx, h)
	if !nsMatches && nsErr == nil {
		return nil, &skip{"namespaceSelector does not match the namespace's labels"}, nil
	}
	objMatches, objErr := a.matchObject(h)
	if !objMatches && objErr == nil {
		return nil, &skip{"objectSelector matches neither the object nor the old object"}, nil
	}

	inv, err := a.matchRules(h)
	if err != nil {
		return nil, nil, err
	}
	if inv == nil {
		return nil, &skip{"no rule matches " + describeRequest(a.req)}, nil
	}
	// Selector errors only fail requests the webhook's rules apply to.
	if nsErr != nil {
		return nil, nil, nsErr
	}
	if objErr != nil {
		return nil, nil, objErr
	}
	if h.conditions != nil {
		object, old, err := a.versioned(inv)
		if err != nil {
			return nil, nil, err
		}
		matched, evaluationErrors, err := h.conditions.Match(ctx, ConditionInput{Object: object, OldObject: old, Request: a.reviewRequest(inv, "", object, old)})
		a.d.metrics.matchConditionErrors(h, a.req.Operation, evaluationErrors)
		if err != nil {
			return nil, nil, apierrors.NewForbidden(a.req.Resource.GroupResource(), a.req.Name, err)
		}
		if !matched {
			a.d.metrics.matchConditionExclusion(h, a.req.Operation)
			return nil, &skip{"a matchCondition is false"}, nil
		}
	}
	return inv, nil, nil
}

// matchNamespace applies the namespaceSelector. Cluster-scoped objects other than namespaces are
// never exempted. A Namespace being created or updated is matched on its own new labels.
func (a *admission) matchNamespace(ctx context.Context, h *hook) (bool, error) {
	req := a.req
	if !predicates.NamespaceJudged(req.Namespace, req.Resource) {
		return true, nil
	}
	if h.namespaceSelectorErr != nil {
		return false, apierrors.NewInternalError(h.namespaceSelectorErr)
	}
	if h.namespaceSelector.Empty() {
		return true, nil
	}
	var nsLabels map[string]string
	if predicates.OwnNamespaceLabels(req.Resource, req.SubResource, req.Operation) {
		l, _, err := objectLabels(a.object())
		if err != nil {
			return false, apierrors.NewInternalError(err)
		}
		nsLabels = l
	} else {
		l, err := a.d.namespaces.NamespaceLabels(ctx, req.Namespace)
		if apierrors.IsNotFound(err) {
			if status, ok := err.(apierrors.APIStatus); ok {
				return false, &apierrors.StatusError{ErrStatus: status.Status()}
			}
			return false, apierrors.NewInternalError(err)
		}
		if err != nil {
			return false, apierrors.NewInternalError(err)
		}
		nsLabels = l
	}
	return h.namespaceSelector.Matches(labels.Set(nsLabels)), nil
}

// matchObject applies the objectSelector to the current object or the old object. Objects
// without metadata (the options of a CONNECT) never match.
func (a *admission) matchObject(h *hook) (bool, error) {
	if h.objectSelectorErr != nil {
		return false, apierrors.NewInternalError(h.objectSelectorErr)
	}
	if h.objectSelector.Empty() {
		return true, nil
	}
	var objects []predicates.ObjectLabels
	for _, obj := range []json.RawMessage{a.object(), a.oldObject()} {
		// An object whose labels do not read matches nothing, as in the apiserver.
		if l, ok, err := objectLabels(obj); err == nil {
			objects = append(objects, predicates.ObjectLabels{Labels: l, Present: ok})
		}
	}
	return predicates.Object(h.objectSelector, a.req.Operation, objects...), nil
}

// matchRules finds the first rule matching the request's resource, then with matchPolicy
// Equivalent the first rule matching an equivalent resource (rules in order, equivalents in
// order), which the webhook is then called for.
func (a *admission) matchRules(h *hook) (*invocation, error) {
	req := a.req
	for _, r := range h.rules {
		if ruleMatches(r, req, req.Resource) {
			return &invocation{hook: h, resource: req.Resource, subresource: req.SubResource, kind: req.Kind}, nil
		}
	}
	if h.matchPolicy == nil || *h.matchPolicy != admissionregistrationv1.Equivalent || a.d.resources == nil {
		return nil, nil
	}
	equivalents := a.d.resources.Equivalents(req.Resource, req.SubResource)
	for _, r := range h.rules {
		for _, eq := range equivalents {
			if eq == req.Resource || !ruleMatches(r, req, eq) {
				continue
			}
			kind, err := a.d.resources.KindFor(eq, req.SubResource)
			if err != nil || kind.Empty() {
				return nil, apierrors.NewInternalError(fmt.Errorf("unable to convert to %v: unknown kind", eq))
			}
			return &invocation{hook: h, resource: eq, subresource: req.SubResource, kind: kind}, nil
		}
	}
	return nil, nil
}

func ruleMatches(r admissionregistrationv1.RuleWithOperations, req *engine.Request, gvr schema.GroupVersionResource) bool {
	return predicates.Rule(r, gvr, req.SubResource, admissionregistrationv1.OperationType(req.Operation), req.Namespace != "")
}

// objectLabels reads metadata.labels of a JSON object; ok is false for a null or absent object.
func objectLabels(obj json.RawMessage) (map[string]string, bool, error) {
	if len(obj) == 0 || string(obj) == "null" {
		return nil, false, nil
	}
	var meta struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(obj, &meta); err != nil {
		return nil, false, fmt.Errorf("reading the object's labels: %w", err)
	}
	return meta.Metadata.Labels, true, nil
}

func describeRequest(req *engine.Request) string {
	s := fmt.Sprintf("%s %s", req.Operation, req.Resource.Resource)
	if req.SubResource != "" {
		s += "/" + req.SubResource
	}
	if req.Resource.Group != "" {
		s += "." + req.Resource.Group
	}
	return s + "/" + req.Resource.Version
}
