package typecheck

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
)

// Checker type-checks admission CEL expressions. Building it takes tens of milliseconds (the
// apiserver's CEL environments): build one and keep it. It is safe for concurrent use.
type Checker struct {
	base *environment.EnvSet
	// guards parses expressions as kube-apiserver does and evaluates kind guards: object is
	// dyn there.
	guards *cel.Env
	// conditions holds an environment per kind for match conditions (conditions.go).
	conditions *conditionEnvs
}

// New builds a Checker for the CEL compatibility version expressions are compiled with (that
// of the apiserver the expressions are for).
func New(compatibility *version.Version) (*Checker, error) {
	base := environment.MustBaseEnvSet(compatibility)
	env, err := base.Env(environment.StoredExpressions)
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment: %w", err)
	}
	if env, err = env.Extend(cel.Variable("object", cel.DynType)); err != nil {
		return nil, fmt.Errorf("building the CEL environment: %w", err)
	}
	return &Checker{base: base, guards: env, conditions: newConditionEnvs()}, nil
}

// Error is a part of an expression that does not type-check against a kind.
type Error struct {
	Kind schema.GroupVersionKind
	// Line and Column locate the error in the expression, from 1; 0 when CEL gives no place.
	Line, Column int
	Message      string
}

// String reads "against Pod (v1): undefined field 'replicas' at line 1, column 12".
func (e Error) String() string {
	where := ""
	if e.Line > 0 {
		where = fmt.Sprintf(" at line %d, column %d", e.Line, e.Column)
	}
	return fmt.Sprintf("against %s (%s): %s%s", e.Kind.Kind, e.Kind.GroupVersion(), e.Message, where)
}

// RuntimeErrors reads report, CEL's type errors for expression checked against kind, and
// returns those that fail at runtime. It drops:
//   - the errors in a part of the expression that a guard on object.kind or object.apiVersion
//     skips for kind: in `object.kind != 'Pod' || object.spec.hostPID != true`, the right side
//     is never evaluated for a Deployment, whose spec has no hostPID;
//   - two lists concatenated: the checker names each list's element type after its path
//     (spec.containers, spec.initContainers) and finds no `+` for two differently named types,
//     where at runtime both are lists of JSON values and join;
//   - authorizer.requestResource, which admission expressions have at runtime and which
//     kube-apiserver's type checker for policies does not declare ("unexpected failed resolution
//     of 'kubernetes.authorization.Authorizer'").
func (c *Checker) RuntimeErrors(expression string, kind schema.GroupVersionKind, report string) []Error {
	issues := parseIssues(report)
	var skipped map[position]bool
	if parsed := c.parse(expression); parsed != nil {
		skipped = c.skippedFor(parsed, kind)
		for p := range requestResources(parsed) {
			skipped[p] = true
		}
	}
	var out []Error
	for _, issue := range issues {
		if issue.line > 0 && skipped[position{issue.line, issue.column}] || listsJoined.MatchString(issue.message) {
			continue
		}
		out = append(out, Error{Kind: kind, Line: issue.line, Column: issue.column, Message: issue.message})
	}
	return out
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

// parse parses an expression as kube-apiserver does; one that does not parse gives nil.
func (c *Checker) parse(expression string) *celast.AST {
	parsed, issues := c.guards.Parse(expression)
	if issues != nil && issues.Err() != nil {
		return nil
	}
	return parsed.NativeRep()
}

// requestResources returns the positions of authorizer.requestResource in an expression.
func requestResources(ast *celast.AST) map[position]bool {
	out := map[position]bool{}
	celast.PreOrderVisit(ast.Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if e.Kind() != celast.SelectKind {
			return
		}
		sel := e.AsSelect()
		if sel.FieldName() == "requestResource" && sel.Operand().Kind() == celast.IdentKind && sel.Operand().AsIdent() == "authorizer" {
			out[locate(ast.SourceInfo(), e)] = true
		}
	}))
	return out
}
