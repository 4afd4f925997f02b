package testsuite

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	// Tests names what the case tests: webhooks, webhook configurations, admission policies or
	// bindings of the file, by name; nil means every one. A case that passes without them too
	// is vacuous, and fails (see Run). Empty (`tests: []`) says the case checks kube-apiserver's
	// own answer (a schema, a CRD's conversion webhook), none of the file's configurations.
	Tests  []string
	Expect Expect
	// Line is the case's line in the file.
	Line int
	// Err is why the case cannot run, found when the files it names were read (a missing
	// object file, one that holds two objects): the case's report says it, and the file's other
	// cases run.
	Err string

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

func (p *parser) suite(n *yaml.Node) *Suite {
	s, cases := p.header(n)
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

// header reads the file's fields but its cases, and returns the node of the cases as the file
// gives it (nil when it gives none): a caseFile reads the header apart from the cases.
func (p *parser) header(n *yaml.Node) (*Suite, *yaml.Node) {
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
	return s, f["cases"]
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
	f := p.fields(n, "a case", "name", "object", "old", "operation", "namespace", "subresource", "user", "groups", "dryRun", "tests", "expect")
	c := &Case{
		Name: p.str(f["name"], "name"), Line: n.Line, node: n,
		Operation: strings.ToUpper(p.str(f["operation"], "operation")), Namespace: p.str(f["namespace"], "namespace"),
		SubResource: p.str(f["subresource"], "subresource"), User: p.str(f["user"], "user"), Groups: p.strs(f["groups"], "groups"),
		DryRun: p.boolean(f["dryRun"], "dryRun"), Tests: p.strs(f["tests"], "tests"),
	}
	if f["tests"] != nil && c.Tests == nil {
		c.Tests = []string{} // given, and empty: the case tests none of the file's configurations
	}
	if c.Name == "" {
		p.errorf(n, "a case needs a name")
		return nil
	}
	p.current = c
	defer func() { p.current = nil }()
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
