package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// Verdict is a person's judgment of a finding.
type Verdict string

const (
	// Real findings would hurt a cluster, or are real mistakes worth fixing now.
	Real Verdict = "real"
	// Minor findings are worth acting on, with little impact.
	Minor Verdict = "minor"
	// Noise is true but not worth acting on.
	Noise Verdict = "noise"
	// FalsePositive findings are wrong.
	FalsePositive Verdict = "false-positive"
	// Unjudged findings have no judgment yet; judgments.yaml cannot say it.
	Unjudged Verdict = "unjudged"
	// todo is the verdict of the entries --print-unjudged prints, to be replaced.
	todo = "TODO"
)

// Judgment is an entry of judgments.yaml. It matches the findings of its project with its rule
// and configuration, and its webhook and field where it gives them.
type Judgment struct {
	Rule          string  `json:"rule"`
	Configuration string  `json:"configuration"`
	Webhook       string  `json:"webhook,omitempty"`
	Field         string  `json:"field,omitempty"`
	Verdict       Verdict `json:"verdict"`
	Reason        string  `json:"reason"`
	// AfterChange marks a verdict on an unseen project (Project.Unseen) given after the rules
	// changed: the finding did not exist when the project was judged. The report counts these
	// apart from the verdicts given before.
	AfterChange bool `json:"afterChange,omitempty"`
	// GoneAfter names the change (an issue, "#38") that removed the finding this verdict, given
	// on an unseen project before the change, was on. The verdict is kept, matching nothing, so
	// that the report can still give the project's precision before the change: the figure a
	// change is judged against.
	GoneAfter string `json:"goneAfter,omitempty"`
}

type judgmentsFile struct {
	Judgments map[string][]Judgment `json:"judgments"`
}

// loadJudgments reads judgments.yaml: the judgments by project name.
func loadJudgments(file string, projects []Project) (map[string][]Judgment, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading the judgments: %w", err)
	}
	judgments, err := parseJudgments(data, projects)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return judgments, nil
}

// parseJudgments parses and checks judgments: a judgment that cannot be applied (a project
// that is not in the corpus, a verdict that is not one, two entries for the same findings) is
// an error rather than a silently unjudged finding.
func parseJudgments(data []byte, projects []Project) (map[string][]Judgment, error) {
	var f judgmentsFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, fmt.Errorf("parsing: %w", err)
	}
	known, unseen := map[string]bool{}, map[string]bool{}
	for _, p := range projects {
		known[p.Name] = true
		unseen[p.Name] = p.Unseen != ""
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(f.Judgments)) {
		if !known[name] {
			errs = append(errs, fmt.Errorf("project %q is not in the corpus", name))
			continue
		}
		seen := map[string]bool{}
		for i, j := range f.Judgments[name] {
			if err := j.validate(); err != nil {
				errs = append(errs, fmt.Errorf("%s[%d]: %w", name, i, err))
			}
			if j.AfterChange && !unseen[name] {
				errs = append(errs, fmt.Errorf("%s[%d]: afterChange is for the projects of the corpus marked unseen", name, i))
			}
			if j.GoneAfter != "" && (!unseen[name] || j.AfterChange) {
				errs = append(errs, fmt.Errorf("%s[%d]: goneAfter is for verdicts given on unseen projects before a change", name, i))
			}
			if seen[j.key()] {
				errs = append(errs, fmt.Errorf("%s[%d]: a second judgment of %s", name, i, j.subject()))
			}
			seen[j.key()] = true
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return f.Judgments, nil
}

func (j Judgment) validate() error {
	var errs []error
	if j.Rule == "" || j.Configuration == "" {
		errs = append(errs, errors.New("rule and configuration are required"))
	}
	switch j.Verdict {
	case Real, Minor, Noise, FalsePositive:
	default:
		errs = append(errs, fmt.Errorf("verdict %q: use real, minor, noise or false-positive", j.Verdict))
	}
	if r := strings.TrimSpace(j.Reason); r == "" || r == todo || strings.Contains(r, "\n") {
		errs = append(errs, fmt.Errorf("reason %q: give one line saying why", j.Reason))
	}
	return errors.Join(errs...)
}

// key identifies the findings a judgment is about: two judgments with the same key would
// compete for the same findings.
func (j Judgment) key() string {
	return strings.Join([]string{j.Rule, j.Configuration, j.Webhook, j.Field}, "\x00")
}

func (j Judgment) subject() string {
	s := fmt.Sprintf("%s in %q", j.Rule, j.Configuration)
	if j.Webhook != "" {
		s += fmt.Sprintf(", webhook %q", j.Webhook)
	}
	if j.Field != "" {
		s += ", " + j.Field
	}
	return s
}

func (j Judgment) matches(f Finding) bool {
	return j.Rule == f.Rule && j.Configuration == f.Configuration &&
		(j.Webhook == "" || j.Webhook == f.Webhook) && (j.Field == "" || j.Field == f.Field)
}

// specificity ranks judgments that match the same finding: one naming the webhook is more
// specific than one naming only the field, as a webhook is what a project fixes. Two different
// judgments can never tie, since they would have the same key.
func (j Judgment) specificity() int {
	s := 0
	if j.Webhook != "" {
		s += 2
	}
	if j.Field != "" {
		s++
	}
	return s
}

// judgedFinding is a finding with the verdict of the judgment that matched it.
type judgedFinding struct {
	Finding
	Verdict     Verdict
	Reason      string
	AfterChange bool
}

// goneJudgments are the verdicts on findings a change removed (Judgment.GoneAfter).
func goneJudgments(judgments []Judgment) []Judgment {
	var out []Judgment
	for _, j := range judgments {
		if j.GoneAfter != "" {
			out = append(out, j)
		}
	}
	return out
}

// judge gives each finding the verdict of its most specific matching judgment (Unjudged if
// none matches) and returns the judgments that match no finding: they are stale, left from a
// finding that is gone. A verdict kept for a finding a change removed (GoneAfter) judges
// nothing; one that matches a finding is stale too: the finding is not gone.
func judge(judgments []Judgment, findings []Finding) ([]judgedFinding, []Judgment) {
	used := make([]bool, len(judgments))
	var stale []Judgment
	out := make([]judgedFinding, 0, len(findings))
	for _, f := range findings {
		best := -1
		for i, j := range judgments {
			if !j.matches(f) {
				continue
			}
			if j.GoneAfter != "" {
				if !used[i] {
					stale = append(stale, j)
				}
				used[i] = true
				continue
			}
			used[i] = true
			if best < 0 || j.specificity() > judgments[best].specificity() {
				best = i
			}
		}
		jf := judgedFinding{Finding: f, Verdict: Unjudged}
		if best >= 0 {
			jf.Verdict, jf.Reason, jf.AfterChange = judgments[best].Verdict, judgments[best].Reason, judgments[best].AfterChange
		}
		out = append(out, jf)
	}
	for i, j := range judgments {
		if !used[i] && j.GoneAfter == "" {
			stale = append(stale, j)
		}
	}
	return out, stale
}

// writeUnjudged prints the unjudged warnings and errors as judgments.yaml entries, a verdict
// and a reason to fill in: the judge's way to fill judgments.yaml. Findings that only differ by
// kind (a Mutating and a Validating configuration of the same name) share an entry.
func writeUnjudged(w io.Writer, results []projectResult) error {
	var b strings.Builder
	b.WriteString("# Unjudged warnings and errors, as judgments.yaml entries. Replace each TODO (verdict: real,\n")
	b.WriteString("# minor, noise or false-positive; reason: one line), then paste a project's entries in place\n")
	b.WriteString("# of its \"[]\" in hack/linteval/judgments.yaml. Dropping webhook or field widens an entry.\n")
	b.WriteString("# On a project marked unseen, add afterChange: true to a finding judged after the rules changed for it.\n")
	b.WriteString("judgments:\n")
	for _, r := range results {
		entries := unjudgedEntries(r.Findings)
		if len(entries) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  %s:\n", yamlScalar(r.Project.Name))
		for _, e := range entries {
			for _, f := range e.findings {
				fmt.Fprintf(&b, "  # %s %s %s, %s: %s\n", f.Severity, f.Rule, f.Name, f.Kind, oneLine(firstSentence(f.Message)))
			}
			fmt.Fprintf(&b, "  - rule: %s\n    configuration: %s\n", yamlScalar(e.j.Rule), yamlScalar(e.j.Configuration))
			if e.j.Webhook != "" {
				fmt.Fprintf(&b, "    webhook: %s\n", yamlScalar(e.j.Webhook))
			}
			if e.j.Field != "" {
				fmt.Fprintf(&b, "    field: %s\n", yamlScalar(e.j.Field))
			}
			fmt.Fprintf(&b, "    verdict: %s\n    reason: %s\n", todo, todo)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type unjudgedEntry struct {
	j        Judgment
	findings []judgedFinding
}

// unjudgedEntries groups the unjudged warnings and errors by the judgment that would match
// exactly them, in the order of the findings.
func unjudgedEntries(findings []judgedFinding) []unjudgedEntry {
	var entries []unjudgedEntry
	index := map[string]int{}
	for _, f := range findings {
		if f.Verdict != Unjudged || !f.counts() {
			continue
		}
		j := Judgment{Rule: f.Rule, Configuration: f.Configuration, Webhook: f.Webhook, Field: f.Field}
		if i, ok := index[j.key()]; ok {
			entries[i].findings = append(entries[i].findings, f)
			continue
		}
		index[j.key()] = len(entries)
		entries = append(entries, unjudgedEntry{j: j, findings: []judgedFinding{f}})
	}
	return entries
}

// yamlScalar writes s plain when YAML reads it back as the same string, else double-quoted
// (JSON's strings are YAML's).
func yamlScalar(s string) string {
	if isPlainSafe(s) {
		return s
	}
	quoted, _ := json.Marshal(s) // a string always marshals
	return string(quoted)
}

// isPlainSafe accepts words of letters, digits and . _ / - [ ] that start with a letter and
// are not one of YAML's booleans or null, which are all YAML reads as other than strings.
func isPlainSafe(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "true", "false", "on", "off", "null":
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/-[]", r)) {
			return false
		}
	}
	return true
}
