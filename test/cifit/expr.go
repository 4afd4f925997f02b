package cifit

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Contexts are the values an expression reads: inputs, github, runner, steps, env, each a map
// of strings or of further maps. Failed says whether a step of the action has failed so far,
// for the status functions.
type Contexts struct {
	Values map[string]any
	Failed bool
}

var (
	// embedded matches a ${{ ... }} expression inside a string.
	embedded = regexp.MustCompile(`\$\{\{(.*?)\}\}`)
	// statusCall matches a call of a status function.
	statusCall = regexp.MustCompile(`\b(success|failure|always|cancelled)\s*\(`)
	// word matches a name (hyphens allowed after its first letter) or a number.
	word = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*|-?[0-9][0-9.]*)`)
)

// Interpolate replaces each ${{ expression }} of s with the expression's value as a string, as
// the runner does in a step's run, env, with and working-directory and in an action's outputs.
func (c *Contexts) Interpolate(s string) (string, error) {
	var firstErr error
	out := embedded.ReplaceAllStringFunc(s, func(m string) string {
		v, err := c.Evaluate(embedded.FindStringSubmatch(m)[1])
		if err == nil {
			var str string
			str, err = toString(v)
			if err == nil {
				return str
			}
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("%s: %w", m, err)
		}
		return ""
	})
	return out, firstErr
}

// Condition evaluates a step's if: it may be wrapped in ${{ }}, and without a status function
// (success(), failure(), always(), cancelled()) it holds only while no step has failed, as
// though it were success() && (if). An empty if is success().
func (c *Contexts) Condition(cond string) (bool, error) {
	cond = strings.TrimSpace(cond)
	if inner, ok := strings.CutPrefix(cond, "${{"); ok {
		if inner, ok = strings.CutSuffix(inner, "}}"); ok {
			cond = strings.TrimSpace(inner)
		}
	}
	if cond == "" {
		cond = "success()"
	}
	if !statusCall.MatchString(cond) {
		cond = "success() && (" + cond + ")"
	}
	v, err := c.Evaluate(cond)
	if err != nil {
		return false, fmt.Errorf("if: %s: %w", cond, err)
	}
	return truthy(v), nil
}

// Evaluate evaluates an expression of the subset of GitHub's expression language that an
// action's steps use: context properties (inputs.upload-sarif, steps.run.outputs.report),
// string, number and boolean literals, ==, !=, !, &&, || and parentheses, and the status
// functions. Anything else is an error, never a guess.
func (c *Contexts) Evaluate(expr string) (any, error) {
	tokens, err := tokenize(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{tokens: tokens, ctx: c}
	v, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.tokens) {
		return nil, fmt.Errorf("unexpected %q", p.tokens[p.pos].text)
	}
	return v, nil
}

type tokenKind int

const (
	tokOperator tokenKind = iota
	tokString
	tokNumber
	tokName
)

type token struct {
	kind tokenKind
	text string
}

func tokenize(s string) ([]token, error) {
	var tokens []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(s[i:], "==") || strings.HasPrefix(s[i:], "!=") ||
			strings.HasPrefix(s[i:], "&&") || strings.HasPrefix(s[i:], "||"):
			tokens = append(tokens, token{tokOperator, s[i : i+2]})
			i += 2
		case strings.ContainsRune("()!.", rune(c)):
			tokens = append(tokens, token{tokOperator, s[i : i+1]})
			i++
		case c == '\'':
			str, n, err := quoted(s[i:])
			if err != nil {
				return nil, err
			}
			tokens = append(tokens, token{tokString, str})
			i += n
		default:
			m := word.FindString(s[i:])
			if m == "" {
				return nil, fmt.Errorf("unsupported character %q at %d", c, i)
			}
			kind := tokName
			if m[0] == '-' || (m[0] >= '0' && m[0] <= '9') {
				kind = tokNumber
			}
			tokens = append(tokens, token{kind, m})
			i += len(m)
		}
	}
	return tokens, nil
}

// quoted reads a single-quoted string literal, in which two quotes stand for one, at the start of
// s: its value and its length in s.
func quoted(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), i + 1, nil
	}
	return "", 0, fmt.Errorf("unterminated string %s", s)
}

type parser struct {
	tokens []token
	pos    int
	ctx    *Contexts
}

func (p *parser) peek(text string) bool {
	return p.pos < len(p.tokens) && p.tokens[p.pos].kind == tokOperator && p.tokens[p.pos].text == text
}

// or and and return one of their operands, as GitHub's || and && do.
func (p *parser) or() (any, error) {
	left, err := p.and()
	for err == nil && p.peek("||") {
		p.pos++
		var right any
		if right, err = p.and(); err == nil && !truthy(left) {
			left = right
		}
	}
	return left, err
}

func (p *parser) and() (any, error) {
	left, err := p.comparison()
	for err == nil && p.peek("&&") {
		p.pos++
		var right any
		if right, err = p.comparison(); err == nil && truthy(left) {
			left = right
		}
	}
	return left, err
}

func (p *parser) comparison() (any, error) {
	left, err := p.unary()
	if err != nil || !(p.peek("==") || p.peek("!=")) {
		return left, err
	}
	op := p.tokens[p.pos].text
	p.pos++
	right, err := p.unary()
	if err != nil {
		return nil, err
	}
	return equal(left, right) == (op == "=="), nil
}

func (p *parser) unary() (any, error) {
	if p.peek("!") {
		p.pos++
		v, err := p.unary()
		return !truthy(v), err
	}
	return p.primary()
}

func (p *parser) primary() (any, error) {
	if p.pos >= len(p.tokens) {
		return nil, fmt.Errorf("the expression ends too soon")
	}
	t := p.tokens[p.pos]
	p.pos++
	switch {
	case t.kind == tokString:
		return t.text, nil
	case t.kind == tokNumber:
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, fmt.Errorf("number %q: %w", t.text, err)
		}
		return f, nil
	case t.kind == tokOperator && t.text == "(":
		v, err := p.or()
		if err == nil && !p.peek(")") {
			err = fmt.Errorf("missing )")
		}
		p.pos++
		return v, err
	case t.kind == tokName:
		return p.name(t.text)
	}
	return nil, fmt.Errorf("unexpected %q", t.text)
}

// name reads a literal, a status function call or a context and its properties.
func (p *parser) name(name string) (any, error) {
	switch name {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if p.peek("(") {
		if p.pos+1 >= len(p.tokens) || p.tokens[p.pos+1].text != ")" {
			return nil, fmt.Errorf("%s(): only the status functions, without arguments, are supported", name)
		}
		p.pos += 2
		switch name {
		case "success":
			return !p.ctx.Failed, nil
		case "failure":
			return p.ctx.Failed, nil
		case "always":
			return true, nil
		case "cancelled":
			return false, nil
		}
		return nil, fmt.Errorf("unsupported function %s()", name)
	}
	v, ok := lookup(p.ctx.Values, name)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", name)
	}
	for p.peek(".") {
		p.pos++
		if p.pos >= len(p.tokens) || p.tokens[p.pos].kind != tokName {
			return nil, fmt.Errorf("a property name must follow %q", name)
		}
		switch m := v.(type) {
		case map[string]any:
			v, _ = lookup(m, p.tokens[p.pos].text)
		case nil: // a property of null is null
		default:
			return nil, fmt.Errorf("%s is not an object", name)
		}
		name += "." + p.tokens[p.pos].text
		p.pos++
	}
	return v, nil
}

// lookup finds a property by name, case-insensitively as GitHub's contexts do; missing is null.
func lookup(m map[string]any, key string) (any, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0 && !math.IsNaN(v)
	case string:
		return v != ""
	}
	return true
}

// equal compares as GitHub does: strings case-insensitively, values of different types as
// numbers.
func equal(a, b any) bool {
	switch a := a.(type) {
	case string:
		if b, ok := b.(string); ok {
			return strings.EqualFold(a, b)
		}
	case bool:
		if b, ok := b.(bool); ok {
			return a == b
		}
	case nil:
		if b == nil {
			return true
		}
	case map[string]any:
		return false
	}
	return toNumber(a) == toNumber(b)
}

func toNumber(v any) float64 {
	switch v := v.(type) {
	case nil:
		return 0
	case bool:
		if v {
			return 1
		}
		return 0
	case float64:
		return v
	case string:
		if strings.TrimSpace(v) == "" {
			return 0
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			return f
		}
	}
	return math.NaN()
}

func toString(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case bool:
		return strconv.FormatBool(v), nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case string:
		return v, nil
	}
	return "", fmt.Errorf("an object is not a string")
}
