package typecheck

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Kind is a kind and the OpenAPI schema of its objects.
type Kind struct {
	GVK    schema.GroupVersionKind
	Schema *spec.Schema
}

// Condition type-checks a webhook's match condition against each kind: the variables are those
// kube-apiserver gives match conditions (object, oldObject, request, namespaceObject, authorizer
// and authorizer.requestResource), with object and oldObject typed by the kind's schema where
// the apiserver has them dyn, as its type checker for policies types them. It returns the
// errors that fail at runtime (see RuntimeErrors), for every kind; none for a kind whose schema
// CEL has no type for. The schemas are loosened first (see Loosen). The expression is one that compiles untyped (Register and the
// apiserver's validation refuse the others).
func (c *Checker) Condition(expression string, kinds []Kind) ([]Error, error) {
	var out []Error
	for _, kind := range kinds {
		env, err := c.conditions.env(c.base, kind)
		if err != nil {
			return nil, err
		}
		if env == nil {
			continue
		}
		if _, issues := env.Compile(expression); issues != nil && issues.Err() != nil {
			out = append(out, c.RuntimeErrors(expression, kind.GVK, issues.String())...)
		}
	}
	return out, nil
}

// conditionEnvs keeps the environment of each kind's schema: building one takes milliseconds,
// and lint and Register check every condition of a kind in the same one.
type conditionEnvs struct {
	mu   sync.Mutex
	envs map[conditionKey]*cel.Env
}

type conditionKey struct {
	gvk    schema.GroupVersionKind
	schema *spec.Schema
}

func newConditionEnvs() *conditionEnvs {
	return &conditionEnvs{envs: map[conditionKey]*cel.Env{}}
}

// env returns the environment of kind's match conditions, nil when CEL has no type for its
// schema.
func (e *conditionEnvs) env(base *environment.EnvSet, kind Kind) (*cel.Env, error) {
	key := conditionKey{kind.GVK, kind.Schema}
	e.mu.Lock()
	defer e.mu.Unlock()
	if env, ok := e.envs[key]; ok {
		return env, nil
	}
	env, err := conditionEnv(base, kind)
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment of %s: %w", kind.GVK, err)
	}
	e.envs[key] = env
	return env, nil
}

func conditionEnv(base *environment.EnvSet, kind Kind) (*cel.Env, error) {
	if kind.Schema == nil {
		return nil, nil
	}
	object := common.SchemaDeclType(&openapi.Schema{Schema: Loosen(kind.Schema)}, true)
	if object == nil {
		return nil, nil
	}
	// The object's types are named after the kind: they show in messages about them. (A schema
	// that is all dyn has no type to name.)
	object = object.MaybeAssignTypeName(kind.GVK.Kind)
	request, namespace := plugincel.BuildRequestType(), plugincel.BuildNamespaceType()
	set, err := base.Extend(environment.VersionedOptions{
		// These variables are there whatever the compatibility version.
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions: []cel.EnvOption{
			cel.Variable(plugincel.ObjectVarName, object.CelType()),
			cel.Variable(plugincel.OldObjectVarName, object.CelType()),
			cel.Variable(plugincel.RequestVarName, request.CelType()),
			cel.Variable(plugincel.NamespaceVarName, namespace.CelType()),
			cel.Variable(plugincel.AuthorizerVarName, library.AuthorizerType),
			cel.Variable(plugincel.RequestResourceAuthorizerVarName, library.ResourceCheckType),
		},
		DeclTypes: []*apiservercel.DeclType{object, request, namespace},
	})
	if err != nil {
		return nil, err
	}
	return set.Env(environment.StoredExpressions)
}
