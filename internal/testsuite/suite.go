package testsuite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// APIVersion and Kind identify a test file.
const (
	APIVersion = "admit.dev/v1alpha1"
	Kind       = "TestSuite"
)

// Suite is one test file.
type Suite struct {
	// Path is the file; relative paths in it are relative to its directory.
	Path string
	Name string
	// Webhooks, Cluster and CRDs are paths (files or directories), resolved against the file's
	// directory: `admit review`'s --webhooks, --cluster and --crds. No webhooks: the built-in ones.
	Webhooks, Cluster, CRDs []string
	// Resolve maps services to addresses, as `admit review --resolve`; $(PORT) is the server's port.
	Resolve      []string
	WebhooksOnly bool
	// Namespace is the namespace of namespaced objects that name none (default "default").
	Namespace string
	// Server, when set, is started before the cases and stopped after them.
	Server *Server
	Cases  []*Case

	// data is the file as read: Encode rewrites only the expectations Update changed.
	data []byte
}

// Server is a webhook server a suite starts. Its command, env and ready address expand $(PORT)
// (a free port on 127.0.0.1), $(CERT_DIR) (a directory with tls.crt, tls.key and ca.crt of a
// throwaway CA, which is also the caBundle of every webhook that has none), $(ADMIT) (the admit
// binary running the tests) and $(SUITE_DIR).
type Server struct {
	Command []string
	Env     map[string]string
	// Ready is polled until it answers: an http(s):// URL that must answer 200, or tcp://HOST:PORT
	// that must accept a connection.
	Ready        string
	ReadyTimeout time.Duration
	Line         int
}

// Case is one admission and what must come of it.
type Case struct {
	Name string
	// Object and Old are the object and the existing object (UPDATE), as JSON.
	Object, Old json.RawMessage
	// ObjectSource and OldSource say where they came from, for messages.
	ObjectSource, OldSource string
	Operation               string
	Namespace               string
	SubResource             string
	User                    string
	Groups                  []string
	DryRun                  bool
	Expect                  Expect
	// Line is the case's line in the file.
	Line int

	node *yaml.Node
	// updated is the expect mapping Update wrote, nil until then.
	updated *yaml.Node
	// files are the expectation files Update rewrote, with their content.
	files map[string][]byte
}

// Expect is what a case checks; what is not set is not checked.
type Expect struct {
	Allowed *bool `yaml:"allowed,omitempty" json:"allowed,omitempty"`
	// Code and Reason are the rejection's HTTP status code and reason (Forbidden, Invalid, ...).
	Code   *int32 `yaml:"code,omitempty" json:"code,omitempty"`
	Reason string `yaml:"reason,omitempty" json:"reason,omitempty"`
	// Message is the rejection's exact message; MessageRegexp a regular expression it must match.
	Message       *string `yaml:"message,omitempty" json:"message,omitempty"`
	MessageRegexp string  `yaml:"messageRegexp,omitempty" json:"messageRegexp,omitempty"`
	// Warnings are the warnings, in order; an empty list means none.
	Warnings []string `yaml:"warnings,omitempty" json:"warnings,omitempty"`
	// AuditAnnotations must be among the result's (others are not checked).
	AuditAnnotations map[string]string `yaml:"auditAnnotations,omitempty" json:"auditAnnotations,omitempty"`
	// Called lists the webhooks and admission policies called, in the order of their first call.
	Called []string `yaml:"called,omitempty" json:"called,omitempty"`
	// Outcomes maps webhooks and policies to their outcome (allowed, patched, denied, error,
	// failed-open, skipped).
	Outcomes map[string]string `yaml:"outcomes,omitempty" json:"outcomes,omitempty"`
	// Fields maps paths in the admitted object (spec.containers[0].image,
	// metadata.labels["app.kubernetes.io/name"]) to their value; null means absent.
	Fields map[string]any `yaml:"fields,omitempty" json:"fields,omitempty"`
	// Object is a partial document the admitted object must match: each field it gives has
	// the given value (null: absent), mappings key by key, lists item by item.
	Object map[string]any `yaml:"-" json:"object,omitempty"`
	// WholeObject is the whole admitted object, but for the fields the apiserver sets anew on
	// every write (see VolatileFields).
	WholeObject map[string]any `yaml:"-" json:"wholeObject,omitempty"`
	// ObjectFile and WholeObjectFile are the files they were read from, "" when inline.
	ObjectFile      string `yaml:"-" json:"-"`
	WholeObjectFile string `yaml:"-" json:"-"`

	// set records which keys the file gave, so that an empty list can mean "none".
	set map[string]bool
}

// Has reports whether the file set the expectation key (warnings, called, ...).
func (e *Expect) Has(key string) bool { return e.set[key] }

// Load reads a test file.
func Load(path string) (*Suite, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads a test file's content; path names it in messages and anchors relative paths.
func Parse(path string, data []byte) (*Suite, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s", yamlError(path, err))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: a test file is one YAML mapping (apiVersion: %s, kind: %s)", path, APIVersion, Kind)
	}
	p := &parser{path: path, dir: filepath.Dir(path)}
	s := p.suite(doc.Content[0])
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	s.data = data
	return s, nil
}

// parser collects every problem of a file, each with its line.
type parser struct {
	path, dir string
	errs      []error
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s:%d: %s", p.path, n.Line, fmt.Sprintf(format, args...)))
}

// yamlLine finds the line in a YAML parser's message: "yaml: line 3: ...".
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlError places a YAML parser's error as the other messages are placed, "file:line: ...",
// instead of "file: yaml: line N: ...".
func yamlError(path string, err error) string {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s:%s: yaml: %s", path, m[1], msg[len(m[0]):])
	}
	return fmt.Sprintf("%s: %s", path, msg)
}

// resolve follows an alias (*name) to the node its anchor (&name) marks, so that a reused
// anchor reads as the node it stands for.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// pairs lists a mapping's keys and values, the entries of merge keys (<<: *anchor) after its
// own, as YAML merges them: a key of the mapping wins over a merged one.
func pairs(n *yaml.Node) [][2]*yaml.Node {
	var own, merged [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Tag != "!!merge" {
			own = append(own, [2]*yaml.Node{k, v})
			continue
		}
		sources := []*yaml.Node{resolve(v)}
		if sources[0] != nil && sources[0].Kind == yaml.SequenceNode {
			sources = sources[0].Content
		}
		for _, src := range sources {
			if src = resolve(src); src != nil && src.Kind == yaml.MappingNode {
				merged = append(merged, pairs(src)...)
			}
		}
	}
	out := own
	for _, m := range merged {
		if !slices.ContainsFunc(out, func(o [2]*yaml.Node) bool { return o[0].Value == m[0].Value }) {
			out = append(out, m)
		}
	}
	return out
}

// fields returns a mapping's values by key, reporting keys not in known.
func (p *parser) fields(n *yaml.Node, what string, known ...string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s must be a mapping", what)
		return out
	}
	for _, kv := range pairs(n) {
		k, v := kv[0], resolve(kv[1])
		if !slices.Contains(known, k.Value) {
			p.errorf(k, "unknown field %q in %s (known: %s)", k.Value, what, strings.Join(known, ", "))
			continue
		}
		if _, dup := out[k.Value]; dup {
			p.errorf(k, "%s: %q is set twice", what, k.Value)
		}
		out[k.Value] = v
	}
	return out
}

func (p *parser) str(n *yaml.Node, what string) string {
	n = resolve(n)
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errorf(n, "%s must be a string", what)
		return ""
	}
	return n.Value
}

func (p *parser) strs(n *yaml.Node, what string) []string {
	n = resolve(n)
	if n == nil {
		return nil
	}
	var out []string
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []string{n.Value}
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "%s must be a list of strings", what)
		return nil
	}
	for _, e := range n.Content {
		out = append(out, p.str(e, what))
	}
	return out
}

func (p *parser) boolean(n *yaml.Node, what string) bool {
	if n == nil {
		return false
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		p.errorf(n, "%s must be true or false", what)
	}
	return b
}

// paths resolves paths against the file's directory.
func (p *parser) paths(n *yaml.Node, what string) []string {
	var out []string
	for _, s := range p.strs(n, what) {
		out = append(out, p.resolve(s))
	}
	return out
}

func (p *parser) resolve(s string) string {
	if s == "" || s == "-" || filepath.IsAbs(s) {
		return s
	}
	return filepath.Join(p.dir, s)
}

func (p *parser) suite(n *yaml.Node) *Suite {
	f := p.fields(n, "the test file", "apiVersion", "kind", "name", "webhooks", "cluster", "crds", "resolve", "webhooksOnly", "namespace", "server", "cases")
	if v := p.str(f["apiVersion"], "apiVersion"); v != APIVersion {
		p.errorf(orNode(f["apiVersion"], n), "apiVersion %q: want %s", v, APIVersion)
	}
	if k := p.str(f["kind"], "kind"); k != Kind {
		p.errorf(orNode(f["kind"], n), "kind %q: want %s", k, Kind)
	}
	s := &Suite{
		Path: p.path, Name: p.str(f["name"], "name"),
		Webhooks: p.paths(f["webhooks"], "webhooks"), Cluster: p.paths(f["cluster"], "cluster"), CRDs: p.paths(f["crds"], "crds"),
		Resolve: p.strs(f["resolve"], "resolve"), WebhooksOnly: p.boolean(f["webhooksOnly"], "webhooksOnly"),
		Namespace: p.str(f["namespace"], "namespace"),
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(p.path), filepath.Ext(p.path))
	}
	if s.Namespace == "" {
		s.Namespace = "default"
	}
	if srv := f["server"]; srv != nil {
		s.Server = p.server(srv)
	}
	cases := f["cases"]
	if cases == nil || cases.Kind != yaml.SequenceNode || len(cases.Content) == 0 {
		p.errorf(orNode(cases, n), "cases: a test file needs a list of cases")
		return s
	}
	names := map[string]int{}
	for _, c := range cases.Content {
		tc := p.testCase(c)
		if tc == nil {
			continue
		}
		if first, dup := names[tc.Name]; dup {
			p.errorf(c, "case %q: the name is used by the case at line %d too", tc.Name, first)
		}
		names[tc.Name] = tc.Line
		s.Cases = append(s.Cases, tc)
	}
	return s
}

func orNode(n, fallback *yaml.Node) *yaml.Node {
	if n != nil {
		return n
	}
	return fallback
}

func (p *parser) server(n *yaml.Node) *Server {
	f := p.fields(n, "server", "command", "env", "ready", "readyTimeout")
	srv := &Server{Command: p.strs(f["command"], "server.command"), Ready: p.str(f["ready"], "server.ready"), ReadyTimeout: 30 * time.Second, Line: n.Line}
	if len(srv.Command) == 0 {
		p.errorf(n, "server.command: the command that starts the server, as a list")
	}
	if srv.Ready == "" {
		p.errorf(n, "server.ready: an http(s):// URL or tcp://HOST:PORT that answers once the server is ready")
	} else if !strings.HasPrefix(srv.Ready, "http://") && !strings.HasPrefix(srv.Ready, "https://") && !strings.HasPrefix(srv.Ready, "tcp://") {
		p.errorf(f["ready"], "server.ready %q: want an http(s):// URL or tcp://HOST:PORT", srv.Ready)
	}
	if env := f["env"]; env != nil {
		srv.Env = map[string]string{}
		if err := env.Decode(&srv.Env); err != nil {
			p.errorf(env, "server.env must map variable names to strings")
		}
	}
	if t := f["readyTimeout"]; t != nil {
		d, err := time.ParseDuration(p.str(t, "server.readyTimeout"))
		if err != nil || d <= 0 {
			p.errorf(t, "server.readyTimeout %q: want a positive duration such as 30s", t.Value)
		} else {
			srv.ReadyTimeout = d
		}
	}
	return srv
}

func (p *parser) testCase(n *yaml.Node) *Case {
	f := p.fields(n, "a case", "name", "object", "old", "operation", "namespace", "subresource", "user", "groups", "dryRun", "expect")
	c := &Case{
		Name: p.str(f["name"], "name"), Line: n.Line, node: n,
		Operation: strings.ToUpper(p.str(f["operation"], "operation")), Namespace: p.str(f["namespace"], "namespace"),
		SubResource: p.str(f["subresource"], "subresource"), User: p.str(f["user"], "user"), Groups: p.strs(f["groups"], "groups"),
		DryRun: p.boolean(f["dryRun"], "dryRun"),
	}
	if c.Name == "" {
		p.errorf(n, "a case needs a name")
		return nil
	}
	switch c.Operation {
	case "", "CREATE", "UPDATE", "DELETE", "CONNECT":
	default:
		p.errorf(f["operation"], "case %q: operation %q: use CREATE, UPDATE, DELETE or CONNECT", c.Name, c.Operation)
	}
	if f["object"] == nil {
		p.errorf(n, "case %q: object: a file or an inline object is needed", c.Name)
	} else {
		c.Object, c.ObjectSource = p.object(f["object"], c.Name, "object")
	}
	if f["old"] != nil {
		c.Old, c.OldSource = p.object(f["old"], c.Name, "old")
		if c.Operation != "" && c.Operation != "UPDATE" {
			p.errorf(f["old"], "case %q: old is the existing object of an UPDATE, not of a %s", c.Name, c.Operation)
		}
	} else if c.Operation == "UPDATE" {
		p.errorf(n, "case %q: an UPDATE needs the existing object: give old", c.Name)
	}
	if f["expect"] == nil {
		p.errorf(n, "case %q: expect: say what admission must decide (at least allowed: true or false)", c.Name)
	} else {
		c.Expect = p.expect(f["expect"], c.Name)
	}
	return c
}

// document reads a mapping given inline or as a file holding one document; file is the file,
// "" for an inline one.
func (p *parser) document(n *yaml.Node, caseName, what, one string) (doc map[string]any, file string, ok bool) {
	var value any
	switch n.Kind {
	case yaml.ScalarNode:
		file = p.resolve(n.Value)
		data, err := os.ReadFile(file)
		if err != nil {
			p.errorf(n, "case %q: %s: %v", caseName, what, err)
			return nil, "", false
		}
		var docs []any
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		for {
			var doc any
			if err := dec.Decode(&doc); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				p.errorf(n, "case %q: %s: %s", caseName, what, yamlError(file, err))
				return nil, "", false
			}
			if doc != nil {
				docs = append(docs, doc)
			}
		}
		if len(docs) != 1 {
			p.errorf(n, "case %q: %s: %s holds %d %s", caseName, what, file, len(docs), one)
			return nil, "", false
		}
		value = docs[0]
	case yaml.MappingNode:
		if err := n.Decode(&value); err != nil {
			p.errorf(n, "case %q: %s: %v", caseName, what, err)
			return nil, "", false
		}
	default:
		p.errorf(n, "case %q: %s must be a file name or a mapping", caseName, what)
		return nil, "", false
	}
	doc, ok = value.(map[string]any)
	if !ok {
		p.errorf(n, "case %q: %s must be a mapping", caseName, what)
	}
	return doc, file, ok
}

// object reads a case's object: a file holding one object, or the object inline.
func (p *parser) object(n *yaml.Node, caseName, what string) (json.RawMessage, string) {
	obj, file, ok := p.document(n, caseName, what, "objects; a case admits one")
	if !ok {
		return nil, ""
	}
	source := fmt.Sprintf("%s:%d", p.path, n.Line)
	if file != "" {
		source = file
	}
	if obj["apiVersion"] == nil || obj["kind"] == nil {
		p.errorf(n, "case %q: %s: not a Kubernetes object (apiVersion and kind are needed)", caseName, what)
		return nil, ""
	}
	data, err := json.Marshal(obj)
	if err != nil {
		p.errorf(n, "case %q: %s: %v", caseName, what, err)
		return nil, ""
	}
	return data, source
}

func (p *parser) expect(n *yaml.Node, caseName string) Expect {
	keys := []string{"allowed", "code", "reason", "message", "messageRegexp", "warnings", "auditAnnotations", "called", "outcomes", "fields", "object", "wholeObject"}
	f := p.fields(n, fmt.Sprintf("case %q: expect", caseName), keys...)
	var e Expect
	if err := n.Decode(&e); err != nil {
		p.errorf(n, "case %q: expect: %v", caseName, err)
		return e
	}
	if d := f["object"]; d != nil {
		if doc, file, ok := p.document(d, caseName, "expect.object", "documents; it is one"); ok {
			e.Object, e.ObjectFile = normalize(doc).(map[string]any), file
		}
	}
	if d := f["wholeObject"]; d != nil {
		if doc, file, ok := p.document(d, caseName, "expect.wholeObject", "documents; it is one"); ok {
			e.WholeObject, e.WholeObjectFile = normalize(doc).(map[string]any), file
		}
	}
	e.set = map[string]bool{}
	for k := range f {
		e.set[k] = true
	}
	if e.Allowed == nil {
		p.errorf(n, "case %q: expect.allowed: say whether the object must be admitted (true) or rejected (false)", caseName)
	}
	if e.Message != nil && e.MessageRegexp != "" {
		p.errorf(n, "case %q: expect: give message or messageRegexp, not both", caseName)
	}
	if e.MessageRegexp != "" {
		if _, err := compileRegexp(e.MessageRegexp); err != nil {
			p.errorf(f["messageRegexp"], "case %q: expect.messageRegexp: %v", caseName, err)
		}
	}
	for path := range e.Fields {
		if _, err := parseFieldPath(path); err != nil {
			p.errorf(f["fields"], "case %q: expect.fields: %v", caseName, err)
		}
	}
	for name, outcome := range e.Outcomes {
		if !slices.Contains(knownOutcomes(), outcome) {
			p.errorf(f["outcomes"], "case %q: expect.outcomes[%q]: %q is not an outcome (%s)", caseName, name, outcome, strings.Join(knownOutcomes(), ", "))
		}
	}
	return e
}

// knownOutcomes are the outcomes a webhook or policy can have in a result.
func knownOutcomes() []string {
	return []string{"allowed", "patched", "denied", "error", "failed-open", "skipped"}
}
