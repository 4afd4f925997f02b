package lint

import (
	"fmt"
	"slices"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/matchconditions"
	"github.com/admitkit/admit/resources"
)

// PolicyChecker is what lint asks Kubernetes' own code about admission policies, and about the
// types of the kinds webhooks' match conditions see; package chain implements it (lint itself
// links none of that code). Without one, rule A01 does not validate policies and rules C06 and
// F05 do not run.
type PolicyChecker interface {
	// Validate is kube-apiserver's validation of a ValidatingAdmissionPolicy,
	// MutatingAdmissionPolicy or one of their bindings on create.
	Validate(obj *unstructured.Unstructured) field.ErrorList
	// TypeCheck type-checks a policy's CEL expressions against the kinds it matches, as
	// kube-apiserver does for a ValidatingAdmissionPolicy's status: a warning per expression
	// that does not fit, with its field path.
	TypeCheck(obj *unstructured.Unstructured) []TypeWarning
	// TypeCheckCondition type-checks a webhook's match condition against the schemas of kinds,
	// skipping those it knows no schema of: what is wrong for which kind ("against Pod (v1):
	// undefined field 'containerz' at line 1, column 12"), nothing when it fits or when it
	// cannot tell.
	TypeCheckCondition(expression string, kinds []schema.GroupVersionKind) []string
}

// TypeWarning is an expression of a policy that does not type-check against a kind: its
// field path, and what is wrong for which kind ("against Pod (v1): undefined field
// 'replicas' at line 1, column 12").
type TypeWarning struct {
	Field, Message string
}

// policyKinds are the kinds of admission policies and bindings, in admissionregistration.k8s.io.
const (
	validatingPolicyKind  = "ValidatingAdmissionPolicy"
	validatingBindingKind = "ValidatingAdmissionPolicyBinding"
	mutatingPolicyKind    = "MutatingAdmissionPolicy"
	mutatingBindingKind   = "MutatingAdmissionPolicyBinding"
)

// admissionPolicy is a policy of either kind as the checks see it.
type admissionPolicy struct {
	config   *configuration
	object   *unstructured.Unstructured
	mutating bool
	// constraints are the policy's matchConstraints, as a webhook the scope checks understand.
	constraints *webhook
	// excluded holds matchConstraints.excludeResourceRules of whole resources as a webhook,
	// nil without them; excludedNames those that name objects.
	excluded      *webhook
	excludedNames []admissionregistrationv1.NamedRuleWithOperations
	// conditions are the policy's matchConditions, nil without them or when they do not
	// compile (A01), in which case the policy is taken to match.
	conditions *matchconditions.Matcher
	paramKind  *admissionregistrationv1.ParamKind
	// expressions are the policy's CEL expressions; failing marks those whose runtime error
	// failurePolicy decides (not messageExpressions, which fall back to the message).
	expressions []policyExpression
	bindings    []*policyBinding
}

// policyExpression is one CEL expression of a policy.
type policyExpression struct {
	text    string
	failing bool
}

// policyBinding is a binding of either kind.
type policyBinding struct {
	config *configuration
	policy string
	// resources are the binding's matchResources as a webhook, nil when it has none;
	// excluded and excludedNames its excludeResourceRules, as the policy's.
	resources     *webhook
	excluded      *webhook
	excludedNames []admissionregistrationv1.NamedRuleWithOperations
	paramRef      *admissionregistrationv1.ParamRef
	// actions are a validating binding's validationActions; a mutating binding always applies.
	actions []admissionregistrationv1.ValidationAction
}

// denies reports whether the binding can make the policy reject a request.
func (b *policyBinding) denies(mutating bool) bool {
	if mutating {
		return true
	}
	for _, a := range b.actions {
		if a == admissionregistrationv1.Deny {
			return true
		}
	}
	return false
}

// isPolicyKind reports a kind of admission policy or binding.
func isPolicyKind(obj *unstructured.Unstructured) bool {
	return resources.IsPolicy(obj.GroupVersionKind().GroupKind())
}

// buildPolicies reads the admission policies and bindings of the set as configurations (for the
// rules every configuration meets: A01 and suppression) and as policies for the F rules.
func buildPolicies(set *config.Set, inv *inventory, checker PolicyChecker) ([]*configuration, []*admissionPolicy, []*policyBinding, error) {
	var configs []*configuration
	var policies []*admissionPolicy
	var bindings []*policyBinding
	for _, obj := range set.Others {
		if !isPolicyKind(obj.Object) {
			continue
		}
		u := obj.Object
		c := &configuration{kind: u.GetKind(), name: u.GetName(), annotations: u.GetAnnotations(), source: obj.Source,
			validate: func() field.ErrorList { return nil }, warnings: func() []string { return nil }}
		if checker != nil {
			// A01 and F05 both ask; validation compiles every expression, so it runs once.
			c.validate = sync.OnceValue(func() field.ErrorList { return checker.Validate(u) })
		}
		configs = append(configs, c)
		switch u.GetKind() {
		case validatingPolicyKind, mutatingPolicyKind:
			p, err := newAdmissionPolicy(c, u, inv)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %s %q: %w", obj.Source, u.GetKind(), u.GetName(), err)
			}
			policies = append(policies, p)
		default:
			b, err := newPolicyBinding(c, u, inv)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %s %q: %w", obj.Source, u.GetKind(), u.GetName(), err)
			}
			bindings = append(bindings, b)
		}
	}
	for _, b := range bindings {
		for _, p := range policies {
			if p.config.name == b.policy && p.mutating == (b.config.kind == mutatingBindingKind) {
				p.bindings = append(p.bindings, b)
			}
		}
	}
	return configs, policies, bindings, nil
}

func newAdmissionPolicy(c *configuration, u *unstructured.Unstructured, inv *inventory) (*admissionPolicy, error) {
	p := &admissionPolicy{config: c, object: u, mutating: u.GetKind() == mutatingPolicyKind}
	var constraints *admissionregistrationv1.MatchResources
	var failurePolicy *admissionregistrationv1.FailurePolicyType
	var conditions []admissionregistrationv1.MatchCondition
	var variables []admissionregistrationv1.Variable
	if p.mutating {
		var spec admissionregistrationv1.MutatingAdmissionPolicy
		if err := fromUnstructured(u, &spec); err != nil {
			return nil, err
		}
		constraints, failurePolicy, p.paramKind = spec.Spec.MatchConstraints, spec.Spec.FailurePolicy, spec.Spec.ParamKind
		conditions, variables = spec.Spec.MatchConditions, spec.Spec.Variables
		for _, m := range spec.Spec.Mutations {
			if m.ApplyConfiguration != nil {
				p.expressions = append(p.expressions, policyExpression{text: m.ApplyConfiguration.Expression, failing: true})
			}
			if m.JSONPatch != nil {
				p.expressions = append(p.expressions, policyExpression{text: m.JSONPatch.Expression, failing: true})
			}
		}
	} else {
		var spec admissionregistrationv1.ValidatingAdmissionPolicy
		if err := fromUnstructured(u, &spec); err != nil {
			return nil, err
		}
		constraints, failurePolicy, p.paramKind = spec.Spec.MatchConstraints, spec.Spec.FailurePolicy, spec.Spec.ParamKind
		conditions, variables = spec.Spec.MatchConditions, spec.Spec.Variables
		for _, v := range spec.Spec.Validations {
			p.expressions = append(p.expressions, policyExpression{text: v.Expression, failing: true},
				policyExpression{text: v.MessageExpression})
		}
		for _, a := range spec.Spec.AuditAnnotations {
			p.expressions = append(p.expressions, policyExpression{text: a.ValueExpression, failing: true})
		}
	}
	for _, m := range conditions {
		p.expressions = append(p.expressions, policyExpression{text: m.Expression, failing: true})
	}
	if len(conditions) > 0 {
		// Compiled as a webhook's: the environment lacks params and a real namespaceObject, and
		// a condition reading them fails to evaluate, which counts as a match.
		p.conditions, _ = matchconditions.Compile(conditions)
	}
	// A variable is evaluated when an expression uses it, and its error is that expression's.
	for _, v := range variables {
		p.expressions = append(p.expressions, policyExpression{text: v.Expression, failing: true})
	}
	p.constraints = matchResourcesWebhook(c, constraints, failurePolicy, inv)
	p.excluded, p.excludedNames = excludedResourcesWebhook(c, constraints, inv), namedExclusions(constraints)
	return p, nil
}

func newPolicyBinding(c *configuration, u *unstructured.Unstructured, inv *inventory) (*policyBinding, error) {
	b := &policyBinding{config: c}
	var resources *admissionregistrationv1.MatchResources
	if u.GetKind() == mutatingBindingKind {
		var spec admissionregistrationv1.MutatingAdmissionPolicyBinding
		if err := fromUnstructured(u, &spec); err != nil {
			return nil, err
		}
		b.policy, resources, b.paramRef = spec.Spec.PolicyName, spec.Spec.MatchResources, spec.Spec.ParamRef
	} else {
		var spec admissionregistrationv1.ValidatingAdmissionPolicyBinding
		if err := fromUnstructured(u, &spec); err != nil {
			return nil, err
		}
		b.policy, resources, b.paramRef, b.actions = spec.Spec.PolicyName, spec.Spec.MatchResources, spec.Spec.ParamRef, spec.Spec.ValidationActions
	}
	if resources != nil {
		if len(resources.ResourceRules) == 0 {
			// A binding's matchResources without resourceRules leaves the policy's resources
			// as they are: only its selectors narrow them.
			narrowed := *resources
			narrowed.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{everyResource()}
			resources = &narrowed
		}
		b.resources = matchResourcesWebhook(c, resources, nil, inv)
		b.excluded, b.excludedNames = excludedResourcesWebhook(c, resources, inv), namedExclusions(resources)
	}
	return b, nil
}

// everyResource is a rule matching every request: each operation on each resource and
// subresource of each group and version, in either scope.
func everyResource() admissionregistrationv1.NamedRuleWithOperations {
	scope := admissionregistrationv1.AllScopes
	return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*", "*/*"}, Scope: &scope},
	}}
}

// excludedResourcesWebhook expresses excludeResourceRules as a webhook whose rules are the
// exclusions of whole resources, nil when there are none. A rule with resourceNames excludes
// only the objects it names, not every request for the resource, so it is left out here;
// namedExclusions keeps those.
func excludedResourcesWebhook(c *configuration, m *admissionregistrationv1.MatchResources, inv *inventory) *webhook {
	if m == nil {
		return nil
	}
	var whole []admissionregistrationv1.NamedRuleWithOperations
	for _, r := range m.ExcludeResourceRules {
		if len(r.ResourceNames) == 0 {
			whole = append(whole, r)
		}
	}
	if len(whole) == 0 {
		return nil
	}
	return matchResourcesWebhook(c, &admissionregistrationv1.MatchResources{ResourceRules: whole, MatchPolicy: m.MatchPolicy}, nil, inv)
}

// namedExclusions are the excludeResourceRules that name the objects they exclude.
func namedExclusions(m *admissionregistrationv1.MatchResources) []admissionregistrationv1.NamedRuleWithOperations {
	if m == nil {
		return nil
	}
	var out []admissionregistrationv1.NamedRuleWithOperations
	for _, r := range m.ExcludeResourceRules {
		if len(r.ResourceNames) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// excludesByName says whether one of the named exclusions keeps out a request for the object
// called name.
func excludesByName(rules []admissionregistrationv1.NamedRuleWithOperations, r request, name string) bool {
	for _, rule := range rules {
		if slices.Contains(rule.ResourceNames, name) && ruleMatches(rule.RuleWithOperations, r, r.gvr) {
			return true
		}
	}
	return false
}

// matchResourcesWebhook expresses matchResources as a webhook, so that the scope checks can ask
// what it intercepts: its resource rules (resource names ignored, which can only widen it) and
// selectors, empty selectors matching everything as the apiserver's defaults say. A policy
// without matchConstraints matches nothing.
func matchResourcesWebhook(c *configuration, m *admissionregistrationv1.MatchResources, failurePolicy *admissionregistrationv1.FailurePolicyType, inv *inventory) *webhook {
	spec := admissionregistrationv1.ValidatingWebhook{Name: c.name, FailurePolicy: failurePolicy}
	if m != nil {
		for _, r := range m.ResourceRules {
			spec.Rules = append(spec.Rules, r.RuleWithOperations)
		}
		spec.NamespaceSelector, spec.ObjectSelector, spec.MatchPolicy = m.NamespaceSelector, m.ObjectSelector, m.MatchPolicy
	}
	for _, s := range []**metav1.LabelSelector{&spec.NamespaceSelector, &spec.ObjectSelector} {
		if *s == nil {
			*s = &metav1.LabelSelector{}
		}
	}
	return newWebhook(c, 0, false, spec, "", inv)
}
