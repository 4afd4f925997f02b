package testsuite

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/admitkit/admit/engine"
)

// Check compares a result with a case's expectations and returns one sentence per difference;
// none means the case passed.
func Check(e Expect, res *engine.Result) []string {
	c := &checker{}
	c.decision(e, res)
	c.warnings(e, res)
	c.steps(e, res)
	if len(e.Fields) > 0 || e.Object != nil || e.WholeObject != nil {
		c.object(e, res)
	}
	return c.failures
}

// checker collects a case's failures, one sentence each.
type checker struct{ failures []string }

func (c *checker) failf(format string, args ...any) {
	c.failures = append(c.failures, fmt.Sprintf(format, args...))
}

// decision checks the decision: allowed, and a rejection's code, reason and message.
func (c *checker) decision(e Expect, res *engine.Result) {
	if e.Allowed != nil && *e.Allowed != res.Allowed {
		if res.Allowed {
			c.failf("admitted, want rejected")
		} else {
			c.failf("rejected (%s), want admitted", statusLine(res))
		}
	}
	code, reason, message := int32(0), "", ""
	if res.Status != nil && !res.Allowed {
		code, reason, message = res.Status.Code, string(res.Status.Reason), res.Status.Message
	}
	if e.Code != nil && *e.Code != code {
		c.failf("code %d, want %d", code, *e.Code)
	}
	if e.Reason != "" && e.Reason != reason {
		c.failf("reason %q, want %q", reason, e.Reason)
	}
	if e.Message != nil && *e.Message != message {
		c.failf("message %q, want %q", message, *e.Message)
	}
	if e.MessageRegexp != "" {
		if re, err := compileRegexp(e.MessageRegexp); err == nil && !re.MatchString(message) {
			c.failf("message %q does not match %q", message, e.MessageRegexp)
		}
	}
}

// warnings checks the warnings and the audit annotations.
func (c *checker) warnings(e Expect, res *engine.Result) {
	if e.Has("warnings") && !slices.Equal(e.Warnings, res.Warnings) {
		c.failf("warnings %s, want %s", quoteList(res.Warnings), quoteList(e.Warnings))
	}
	for _, k := range sortedKeys(e.AuditAnnotations) {
		got, ok := res.AuditAnnotations[k]
		switch {
		case !ok:
			c.failf("no audit annotation %q, want %q", k, e.AuditAnnotations[k])
		case got != e.AuditAnnotations[k]:
			c.failf("audit annotation %q is %q, want %q", k, got, e.AuditAnnotations[k])
		}
	}
}

// steps checks the webhooks and policies called, and their outcomes.
func (c *checker) steps(e Expect, res *engine.Result) {
	rows := Rows(res)
	if e.Has("called") {
		if got := Called(res); !slices.Equal(got, e.Called) {
			c.failf("called %s, want %s%s", quoteList(got), quoteList(e.Called), whyNotCalled(e.Called, rows))
		}
	}
	for _, name := range sortedKeys(e.Outcomes) {
		i := slices.IndexFunc(rows, func(r Row) bool { return r.Name == name })
		switch {
		case i < 0:
			c.failf("no webhook or policy %q in the result: it is not configured, or admission stopped before it", name)
		case rows[i].Outcome == string(engine.OutcomeSkipped) && e.Outcomes[name] != rows[i].Outcome:
			c.failf("%s: skipped, not called (%s), want %s", name, rows[i].Reason, e.Outcomes[name])
		case rows[i].Outcome != e.Outcomes[name]:
			c.failf("%s: %s, want %s", name, rows[i].Outcome, e.Outcomes[name])
		}
	}
}

// object checks the admitted object: a partial document, the whole object, fields.
func (c *checker) object(e Expect, res *engine.Result) {
	var obj any
	if len(res.Object) == 0 || json.Unmarshal(res.Object, &obj) != nil {
		c.failf("no admitted object to compare with (a DELETE or CONNECT has none)")
		return
	}
	if e.Object != nil {
		for _, d := range compare(e.Object, obj, false) {
			c.failf("object: %s", d)
		}
	}
	if e.WholeObject != nil {
		for _, d := range compare(withoutVolatile(e.WholeObject), withoutVolatile(obj), true) {
			c.failf("wholeObject: %s", d)
		}
	}
	for _, path := range sortedKeys(e.Fields) {
		want := normalize(e.Fields[path])
		value, found, err := lookup(obj, path)
		switch {
		case err != nil:
			c.failf("%v", err)
		case want == nil && found:
			c.failf("%s is %s, want it absent", path, jsonText(value))
		case want != nil && !found:
			c.failf("%s is absent, want %s", path, jsonText(want))
		case want != nil && !reflect.DeepEqual(value, want): // JSON values: see compare on why not go-cmp
			c.failf("%s is %s, want %s", path, jsonText(value), jsonText(want))
		}
	}
}

// isCall reports whether a result row is a webhook or an admission policy (not a built-in
// plugin or a preparation step).
func isCall(w engine.Row) bool {
	// A policy's row names its binding; a row without one is the policy plugin as a whole (its
	// reinvocation), not a policy.
	return w.Type.IsWebhook() || (w.Type.IsPolicy() && w.Binding != "")
}

// Called lists the webhooks and policies that were called (not skipped), in the order of their
// first call.
func Called(res *engine.Result) []string {
	var out []string
	for _, w := range res.Rows {
		if isCall(w) && w.Outcome != engine.OutcomeSkipped && !slices.Contains(out, w.Name) {
			out = append(out, w.Name)
		}
	}
	return out
}

// Outcomes maps each webhook and policy to its outcome: its last round's, unless that round
// skipped it after an earlier one called it (a reinvocation that did not happen).
func Outcomes(res *engine.Result) map[string]string {
	out := map[string]string{}
	for _, r := range Rows(res) {
		out[r.Name] = r.Outcome
	}
	return out
}

// Row is what happened with one webhook or admission policy in an admission.
type Row struct {
	Name string `json:"name"`
	// Type is mutating, validating, mutating-policy or validating-policy.
	Type engine.RowType `json:"type"`
	// Binding is a policy's binding.
	Binding string `json:"binding,omitempty"`
	// Outcome is as in Outcomes: skipped means it was not called, for Reason (it does not
	// match the object, a namespace or object selector, a match condition...).
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
}

// Rows lists each webhook and policy once, in the order of their first row, with the outcome
// Outcomes gives it.
func Rows(res *engine.Result) []Row {
	var out []Row
	for _, w := range res.Rows {
		if !isCall(w) {
			continue
		}
		row := Row{Name: w.Name, Type: w.Type, Binding: w.Binding, Outcome: string(w.Outcome), Reason: w.Reason}
		i := slices.IndexFunc(out, func(r Row) bool { return r.Name == w.Name })
		switch {
		case i < 0:
			out = append(out, row)
		case w.Outcome == engine.OutcomeSkipped && out[i].Outcome != string(engine.OutcomeSkipped):
			// A reinvocation that did not happen: the call stands.
		default:
			out[i] = row
		}
	}
	return out
}

// whyNotCalled says, for the expected calls that did not happen, that they were skipped and
// why, or that no such webhook or policy is configured.
func whyNotCalled(want []string, rows []Row) string {
	var notes []string
	for _, name := range want {
		i := slices.IndexFunc(rows, func(r Row) bool { return r.Name == name })
		switch {
		case i < 0:
			notes = append(notes, fmt.Sprintf("%q is not configured, or admission stopped before it", name))
		case rows[i].Outcome == string(engine.OutcomeSkipped):
			notes = append(notes, fmt.Sprintf("%q was skipped: %s", name, rows[i].Reason))
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return "; " + strings.Join(notes, "; ")
}

func statusLine(res *engine.Result) string {
	if res.Status == nil {
		return "no status"
	}
	return fmt.Sprintf("%d %s: %s", res.Status.Code, res.Status.Reason, res.Status.Message)
}

func quoteList(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func compileRegexp(expr string) (*regexp.Regexp, error) {
	return regexp.Compile(expr)
}

// normalize turns a YAML-decoded value into what decoding its JSON gives, so that it compares
// with a value read from the admitted object (numbers as float64, maps as map[string]any).
func normalize(v any) any {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return v
	}
	return out
}

func jsonText(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// pathStep is one step of a field path: a map key or a list index.
type pathStep struct {
	key   string
	index int
	isKey bool
}

// parseFieldPath reads spec.containers[0].image and metadata.labels["app.kubernetes.io/name"].
func parseFieldPath(path string) ([]pathStep, error) {
	var steps []pathStep
	rest := path
	expectKey := true
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, "["):
			end := strings.Index(rest, "]")
			if end < 0 {
				return nil, fmt.Errorf("field path %q: a [ without its ]", path)
			}
			inner := rest[1:end]
			if strings.HasPrefix(inner, `"`) {
				key, err := strconv.Unquote(inner)
				if err != nil {
					return nil, fmt.Errorf("field path %q: %s is not a quoted key", path, inner)
				}
				steps = append(steps, pathStep{key: key, isKey: true})
			} else {
				i, err := strconv.Atoi(inner)
				if err != nil || i < 0 {
					return nil, fmt.Errorf("field path %q: [%s] is neither a list index nor a quoted key", path, inner)
				}
				steps = append(steps, pathStep{index: i})
			}
			rest = rest[end+1:]
			expectKey = false
		case strings.HasPrefix(rest, "."):
			if expectKey {
				return nil, fmt.Errorf("field path %q: an empty field name", path)
			}
			rest = rest[1:]
			expectKey = true
		default:
			if !expectKey {
				return nil, fmt.Errorf("field path %q: a field name must follow a dot", path)
			}
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			steps = append(steps, pathStep{key: rest[:end], isKey: true})
			rest = rest[end:]
			expectKey = false
		}
	}
	if len(steps) == 0 || expectKey {
		return nil, fmt.Errorf("field path %q: empty or ending with a dot", path)
	}
	return steps, nil
}

// lookup reads path in obj; found is false when a step is missing.
func lookup(obj any, path string) (value any, found bool, err error) {
	steps, err := parseFieldPath(path)
	if err != nil {
		return nil, false, err
	}
	cur := obj
	for _, s := range steps {
		if s.isKey {
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false, nil
			}
			if cur, ok = m[s.key]; !ok {
				return nil, false, nil
			}
			continue
		}
		list, ok := cur.([]any)
		if !ok || s.index >= len(list) {
			return nil, false, nil
		}
		cur = list[s.index]
	}
	return cur, cur != nil, nil
}
