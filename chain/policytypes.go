package chain

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"

	"github.com/admitkit/admit/matchconditions"
	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/typecheck"
)

// PolicyTypeChecker type-checks ValidatingAdmissionPolicies with the type checker
// kube-controller-manager runs for their status: each validation's expression and
// messageExpression against the schema of every kind the policy matches (built-in kinds, and
// custom resources of the given CRDs as an apiserver serving them publishes them). It
// type-checks webhooks' match conditions against the same schemas (CheckCondition).
//
// Deliberate differences make its warnings mean "fails at runtime":
//   - a resource.Quantity is typed as the string it is in JSON, where the status controller's
//     schemas leave it without a type and so drop every map of quantities (a container's
//     resources.requests and limits), warning about expressions that work;
//   - the parts of a schema whose fields at runtime it does not list are dyn
//     (typecheck.Loosen): x-kubernetes-preserve-unknown-fields, a RawExtension;
//   - the checker's errors are kept as typecheck.Checker.RuntimeErrors keeps them: not in parts
//     a kind guard skips, not for two lists joined, not for authorizer.requestResource.
type PolicyTypeChecker struct {
	checker *validatingpolicy.TypeChecker
	schemas *quantitiesAsStrings
	types   *typecheck.Checker
}

// PolicyTypeError is an expression of a policy that does not type-check against a kind.
type PolicyTypeError struct {
	// Field is the expression's path, e.g. spec.validations[0].expression.
	Field string
	typecheck.Error
}

// NewPolicyTypeChecker builds the type checker; crds add their kinds to the resources it
// resolves a policy's rules with, and their schemas to the types it checks against.
func NewPolicyTypeChecker(crds []*apiextensionsv1.CustomResourceDefinition) (*PolicyTypeChecker, error) {
	resourcesTable, err := resources.Builtin()
	if err == nil {
		resourcesTable, err = resourcesTable.WithCRDs(crds...)
	}
	if err != nil {
		return nil, err
	}
	mapper, err := newRESTMapper(resourcesTable)
	if err != nil {
		return nil, err
	}
	kube, _ := kubeScheme()
	custom := &resolver.ClientDiscoveryResolver{Discovery: schemaDiscovery{openapi: newAPISchemas(crds, nil).client()}}
	schemas := &quantitiesAsStrings{
		resolver: resolver.NewDefinitionsSchemaResolver(generatedopenapi.GetOpenAPIDefinitions, kube).Combine(custom),
		resolved: map[schema.GroupVersionKind]*spec.Schema{},
	}
	types, err := typecheck.New(matchconditions.CompatibilityVersion())
	if err != nil {
		return nil, err
	}
	return &PolicyTypeChecker{
		checker: &validatingpolicy.TypeChecker{SchemaResolver: schemas, RestMapper: mapper},
		schemas: schemas,
		types:   types,
	}, nil
}

// Check type-checks a ValidatingAdmissionPolicy (other kinds have nothing to check).
func (c *PolicyTypeChecker) Check(obj runtime.Object) ([]PolicyTypeError, error) {
	typed, err := asTyped(obj)
	if err != nil {
		return nil, err
	}
	policy, ok := typed.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	if !ok {
		return nil, nil
	}
	policy = policy.DeepCopy()
	kube, _ := kubeScheme()
	kube.Default(policy)

	ctx := c.checker.CreateContext(policy)
	var out []PolicyTypeError
	check := func(path *field.Path, expression string) {
		for _, result := range c.checker.CheckExpression(ctx, expression) {
			if result.Issues == nil {
				continue // an internal error of the checker, not the expression's
			}
			for _, e := range c.types.RuntimeErrors(expression, result.GVK, result.Issues.Error()) {
				out = append(out, PolicyTypeError{Field: path.String(), Error: e})
			}
		}
	}
	validations := field.NewPath("spec", "validations")
	for i, v := range policy.Spec.Validations {
		check(validations.Index(i).Child("expression"), v.Expression)
		if v.MessageExpression != "" {
			check(validations.Index(i).Child("messageExpression"), v.MessageExpression)
		}
	}
	return out, nil
}

// CheckCondition type-checks a webhook's match condition against kinds, with the schemas
// policies are checked against (typecheck.Checker.Condition). A kind without a schema (a
// custom resource whose CRD was not given) is not checked.
func (c *PolicyTypeChecker) CheckCondition(expression string, kinds []schema.GroupVersionKind) ([]typecheck.Error, error) {
	var known []typecheck.Kind
	for _, gvk := range kinds {
		s, err := c.schemas.ResolveSchema(gvk)
		switch {
		case errors.Is(err, resolver.ErrSchemaNotFound):
			continue
		case err != nil:
			return nil, fmt.Errorf("the schema of %s: %w", gvk, err)
		}
		known = append(known, typecheck.Kind{GVK: gvk, Schema: s})
	}
	return c.types.Condition(expression, known)
}

// quantitiesAsStrings resolves schemas in which a schema without a type takes the one of its
// OpenAPI v2 form (x-kubernetes-v2-schema), as resource.Quantity's does: string; then loosened
// (typecheck.Loosen). It keeps what it resolved: the checker resolves every kind a policy
// matches for each policy.
type quantitiesAsStrings struct {
	resolver resolver.SchemaResolver

	mu       sync.Mutex
	resolved map[schema.GroupVersionKind]*spec.Schema
}

func (r *quantitiesAsStrings) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.resolved[gvk]; ok {
		return s, nil
	}
	s, err := r.resolve(gvk)
	if err != nil {
		return nil, err
	}
	r.resolved[gvk] = s
	return s, nil
}

func (r *quantitiesAsStrings) resolve(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	s, err := r.resolver.ResolveSchema(gvk)
	if err != nil {
		return nil, err
	}
	// The resolved schema may share nodes with the resolver's definitions: rewrite a copy.
	data, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("copying the schema of %s: %w", gvk, err)
	}
	var copied spec.Schema
	if err := json.Unmarshal(data, &copied); err != nil {
		return nil, fmt.Errorf("copying the schema of %s: %w", gvk, err)
	}
	typeFromV2(&copied)
	return typecheck.Loosen(&copied), nil
}

// typeFromV2 gives the schemas under s without a type the type of their v2 form.
func typeFromV2(s *spec.Schema) {
	if s == nil {
		return
	}
	if len(s.Type) == 0 && len(s.OneOf) > 0 {
		if v2, ok := s.Extensions["x-kubernetes-v2-schema"].(map[string]any); ok {
			if t, ok := v2["type"].(string); ok {
				s.Type = spec.StringOrArray{t}
				s.OneOf = nil
			}
		}
	}
	for name, p := range s.Properties {
		typeFromV2(&p)
		s.Properties[name] = p
	}
	if s.Items != nil {
		typeFromV2(s.Items.Schema)
		for i := range s.Items.Schemas {
			typeFromV2(&s.Items.Schemas[i])
		}
	}
	if s.AdditionalProperties != nil {
		typeFromV2(s.AdditionalProperties.Schema)
	}
}
