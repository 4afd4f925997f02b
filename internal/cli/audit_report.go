package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/admitkit/admit/internal/junit"
)

// auditReport is admit audit's report: its -o json and yaml output, what the text, JUnit and
// HTML outputs show.
type auditReport struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Source is what was audited: the dump's files, the audit log, the cluster's address.
	Source string `json:"source"`
	// Operation is how a dump's or a cluster's objects were written (an audit log's writes have
	// their own).
	Operation string `json:"operation,omitempty"`
	Baseline  string `json:"baseline"`
	Proposal  string `json:"proposal"`
	// Complete is false when the audit was interrupted: the counts are what was audited.
	Complete bool `json:"complete"`
	// Changes are the webhooks and policies the proposal adds, changes or removes.
	Changes []auditChange `json:"changes"`
	Totals  auditTotals   `json:"totals"`
	// Steps and Namespaces are the worst first.
	Steps      []auditStep      `json:"steps"`
	Namespaces []auditNamespace `json:"namespaces"`
	// Objects are the writes with a new effect, the worst first, at most --limit of them;
	// OmittedObjects counts the others.
	Objects        []auditObject     `json:"objects"`
	OmittedObjects int               `json:"omittedObjects,omitempty"`
	Unreviewed     []unreviewedGroup `json:"unreviewed,omitempty"`
	// Exceeded are the thresholds the counts exceed: why the exit code is not 0.
	Exceeded        []string `json:"exceeded,omitempty"`
	Notes           []string `json:"notes,omitempty"`
	DurationSeconds float64  `json:"durationSeconds"`
}

type auditChange struct {
	stepKey
	Change string `json:"change"`
}

// fill completes the report from what the run found.
func (r *auditRun) fill(report *auditReport) {
	report.Complete = !r.interrupted
	report.Totals = r.tally.totals
	report.Totals.Read = int(r.read.Load())
	report.Steps = r.tally.sortedSteps()
	report.Namespaces = r.tally.sortedNamespaces()
	report.Objects, report.OmittedObjects = r.tally.objects()
	report.Unreviewed = r.tally.unreviewedGroups()
	report.Notes = r.notes
	if report.Changes == nil {
		report.Changes = []auditChange{}
		report.Notes = append(report.Notes, "the proposal changes nothing in the baseline: every write is admitted alike")
	}
	if report.Objects == nil {
		report.Objects = []auditObject{}
	}
}

// exitCode is the report's exit code and why: 2 when more writes than allowed could not be
// reviewed, 1 when a count of new effects exceeds its threshold, 130 when the audit was
// interrupted (and nothing else is wrong).
func (o *auditOptions) exitCode(report *auditReport) int {
	code := ExitOK
	check := func(one, many string, n, max int) {
		if max >= 0 && n > max {
			report.Exceeded = append(report.Exceeded, fmt.Sprintf("%s (more than %d)", plural(n, one, many), max))
			code = ExitRejected
		}
	}
	t := report.Totals
	check("newly denied write", "newly denied writes", t.NewlyDenied, o.maxNewDenials)
	check("write with newly failing calls", "writes with newly failing calls", t.NewlyFailing, o.maxNewFailures)
	check("newly warned write", "newly warned writes", t.NewlyWarned, o.maxNewWarnings)
	check("newly mutated object", "newly mutated objects", t.NewlyMutated, o.maxNewMutations)
	if t.Unreviewed > o.maxUnreviewed {
		report.Exceeded = append(report.Exceeded, fmt.Sprintf("%s could not be reviewed (more than %d, --max-unreviewed)", plural(t.Unreviewed, "write", "writes"), o.maxUnreviewed))
		code = ExitBadInput
	}
	if code == ExitOK && !report.Complete {
		code = ExitInterrupted
	}
	return code
}

// finish writes the report in every form asked for and returns the exit code.
func (o *auditOptions) finish(streams Streams, report *auditReport) error {
	code := o.exitCode(report)
	var err error
	if o.output == outputText {
		err = writeAuditText(streams.Out, report)
	} else {
		err = writeStructured(streams.Out, o.output, report)
	}
	if err != nil {
		return err
	}
	if o.junitFile != "" {
		if err := writeFile(o.junitFile, func(w io.Writer) error { return junit.Write(w, auditJUnit(report)) }); err != nil {
			return fmt.Errorf("--junit %s: %w", o.junitFile, err)
		}
	}
	if o.htmlFile != "" {
		if err := writeFile(o.htmlFile, func(w io.Writer) error { return writeAuditHTML(w, report) }); err != nil {
			return fmt.Errorf("--html %s: %w", o.htmlFile, err)
		}
	}
	if code == ExitOK {
		return nil
	}
	msg := strings.Join(report.Exceeded, "; ")
	if !report.Complete {
		msg = strings.TrimPrefix(msg+"; interrupted: the report covers the writes audited before Ctrl-C", "; ")
	}
	return &exitError{code: code, err: errors.New(msg)}
}

// writeFile writes a file through write, reporting the first error.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeAuditText prints the report for people: what was compared, the steps and namespaces
// with new effects, the writes the worst first, the totals.
func writeAuditText(w io.Writer, r *auditReport) error {
	b := &strings.Builder{}
	what := "the objects of " + r.Source
	switch {
	case r.Operation == "UPDATE":
		what += ", each written again unchanged (UPDATE)"
	case r.Operation == "CREATE":
		what += ", each created again (CREATE)"
	default:
		what = "the writes of " + r.Source + ", replayed"
	}
	fmt.Fprintf(b, "Audit of %s\n  baseline: %s\n  proposal: %s\n", what, r.Baseline, r.Proposal)
	if len(r.Changes) > 0 {
		fmt.Fprintln(b, "  changes:")
		for _, c := range r.Changes {
			fmt.Fprintf(b, "    %-8s %s\n", c.Change, c.stepKey)
		}
	}

	var active []auditStep
	for _, s := range r.Steps {
		if s.Change != "" || s.bad()+s.Mutated+s.Warned > 0 {
			active = append(active, s)
		}
	}
	if len(active) > 0 {
		fmt.Fprintln(b)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "STEP\tCHANGE\tMATCHED\tDENIED\tFAILED\tMUTATED\tWARNED")
		for _, s := range active {
			change := s.Change
			if change == "" {
				change = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\n", s.stepKey, change, s.Matched, s.Denied, s.Failed, s.Mutated, s.Warned)
		}
		tw.Flush()
	}
	var namespaces []auditNamespace
	for _, n := range r.Namespaces {
		if n.bad()+n.Mutated+n.Warned > 0 {
			namespaces = append(namespaces, n)
		}
	}
	if len(namespaces) > 0 {
		fmt.Fprintln(b)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAMESPACE\tAUDITED\tDENIED\tFAILING\tMUTATED\tWARNED")
		for _, n := range namespaces {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\n", namespaceName(n.Namespace), n.Audited, n.Denied, n.Failing, n.Mutated, n.Warned)
		}
		tw.Flush()
	}
	if len(r.Objects) > 0 {
		fmt.Fprintln(b, "\nWrites with new effects, the worst first:")
		for _, o := range r.Objects {
			writeAuditObject(b, o)
		}
		if r.OmittedObjects > 0 {
			fmt.Fprintf(b, "  ... and %s more (--limit)\n", plural(r.OmittedObjects, "write", "writes"))
		}
	}
	if len(r.Unreviewed) > 0 {
		fmt.Fprintln(b, "\nNot reviewed:")
		for _, g := range r.Unreviewed {
			fmt.Fprintf(b, "  %d× %s (first: %s)\n", g.Count, oneLine(g.Reason), g.First)
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(b, "\nNotes:")
		for _, n := range r.Notes {
			fmt.Fprintf(b, "  - %s\n", n)
		}
	}
	t := r.Totals
	fmt.Fprintf(b, "\n%s read, %d audited (%d unaffected by the changes, %d skipped): %d newly denied, %d newly failing, %d newly mutated, %d newly warned, %d newly allowed, %d not reviewed (%s)\n",
		plural(t.Read, "write", "writes"), t.Audited, t.Unaffected, t.Skipped, t.NewlyDenied, t.NewlyFailing, t.NewlyMutated, t.NewlyWarned, t.NewlyAllowed, t.Unreviewed,
		(time.Duration(r.DurationSeconds * float64(time.Second))).Round(time.Millisecond))
	if !r.Complete {
		fmt.Fprintln(b, "INTERRUPTED: the counts are those of the writes audited before Ctrl-C")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// namespaceName shows the namespace of cluster-scoped objects as such.
func namespaceName(ns string) string {
	if ns == "" {
		return "(cluster-scoped)"
	}
	return ns
}

// objectName is "Kind namespace/name", "Kind name" for cluster-scoped objects.
func (o auditObject) objectName() string {
	name := o.Name
	if o.Namespace != "" {
		name = o.Namespace + "/" + name
	}
	s := o.Kind + " " + name
	if o.SubResource != "" {
		s += " (" + o.SubResource + ")"
	}
	return s
}

// maxPatchLines bounds the operations shown for one object in text.
const maxPatchLines = 8

func writeAuditObject(b *strings.Builder, o auditObject) {
	fmt.Fprintf(b, "  %-8s %s %s  (%s)\n", strings.ToUpper(o.Effects[0]), o.Operation, o.objectName(), o.Source)
	if o.Origin != "" {
		fmt.Fprintf(b, "           %s\n", o.Origin)
	}
	if d := o.Denial; d != nil {
		fmt.Fprintf(b, "           denied by %s: %d %s\n", d.Step, d.Code, oneLine(d.Message))
	}
	for _, f := range o.Failures {
		then := "failurePolicy Ignore: admitted without it"
		if f.Rejected {
			then = "failurePolicy Fail: the write is rejected"
		}
		fmt.Fprintf(b, "           %s fails (%s): %s\n", f.Step, then, oneLine(f.Message))
	}
	for _, w := range o.Warnings {
		by := ""
		if len(w.Steps) > 0 {
			names := make([]string, len(w.Steps))
			for i, k := range w.Steps {
				names[i] = k.String()
			}
			by = " (" + strings.Join(names, " or ") + ")"
		}
		fmt.Fprintf(b, "           warning%s: %s\n", by, oneLine(w.Text))
	}
	if len(o.Patch) > 0 {
		by := "the chain"
		if len(o.MutatedBy) > 0 {
			names := make([]string, len(o.MutatedBy))
			for i, k := range o.MutatedBy {
				names[i] = k.String()
			}
			by = strings.Join(names, ", ")
		}
		fmt.Fprintf(b, "           mutated by %s:\n", by)
		for i, op := range o.Patch {
			if i == maxPatchLines {
				fmt.Fprintf(b, "             ... %d more operations (-o json has them all)\n", len(o.Patch)-i)
				break
			}
			fmt.Fprintf(b, "             %s\n", patchLine(op.Op, op.Path, op.From, op.Value))
		}
	}
	if o.BaselineRejection != "" {
		fmt.Fprintf(b, "           the baseline rejects it: %s\n", oneLine(o.BaselineRejection))
	}
}

// patchLine shows one patch operation: "add /metadata/labels/tier: \"standard\"".
func patchLine(op, path, from string, value []byte) string {
	switch op {
	case "remove":
		return op + " " + path
	case "move", "copy":
		return fmt.Sprintf("%s %s -> %s", op, from, path)
	}
	v := string(value)
	if r := []rune(v); len(r) > detailWidth {
		v = string(r[:detailWidth-1]) + "…"
	}
	return fmt.Sprintf("%s %s: %s", op, path, v)
}

// auditJUnit is the report as JUnit: a case per step with an effect, failed when it newly denies
// or fails writes (the first of them in the message); unreviewed writes an error.
func auditJUnit(r *auditReport) []junit.Suite {
	suite := junit.Suite{Name: "admit audit"}
	for _, s := range r.Steps {
		if s.Change == "" && s.bad()+s.Warned+s.Mutated == 0 {
			continue
		}
		c := junit.Case{Name: s.stepKey.String(), Class: "admit audit " + r.Source}
		if s.Denied > 0 {
			c.Failures = append(c.Failures, fmt.Sprintf("newly denies %s%s", plural(s.Denied, "write", "writes"), firstFound(r, s.stepKey, effectDenied)))
		}
		if s.Failed > 0 {
			c.Failures = append(c.Failures, fmt.Sprintf("newly fails on %s%s", plural(s.Failed, "write", "writes"), firstFound(r, s.stepKey, effectFailing)))
		}
		suite.Cases = append(suite.Cases, c)
	}
	for _, g := range r.Unreviewed {
		suite.Cases = append(suite.Cases, junit.Case{Name: "not reviewed: " + oneLine(g.Reason), Class: "admit audit " + r.Source,
			Error: fmt.Sprintf("%s could not be reviewed (first: %s)", plural(g.Count, "write", "writes"), g.First)})
	}
	if len(suite.Cases) == 0 {
		suite.Cases = append(suite.Cases, junit.Case{Name: "the proposal", Class: "admit audit " + r.Source})
	}
	return []junit.Suite{suite}
}

// firstFound names the first listed write of step with effect, for a JUnit message.
func firstFound(r *auditReport, step stepKey, effect string) string {
	for _, o := range r.Objects {
		switch {
		case effect == effectDenied && o.Denial != nil && o.Denial.Step == step:
			return fmt.Sprintf(", e.g. %s %s: %s", o.Operation, o.objectName(), oneLine(o.Denial.Message))
		case effect == effectFailing:
			for _, f := range o.Failures {
				if f.Step == step {
					return fmt.Sprintf(", e.g. %s %s: %s", o.Operation, o.objectName(), oneLine(f.Message))
				}
			}
		}
	}
	return ""
}
