package webhook

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/admitkit/admit/typecheck"
)

// conditionTypes type-checks match conditions against the schema of the kind the handler
// decodes, with the checker admit lint uses (package typecheck).
type conditionTypes struct {
	checker *typecheck.Checker
	// schemas keeps each Go type's schema: the checker keeps an environment per schema.
	schemas map[reflect.Type]*spec.Schema
}

func newConditionTypes() (*conditionTypes, error) {
	checker, err := typecheck.New(celCompatibilityVersion())
	if err != nil {
		return nil, fmt.Errorf("building the match conditions' type checker: %w", err)
	}
	return &conditionTypes{checker: checker, schemas: map[reflect.Type]*spec.Schema{}}, nil
}

// checkConditionTypes refuses the conditions of w that cannot succeed on the kind its handler
// decodes, where Register knows that kind's schema (see kubernetesType). Conditions in invalid
// (they do not compile) are not checked again.
func (r *Registry) checkConditionTypes(w Webhook, hk handlerKind, invalid field.ErrorList) field.ErrorList {
	goType, ok := kubernetesType(w, hk)
	if !ok {
		return nil
	}
	path := field.NewPath("matchConditions")
	if r.types == nil {
		types, err := newConditionTypes()
		if err != nil {
			return field.ErrorList{field.InternalError(path, err)}
		}
		r.types = types
	}
	s, ok := r.types.schemas[goType]
	if !ok {
		s = typecheck.SchemaOf(goType)
		r.types.schemas[goType] = s
	}
	kind := []typecheck.Kind{{GVK: w.Kind, Schema: s}}
	var errs field.ErrorList
	for i, mc := range w.MatchConditions {
		at := path.Index(i).Child("expression")
		if slices.ContainsFunc(invalid, func(e *field.Error) bool { return e.Field == at.String() }) {
			continue
		}
		// Compiled, and so reported, without surrounding whitespace.
		expression := strings.TrimSpace(mc.Expression)
		found, err := r.types.checker.Condition(expression, kind)
		switch {
		case err != nil:
			errs = append(errs, field.InternalError(at, err))
		case len(found) > 0:
			errs = append(errs, field.Invalid(at, expression, fmt.Sprintf(
				"does not type-check %s: evaluating it fails, and failurePolicy decides the request (Fail rejects it, Ignore skips the webhook)", joinTypeErrors(found))))
		}
	}
	return errs
}

// kubernetesType is the Go type of the objects w's conditions see, when Register knows their
// schema: the handler decodes a type of Kubernetes' API, whose published schema is generated
// from that very Go type, and it is w's kind (requests for other kinds are answered 400, and
// conditions see objects in the version of the rules, which is w's). A custom resource's
// schema is its CRD's, which Register does not see (its Go type may be a partial view, its
// schema may keep unknown fields): it is not checked, nor is a handler of any kind.
func kubernetesType(w Webhook, hk handlerKind) (reflect.Type, bool) {
	typed, ok := w.Handler.(typedHandler)
	if !ok || w.Kind.Empty() || !slices.Contains(hk.exact, w.Kind) {
		return nil, false
	}
	t := typed.info.objectType
	if t.Kind() != reflect.Pointer || !strings.HasPrefix(t.Elem().PkgPath(), "k8s.io/api/") {
		return nil, false
	}
	return t, true
}

func joinTypeErrors(errs []typecheck.Error) string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.String()
	}
	return strings.Join(out, "; ")
}
