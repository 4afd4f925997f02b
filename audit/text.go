package audit

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/admitkit/admit/internal/words"
)

// WriteText writes the report for people: what was compared, the steps and namespaces with new
// effects, the writes the worst first, the totals.
func (r *Report) WriteText(w io.Writer) error {
	b := &strings.Builder{}
	r.textHeader(b)
	r.textSteps(b)
	r.textNamespaces(b)
	if len(r.Objects) > 0 {
		fmt.Fprintln(b, "\nWrites with new effects, the worst first:")
		for _, f := range r.Objects {
			f.writeText(b)
		}
		if r.OmittedObjects > 0 {
			fmt.Fprintf(b, "  ... and %s more (--limit)\n", words.Plural(r.OmittedObjects, "write", "writes"))
		}
	}
	if len(r.Unreviewed) > 0 {
		fmt.Fprintln(b, "\nNot reviewed:")
		for _, g := range r.Unreviewed {
			fmt.Fprintf(b, "  %d× %s (first: %s)\n", g.Count, words.OneLine(g.Reason), g.First)
		}
	}
	if len(r.RefusedByBoth) > 0 {
		fmt.Fprintln(b, "\nRefused under both (admission stops before the proposal: its answer is unknown):")
		for _, g := range r.RefusedByBoth {
			fmt.Fprintf(b, "  %d× %s (first: %s)\n", g.Count, words.OneLine(g.Reason), g.First)
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(b, "\nNotes:")
		for _, n := range r.Notes {
			fmt.Fprintf(b, "  - %s\n", n)
		}
	}
	t := r.Totals
	fmt.Fprintf(b, "\n%s read, %d audited (%d unaffected by the changes, %d skipped): %d newly denied, %d newly failing, %d newly mutated, %d newly warned, %d newly allowed, %d refused by both, %d not reviewed (%s)\n",
		words.Plural(t.Read, "write", "writes"), t.Audited, t.Unaffected, t.Skipped, t.NewlyDenied, t.NewlyFailing, t.NewlyMutated, t.NewlyWarned, t.NewlyAllowed, t.RefusedByBoth, t.Unreviewed,
		(time.Duration(r.DurationSeconds * float64(time.Second))).Round(time.Millisecond))
	if !r.Complete {
		fmt.Fprintln(b, "INTERRUPTED: the counts are those of the writes audited before Ctrl-C")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// textHeader says what was compared.
func (r *Report) textHeader(b *strings.Builder) {
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
			detail := ""
			if c.Detail != "" {
				detail = " (" + c.Detail + ")"
			}
			fmt.Fprintf(b, "    %-8s %s%s\n", c.What, c.Step, detail)
		}
	}
}

// textSteps tables the changed steps and those with new effects.
func (r *Report) textSteps(b *strings.Builder) {
	var active []StepCount
	for _, s := range r.Steps {
		if s.Change != "" || s.Bad()+s.Mutated+s.Warned > 0 {
			active = append(active, s)
		}
	}
	if len(active) == 0 {
		return
	}
	fmt.Fprintln(b)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tCHANGE\tMATCHED\tDENIED\tFAILED\tMUTATED\tWARNED")
	for _, s := range active {
		change := s.Change
		if change == "" {
			change = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\n", s.Step, change, s.Matched, s.Denied, s.Failed, s.Mutated, s.Warned)
	}
	tw.Flush()
}

// textNamespaces tables the namespaces with new effects.
func (r *Report) textNamespaces(b *strings.Builder) {
	var namespaces []NamespaceCount
	for _, n := range r.Namespaces {
		if n.Bad()+n.Mutated+n.Warned > 0 {
			namespaces = append(namespaces, n)
		}
	}
	if len(namespaces) == 0 {
		return
	}
	fmt.Fprintln(b)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tAUDITED\tDENIED\tFAILING\tMUTATED\tWARNED")
	for _, n := range namespaces {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\n", namespaceName(n.Namespace), n.Audited, n.Denied, n.Failing, n.Mutated, n.Warned)
	}
	tw.Flush()
}

// namespaceName shows the namespace of cluster-scoped objects as such.
func namespaceName(ns string) string {
	if ns == "" {
		return "(cluster-scoped)"
	}
	return ns
}

// ObjectName is "Kind namespace/name", "Kind name" for a cluster-scoped object, with the
// subresource written.
func (f Finding) ObjectName() string {
	name := f.Name
	if f.Namespace != "" {
		name = f.Namespace + "/" + name
	}
	s := f.Kind + " " + name
	if f.SubResource != "" {
		s += " (" + f.SubResource + ")"
	}
	return s
}

// maxPatchLines bounds the operations shown for one write in text.
const maxPatchLines = 8

// writeText writes one write with new effects, its first line the worst effect.
func (f Finding) writeText(b *strings.Builder) {
	fmt.Fprintf(b, "  %-8s %s %s  (%s)\n", strings.ToUpper(string(f.Effects[0])), f.Operation, f.ObjectName(), f.Source)
	if f.Origin != "" {
		fmt.Fprintf(b, "           %s\n", f.Origin)
	}
	if d := f.Denial; d != nil {
		fmt.Fprintf(b, "           denied by %s: %d %s\n", d.Step, d.Code, words.OneLine(d.Message))
	}
	for _, failure := range f.Failures {
		then := "failurePolicy Ignore: admitted without it"
		if failure.Rejected {
			then = "failurePolicy Fail: the write is rejected"
		}
		fmt.Fprintf(b, "           %s fails (%s): %s\n", failure.Step, then, words.OneLine(failure.Message))
	}
	for _, w := range f.Warnings {
		by := ""
		if len(w.Steps) > 0 {
			by = " (" + stepNames(w.Steps, " or ") + ")"
		}
		fmt.Fprintf(b, "           warning%s: %s\n", by, words.OneLine(w.Text))
	}
	if len(f.Patch) > 0 {
		by := "the chain"
		if len(f.MutatedBy) > 0 {
			by = stepNames(f.MutatedBy, ", ")
		}
		fmt.Fprintf(b, "           mutated by %s:\n", by)
		for i, op := range f.Patch {
			if i == maxPatchLines {
				fmt.Fprintf(b, "             ... %d more operations (-o json has them all)\n", len(f.Patch)-i)
				break
			}
			fmt.Fprintf(b, "             %s\n", patchLine(op.Op, op.Path, op.From, op.Value))
		}
	}
	if f.BaselineRejection != "" {
		fmt.Fprintf(b, "           the baseline rejects it: %s\n", words.OneLine(f.BaselineRejection))
	}
}

func stepNames(steps []Step, sep string) string {
	names := make([]string, len(steps))
	for i, k := range steps {
		names[i] = k.String()
	}
	return strings.Join(names, sep)
}

// valueWidth bounds a patched value shown in text.
const valueWidth = 90

// patchLine shows one patch operation: "add /metadata/labels/tier: \"standard\"".
func patchLine(op, path, from string, value []byte) string {
	switch op {
	case "remove":
		return op + " " + path
	case "move", "copy":
		return fmt.Sprintf("%s %s -> %s", op, from, path)
	}
	v := string(value)
	if r := []rune(v); len(r) > valueWidth {
		v = string(r[:valueWidth-1]) + "…"
	}
	return fmt.Sprintf("%s %s: %s", op, path, v)
}
