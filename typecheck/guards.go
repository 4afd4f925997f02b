package typecheck

import (
	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// position is a place in an expression as CEL reports it: line and column from 1.
type position struct{ line, column int }

// locate returns where e is, as CEL reports positions.
func locate(info *celast.SourceInfo, e celast.Expr) position {
	loc := info.GetStartLocation(e.ID())
	// CEL reports columns from 1; its locations count them from 0.
	return position{loc.Line(), loc.Column() + 1}
}

// skippedFor returns the positions of the parts of an expression that are never evaluated for
// kind: the other side of a `||` that a guard on object.kind or object.apiVersion makes true
// for it, of a `&&` it makes false, and the branch of a `?:` its guard does not take. A guard
// is any subexpression that reads nothing of the object but its kind and apiVersion, or an
// `||`, `&&`, `!` or `?:` whose value such guards decide.
func (c *Checker) skippedFor(ast *celast.AST, kind schema.GroupVersionKind) map[position]bool {
	g := &guards{env: c.guards, info: ast.SourceInfo(), known: map[int64]knownValue{},
		object: map[string]any{"kind": kind.Kind, "apiVersion": kind.GroupVersion().String()}}
	skipped := map[position]bool{}
	skip := func(e celast.Expr) {
		celast.PreOrderVisit(e, celast.NewExprVisitor(func(e celast.Expr) {
			skipped[locate(g.info, e)] = true
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

// guards evaluates the guards of one expression for one kind.
type guards struct {
	env    *cel.Env
	info   *celast.SourceInfo
	object map[string]any
	known  map[int64]knownValue
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
		return g.evaluate(e)
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

// evaluate evaluates a guard for an object of the guards' kind and apiVersion.
func (g *guards) evaluate(e celast.Expr) (value, ok bool) {
	// The guard is evaluated as parsed: its identifiers are object's and its own.
	expr, err := celast.ExprToProto(e)
	if err != nil {
		return false, false
	}
	sourceInfo, err := celast.SourceInfoToProto(g.info)
	if err != nil {
		return false, false
	}
	program, err := g.env.Program(cel.ParsedExprToAst(&exprpb.ParsedExpr{Expr: expr, SourceInfo: sourceInfo}))
	if err != nil {
		return false, false
	}
	result, _, err := program.Eval(map[string]any{"object": g.object})
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
		return comprehensionReadsOnlyKind(e.AsComprehension(), bound)
	}
	return false
}

func comprehensionReadsOnlyKind(comp celast.ComprehensionExpr, bound map[string]bool) bool {
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
