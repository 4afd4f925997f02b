package layout

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/admitkit/admit"

// goList runs go list in the module's root with args, one line per package.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if exit, ok := err.(*exec.ExitError); ok {
			stderr = string(exit.Stderr)
		}
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// deps are the packages pkg links, itself included.
func deps(t *testing.T, pkg string) []string { return goList(t, "-deps", pkg) }

// imports maps each package of the module to its direct imports (test files aside).
func imports(t *testing.T) map[string][]string {
	out := map[string][]string{}
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...") {
		fields := strings.Fields(line)
		out[fields[0]] = fields[1:]
	}
	return out
}

func hasPrefixed(list []string, prefixes ...string) []string {
	var out []string
	for _, p := range list {
		for _, prefix := range prefixes {
			if p == prefix || strings.HasPrefix(p, prefix+"/") {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// The layering DESIGN.md describes, checked on what the packages link: kube-apiserver keeps the
// webhooks' predicates and the configuration's loading apart from the dispatcher, and admit
// does too; the CLI makes no decision of its own, so it needs none of the packages that make
// them but through the public ones.
func TestLayering(t *testing.T) {
	for _, tt := range []struct {
		pkg, why  string
		forbidden []string
	}{
		{"./config", "the configuration loader links no dispatcher", []string{module + "/dispatch"}},
		{"./chain", "the chain links no dispatcher", []string{module + "/dispatch"}},
		{"./matchconditions", "CEL match conditions link no dispatcher", []string{module + "/dispatch"}},
		{"./manifest", "the manifest reader is a leaf", []string{module + "/dispatch", module + "/chain", module + "/config", module + "/review", "k8s.io/kubernetes"}},
		{"./predicates", "the predicates are a leaf", []string{module + "/dispatch", module + "/engine", module + "/resources", "k8s.io/kubernetes", "k8s.io/client-go"}},
		{"./dispatch", "a program that only calls webhooks links no Kubernetes apiserver code", []string{"k8s.io/kubernetes", module + "/chain"}},
		{"./typecheck", "Register's type checking of match conditions links no Kubernetes apiserver code", []string{"k8s.io/kubernetes", "k8s.io/client-go", module + "/chain", module + "/dispatch"}},
		{"./webhook", "a webhook server links no Kubernetes apiserver code", []string{"k8s.io/kubernetes", module + "/chain", module + "/review"}},
		{"./webhook/webhooktest", "a webhook's tests link no Kubernetes apiserver code", []string{"k8s.io/kubernetes", module + "/chain", module + "/review"}},
		{"./engine", "the engine links neither Kubernetes' apiserver code nor the dispatcher", []string{"k8s.io/kubernetes", module + "/dispatch", module + "/chain"}},
		{"./lint", "lint links no Kubernetes apiserver code (lint/policycheck adds it)", []string{"k8s.io/kubernetes", module + "/chain", module + "/dispatch"}},
	} {
		if bad := hasPrefixed(deps(t, tt.pkg), tt.forbidden...); len(bad) > 0 {
			t.Errorf("%s links %s: %s", tt.pkg, strings.Join(bad, ", "), tt.why)
		}
	}
}

// The engine makes no HTTP call of its own: the dispatcher's steps do (apimachinery's types link
// net/http for their own helpers, which the engine does not call).
func TestEngineImportsNoHTTP(t *testing.T) {
	if bad := hasPrefixed(imports(t)[module+"/engine"], "net/http"); len(bad) > 0 {
		t.Errorf("engine imports %s", strings.Join(bad, ", "))
	}
}

// The CLI is flags, input discovery, printing and exit codes: it imports the public packages
// that decide, never the chain, the dispatcher's packages or Kubernetes' own code.
func TestCLIImportsNoDecisions(t *testing.T) {
	cli := imports(t)[module+"/internal/cli"]
	if bad := hasPrefixed(cli, module+"/chain", module+"/dispatch", "k8s.io/kubernetes"); len(bad) > 0 {
		t.Errorf("internal/cli imports %s", strings.Join(bad, ", "))
	}
}

// A library package imports no example and no test helper: what a program links is code meant
// to ship.
func TestLibrariesImportNoTestHelpers(t *testing.T) {
	helpers := []string{module + "/examples", module + "/internal/webhooktest", module + "/internal/testenv", module + "/internal/testbin", module + "/internal/loopback"}
	for pkg, imported := range imports(t) {
		rel := strings.TrimPrefix(pkg, module+"/")
		if slices.ContainsFunc([]string{"examples", "hack", "test", "internal/webhooktest", "internal/testenv", "internal/testbin", "internal/loopback"}, func(p string) bool {
			return rel == p || strings.HasPrefix(rel, p+"/")
		}) {
			continue
		}
		if bad := hasPrefixed(imported, helpers...); len(bad) > 0 {
			t.Errorf("%s imports %s", pkg, strings.Join(bad, ", "))
		}
	}
}
