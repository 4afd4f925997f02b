package audit

import (
	"fmt"
	"io"
	"strings"

	"github.com/admitkit/admit/internal/markdown"
	"github.com/admitkit/admit/internal/words"
)

// WriteMarkdown writes the report as Markdown for a pull request's comment or a CI job's summary
// (`admit audit -o markdown`): whether the rollout passes its thresholds, the totals, the steps
// and namespaces with new effects, the writes the worst first (the report's own bound, and a
// table's), and, folded, what could not be reviewed or was refused under both.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	verdict := "✅"
	if len(r.Exceeded) > 0 {
		verdict = "❌"
	}
	fmt.Fprintf(&b, "### %s admit audit\n\n", verdict)
	fmt.Fprintf(&b, "%s, proposal %s against baseline %s.\n\n", markdown.Text(r.what()), markdown.Code(r.Proposal), markdown.Code(r.Baseline))
	t := r.Totals
	fmt.Fprintf(&b, "%s: **%d newly denied**, **%d newly failing**, %d newly mutated, %d newly warned, %d newly allowed, %d refused by both, %d not reviewed.\n\n",
		markdown.Text(words.Plural(t.Audited, "write audited", "writes audited")), t.NewlyDenied, t.NewlyFailing, t.NewlyMutated, t.NewlyWarned, t.NewlyAllowed, t.RefusedByBoth, t.Unreviewed)
	for _, e := range r.Exceeded {
		fmt.Fprintf(&b, "- ❌ %s\n", markdown.Text(e))
	}
	if len(r.Exceeded) > 0 {
		b.WriteString("\n")
	}
	if !r.Complete {
		b.WriteString("**Interrupted**: the counts are those of the writes audited before it stopped.\n\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	for _, table := range []markdown.Table{r.markdownWrites(), r.markdownSteps(), r.markdownNamespaces()} {
		if err := table.Write(w); err != nil {
			return err
		}
	}
	for _, group := range []struct {
		title string
		rows  []Unreviewed
	}{{"Not reviewed", r.Unreviewed}, {"Refused under both (the proposal's answer is unknown)", r.RefusedByBoth}} {
		if len(group.rows) == 0 {
			continue
		}
		table := markdown.Table{Header: []string{"Writes", "Why", "First"}, More: "reasons"}
		for _, g := range group.rows {
			table.Rows = append(table.Rows, []string{fmt.Sprint(g.Count), markdown.Cell(g.Reason), markdown.Code(g.First)})
		}
		if err := markdown.Details(w, markdown.HTML(group.title), table.Write); err != nil {
			return err
		}
	}
	return nil
}

// what says what was audited, as the text report's header does.
func (r *Report) what() string {
	switch r.Operation {
	case "UPDATE":
		return "The objects of " + r.Source + ", each written again unchanged"
	case "CREATE":
		return "The objects of " + r.Source + ", each created again"
	}
	return "The writes of " + r.Source + ", replayed"
}

// markdownWrites are the writes with new effects, the worst first, as the report keeps them.
func (r *Report) markdownWrites() markdown.Table {
	table := markdown.Table{Header: []string{"Effect", "Write", "Source", "What"}, More: "writes with new effects", Omitted: r.OmittedObjects}
	for _, f := range r.Objects {
		effects := make([]string, len(f.Effects))
		for i, e := range f.Effects {
			effects[i] = string(e)
		}
		object := f.Kind + " " + f.Name
		if f.Namespace != "" {
			object = f.Kind + " " + f.Namespace + "/" + f.Name
		}
		table.Rows = append(table.Rows, []string{"**" + strings.Join(effects, ", ") + "**", markdown.Cell(f.Operation + " " + object),
			markdown.Code(f.Source), markdown.Cell(f.markdownWhat())})
	}
	return table
}

// markdownWhat is the worst of a write's new effects, in a line.
func (f *Finding) markdownWhat() string {
	switch {
	case f.Denial != nil:
		return fmt.Sprintf("%s: %d %s", f.Denial.Step.Name, f.Denial.Code, f.Denial.Message)
	case len(f.Failures) > 0:
		return f.Failures[0].Step.Name + ": " + f.Failures[0].Message
	case len(f.Warnings) > 0:
		return "warning: " + f.Warnings[0].Text
	case len(f.MutatedBy) > 0:
		return "mutated by " + f.MutatedBy[0].Name
	case f.BaselineRejection != "":
		return "admitted; the baseline refused it: " + f.BaselineRejection
	}
	return ""
}

// markdownSteps are the steps with new effects, the worst first.
func (r *Report) markdownSteps() markdown.Table {
	table := markdown.Table{Header: []string{"Step", "Change", "Matched", "Denied", "Failed", "Mutated", "Warned"}, More: "steps"}
	for _, s := range r.Steps {
		table.Rows = append(table.Rows, []string{markdown.Cell(fmt.Sprintf("%s %s", s.Type, s.Name)), markdown.Cell(s.Change),
			fmt.Sprint(s.Matched), fmt.Sprint(s.Denied), fmt.Sprint(s.Failed), fmt.Sprint(s.Mutated), fmt.Sprint(s.Warned)})
	}
	return table
}

// markdownNamespaces are the namespaces with new effects, the worst first.
func (r *Report) markdownNamespaces() markdown.Table {
	table := markdown.Table{Header: []string{"Namespace", "Audited", "Denied", "Failing", "Mutated", "Warned"}, More: "namespaces"}
	for _, n := range r.Namespaces {
		name := n.Namespace
		if name == "" {
			name = "(cluster-scoped)"
		}
		table.Rows = append(table.Rows, []string{markdown.Cell(name), fmt.Sprint(n.Audited), fmt.Sprint(n.Denied), fmt.Sprint(n.Failing), fmt.Sprint(n.Mutated), fmt.Sprint(n.Warned)})
	}
	return table
}
