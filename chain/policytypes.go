package chain

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"

	"github.com/admitkit/admit/matchconditions"
	"github.com/admitkit/admit/resources"
)

// PolicyTypeChecker type-checks ValidatingAdmissionPolicies with the type checker
// kube-controller-manager runs for their status: each validation's expression and
// messageExpression against the schema of every kind the policy matches (built-in kinds, and
// custom resources of the given CRDs as an apiserver serving them publishes them).
//
// Two deliberate differences make its warnings mean "fails at runtime":
//   - a resource.Quantity is typed as the string it is in JSON, where the status controller's
//     schemas leave it without a type and so drop every map of quantities (a container's
//     resources.requests and limits), warning about expressions that work;
//   - an error in a part of the expression that a kind guard skips for that kind is dropped:
//     in `object.kind != 'Pod' || object.spec.hostPID != true`, the right side is never
//     evaluated for a Deployment, whose spec has no hostPID;
//   - two lists concatenated are never an error: the checker names each list's element type
//     after its path (spec.containers, spec.initContainers) and finds no `+` for two
//     differently named types, where at runtime both are lists of JSON values and join.
type PolicyTypeChecker struct {
	checker *validatingpolicy.TypeChecker
	// env parses expressions as kube-apiserver does, and evaluates kind guards.
	env *cel.Env
}

// PolicyTypeError is an expression of a policy that does not type-check against a kind.
type PolicyTypeError struct {
	// Field is the expression's path, e.g. spec.validations[0].expression.
	Field string
	Kind  schema.GroupVersionKind
	// Line and Column locate the error in the expression, from 1.
	Line, Column int
	Message      string
}

// String reads "against Pod (v1): undefined field 'replicas' at line 1, column 12".
func (e PolicyTypeError) String() string {
	where := ""
	if e.Line > 0 {
		where = fmt.Sprintf(" at line %d, column %d", e.Line, e.Column)
	}
	return fmt.Sprintf("against %s (%s): %s%s", e.Kind.Kind, e.Kind.GroupVersion(), e.Message, where)
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
	schemas := resolver.NewDefinitionsSchemaResolver(generatedopenapi.GetOpenAPIDefinitions, kube).Combine(custom)
	env, err := environment.MustBaseEnvSet(matchconditions.CompatibilityVersion()).Env(environment.StoredExpressions)
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment: %w", err)
	}
	if env, err = env.Extend(cel.Variable("object", cel.DynType)); err != nil {
		return nil, fmt.Errorf("building the CEL environment: %w", err)
	}
	return &PolicyTypeChecker{
		checker: &validatingpolicy.TypeChecker{SchemaResolver: &quantitiesAsStrings{resolver: schemas, resolved: map[schema.GroupVersionKind]*spec.Schema{}}, RestMapper: mapper},
		env:     env,
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
		// Parsed once, and only if the expression does not fit some kind.
		parse := sync.OnceValue(func() *celast.AST { return c.parse(expression) })
		for _, result := range c.checker.CheckExpression(ctx, expression) {
			if result.Issues == nil {
				continue // an internal error of the checker, not the expression's
			}
			parsed := parse()
			skipped := c.skippedFor(parsed, result.GVK)
			for _, issue := range parseIssues(result.Issues.Error()) {
				if issue.line > 0 && skipped[position{issue.line, issue.column}] || listsJoined.MatchString(issue.message) {
					continue
				}
				out = append(out, PolicyTypeError{Field: path.String(), Kind: result.GVK, Line: issue.line, Column: issue.column, Message: issue.message})
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

// listsJoined is the checker's complaint about two lists of differently named types
// concatenated, which work at runtime.
var listsJoined = regexp.MustCompile(`^found no matching overload for '_\+_' applied to '\(list\(.*\), list\(.*\)\)'$`)

// issue is one error of CEL's report.
type issue struct {
	line, column int
	message      string
}

// celIssue is a line of CEL's error report: "ERROR: <input>:1:12: undefined field 'replicas'",
// followed in the report by the expression and a caret, which are dropped.
var celIssue = regexp.MustCompile(`(?m)^ERROR: <input>:(\d+):(\d+): (.+)$`)

func parseIssues(report string) []issue {
	var out []issue
	for _, m := range celIssue.FindAllStringSubmatch(report, -1) {
		line, _ := strconv.Atoi(m[1])
		column, _ := strconv.Atoi(m[2])
		out = append(out, issue{line: line, column: column, message: m[3]})
	}
	if len(out) == 0 {
		out = append(out, issue{message: strings.Join(strings.Fields(report), " ")})
	}
	return out
}

// position is a place in an expression as CEL reports it: line and column from 1.
type position struct{ line, column int }

// skippedFor returns the positions of the parts of expression that are never evaluated for
// kind: the other side of a `||` that a guard on object.kind or object.apiVersion makes true
// for it, of a `&&` it makes false, and the branch of a `?:` its guard does not take. A guard
// is any subexpression that reads nothing of the object but its kind and apiVersion, or an
// `||`, `&&`, `!` or `?:` whose value such guards decide.
func (c *PolicyTypeChecker) skippedFor(ast *celast.AST, kind schema.GroupVersionKind) map[position]bool {
	if ast == nil {
		return nil // the expression did not parse: nothing is known to be skipped
	}
	g := &guards{checker: c, info: ast.SourceInfo(), known: map[int64]knownValue{},
		object: map[string]any{"kind": kind.Kind, "apiVersion": kind.GroupVersion().String()}}
	skipped := map[position]bool{}
	skip := func(e celast.Expr) {
		celast.PreOrderVisit(e, celast.NewExprVisitor(func(e celast.Expr) {
			loc := g.info.GetStartLocation(e.ID())
			// CEL reports columns from 1; its locations count them from 0.
			skipped[position{loc.Line(), loc.Column() + 1}] = true
		}))
	}
	celast.PreOrderVisit(ast.Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if e.Kind() != celast.CallKind {
			return
		}
		args := e.AsCall().Args()
		switch e.AsCall().FunctionName() {
		case "_||_", "_&&_":
			// The value that decides: true decides ||, false decides &&.
			decides := e.AsCall().FunctionName() == "_||_"
			for i, arg := range args {
				if v, ok := g.value(arg); ok && v == decides {
					skip(args[1-i])
				}
			}
		case "_?_:_":
			if v, ok := g.value(args[0]); ok {
				skip(args[map[bool]int{true: 2, false: 1}[v]])
			}
		}
	}))
	return skipped
}

// parse parses an expression as kube-apiserver does; one that does not parse (A01's concern)
// gives nil.
func (c *PolicyTypeChecker) parse(expression string) *celast.AST {
	parsed, issues := c.env.Parse(expression)
	if issues != nil && issues.Err() != nil {
		return nil
	}
	return parsed.NativeRep()
}

// guards evaluates the guards of one expression for one kind.
type guards struct {
	checker *PolicyTypeChecker
	info    *celast.SourceInfo
	object  map[string]any
	known   map[int64]knownValue
}

type knownValue struct{ value, ok bool }

// value is e's boolean value for the kind, when the kind alone decides it.
func (g *guards) value(e celast.Expr) (value, ok bool) {
	if k, seen := g.known[e.ID()]; seen {
		return k.value, k.ok
	}
	value, ok = g.decide(e)
	g.known[e.ID()] = knownValue{value, ok}
	return value, ok
}

func (g *guards) decide(e celast.Expr) (value, ok bool) {
	if readsOnlyKind(e, map[string]bool{}) {
		return g.checker.evaluate(e, g.info, g.object)
	}
	if e.Kind() != celast.CallKind {
		return false, false
	}
	args := e.AsCall().Args()
	switch e.AsCall().FunctionName() {
	case "_||_", "_&&_":
		decides := e.AsCall().FunctionName() == "_||_"
		all := true
		for _, arg := range args {
			v, ok := g.value(arg)
			if ok && v == decides {
				return decides, true
			}
			all = all && ok
		}
		return !decides, all
	case "!_":
		v, ok := g.value(args[0])
		return !v, ok
	case "_?_:_":
		if v, ok := g.value(args[0]); ok {
			return g.value(args[map[bool]int{true: 1, false: 2}[v]])
		}
	}
	return false, false
}

// evaluate evaluates a guard for an object of the given kind and apiVersion.
func (c *PolicyTypeChecker) evaluate(e celast.Expr, info *celast.SourceInfo, object map[string]any) (value, ok bool) {
	// The guard is evaluated as parsed: its identifiers are object's and its own.
	expr, err := celast.ExprToProto(e)
	if err != nil {
		return false, false
	}
	sourceInfo, err := celast.SourceInfoToProto(info)
	if err != nil {
		return false, false
	}
	program, err := c.env.Program(cel.ParsedExprToAst(&exprpb.ParsedExpr{Expr: expr, SourceInfo: sourceInfo}))
	if err != nil {
		return false, false
	}
	result, _, err := program.Eval(map[string]any{"object": object})
	if err != nil || result.Type() != types.BoolType {
		return false, false
	}
	return result.Value().(bool), true
}

// readsOnlyKind reports whether e reads no variable but object's kind and apiVersion and the
// variables of its own comprehensions (bound).
func readsOnlyKind(e celast.Expr, bound map[string]bool) bool {
	switch e.Kind() {
	case celast.LiteralKind:
		return true
	case celast.IdentKind:
		return bound[e.AsIdent()]
	case celast.SelectKind:
		sel := e.AsSelect()
		if sel.Operand().Kind() == celast.IdentKind && sel.Operand().AsIdent() == "object" && !sel.IsTestOnly() {
			return sel.FieldName() == "kind" || sel.FieldName() == "apiVersion"
		}
		return false
	case celast.CallKind:
		call := e.AsCall()
		if call.IsMemberFunction() && !readsOnlyKind(call.Target(), bound) {
			return false
		}
		for _, arg := range call.Args() {
			if !readsOnlyKind(arg, bound) {
				return false
			}
		}
		return true
	case celast.ListKind:
		for _, el := range e.AsList().Elements() {
			if !readsOnlyKind(el, bound) {
				return false
			}
		}
		return true
	case celast.ComprehensionKind:
		comp := e.AsComprehension()
		inner := map[string]bool{comp.IterVar(): true, comp.AccuVar(): true}
		if comp.HasIterVar2() {
			inner[comp.IterVar2()] = true
		}
		for k := range bound {
			inner[k] = true
		}
		if !readsOnlyKind(comp.IterRange(), bound) || !readsOnlyKind(comp.AccuInit(), bound) {
			return false
		}
		return readsOnlyKind(comp.LoopCondition(), inner) && readsOnlyKind(comp.LoopStep(), inner) && readsOnlyKind(comp.Result(), inner)
	}
	return false
}

// quantitiesAsStrings resolves schemas in which a schema without a type takes the one of its
// OpenAPI v2 form (x-kubernetes-v2-schema), as resource.Quantity's does: string. It keeps what
// it resolved: the checker resolves every kind a policy matches for each policy.
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
	return &copied, nil
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
