package lint

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/config"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixtureNow is the clock of every test: the certificates of the fixtures are issued around it.
func fixtureNow() time.Time { return time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC) }

func lintFiles(t *testing.T, opts Options, paths ...string) []Finding {
	t.Helper()
	set, err := config.Load(config.Options{}, paths...)
	if err != nil {
		t.Fatalf("loading %v: %v", paths, err)
	}
	if opts.Now == nil {
		opts.Now = fixtureNow
	}
	findings, err := Run(set, opts)
	if err != nil {
		t.Fatalf("Run(%v): %v", paths, err)
	}
	if diff := cmp.Diff(findings, lintInTwoPasses(t, opts, paths...)); diff != "" {
		t.Errorf("reading %v in two passes (Surroundings.Keep, Around) finds otherwise than reading the Set whole (-whole +two passes):\n%s", paths, diff)
	}
	return findings
}

// lintInTwoPasses lints paths as admit lint reads them: the configurations first, then what the
// rules read of the objects they can refer to.
func lintInTwoPasses(t *testing.T, opts Options, paths ...string) []Finding {
	t.Helper()
	opts.Surroundings = NewSurroundings()
	set, err := config.Load(config.Options{Others: opts.Surroundings.Keep, Around: opts.Surroundings.Around}, paths...)
	if err != nil {
		t.Fatalf("loading %v in two passes: %v", paths, err)
	}
	findings, err := Run(set, opts)
	if err != nil {
		t.Fatalf("Run(%v) in two passes: %v", paths, err)
	}
	return findings
}

// render writes findings as the goldens hold them: one line each, then the hint.
func render(findings []Finding) string {
	var b strings.Builder
	for _, f := range findings {
		b.WriteString(f.String() + "\n")
		if f.Hint != "" {
			b.WriteString("    fix: " + f.Hint + "\n")
		}
	}
	return b.String()
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./lint -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got), go test ./lint -update rewrites it:\n%s", path, diff)
	}
}

func onlyRule(findings []Finding, id string) []Finding {
	var out []Finding
	for _, f := range findings {
		if f.Rule == id {
			out = append(out, f)
		}
	}
	return out
}

// TestRuleFixtures runs every rule on its two fixtures: <ID>-trigger.yaml must draw the
// findings in <ID>-trigger.golden, <ID>-pass.yaml none of the rule.
func TestRuleFixtures(t *testing.T) {
	opts := Options{Policies: newChainPolicies(t)}
	for _, rule := range Rules() {
		t.Run(rule.ID, func(t *testing.T) {
			base := filepath.Join("testdata", "rules", rule.ID)
			triggered := onlyRule(lintFiles(t, opts, base+"-trigger.yaml"), rule.ID)
			if len(triggered) == 0 {
				t.Errorf("%s-trigger.yaml: no %s finding", rule.ID, rule.ID)
			}
			for _, f := range triggered {
				if f.Name != rule.Name || f.Message == "" || f.Hint == "" || f.Line == 0 {
					t.Errorf("incomplete finding: %+v", f)
				}
			}
			checkGolden(t, base+"-trigger.golden", render(triggered))

			if passed := onlyRule(lintFiles(t, opts, base+"-pass.yaml"), rule.ID); len(passed) > 0 {
				t.Errorf("%s-pass.yaml: unexpected findings:\n%s", rule.ID, render(passed))
			}
		})
	}
}
