package lint

import (
	"github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/parser"
)

// paramsVariable is the name under which a policy's expressions see its parameters.
const paramsVariable = "params"

// paramsUse says how a policy's expressions use params, which are null when a binding gives no
// paramRef: reads is true when an expression whose error fails the request reads them, guarded
// when some expression tests them for null (params == null, has(params.x)): a policy written
// to run without parameters too. Expressions that do not parse (A01's) say nothing.
func paramsUse(expressions []policyExpression) (reads, guarded bool) {
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...), parser.EnableOptionalSyntax(true))
	if err != nil {
		return false, false
	}
	for _, e := range expressions {
		if e.text == "" {
			continue
		}
		tree, errs := p.Parse(common.NewTextSource(e.text))
		if len(errs.GetErrors()) > 0 {
			continue
		}
		celast.PreOrderVisit(tree.Expr(), celast.NewExprVisitor(func(x celast.Expr) {
			switch {
			case isParams(x):
				reads = reads || e.failing
			case nullTest(x):
				guarded = true
			}
		}))
	}
	return reads, guarded
}

func isParams(x celast.Expr) bool {
	return x.Kind() == celast.IdentKind && x.AsIdent() == paramsVariable
}

// nullTest recognises params == null, params != null (either way round) and the presence
// test has(params.x), which is false rather than an error on null.
func nullTest(x celast.Expr) bool {
	switch x.Kind() {
	case celast.SelectKind:
		s := x.AsSelect()
		return s.IsTestOnly() && isParams(s.Operand())
	case celast.CallKind:
		c := x.AsCall()
		if (c.FunctionName() != "_==_" && c.FunctionName() != "_!=_") || len(c.Args()) != 2 {
			return false
		}
		l, r := c.Args()[0], c.Args()[1]
		return (isParams(l) && isNull(r)) || (isNull(l) && isParams(r))
	}
	return false
}

func isNull(x celast.Expr) bool {
	return x.Kind() == celast.LiteralKind && x.AsLiteral() == types.NullValue
}
