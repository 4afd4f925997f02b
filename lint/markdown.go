package lint

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/admitkit/admit/internal/markdown"
)

// WriteMarkdown writes the findings that count at threshold (see AtLeast) as Markdown for a pull
// request's comment or a CI job's summary (`admit lint -o markdown`): the summary line, then a
// table of the findings, the most severe first, bounded; then, folded, how to fix each.
func WriteMarkdown(w io.Writer, findings []Finding, threshold Severity) error {
	shown := slices.Clone(AtLeast(findings, threshold))
	// The most severe first; within a severity, in the order the rules found them.
	slices.SortStableFunc(shown, func(a, b Finding) int { return cmp.Compare(b.Severity, a.Severity) })
	verdict := "✅"
	if len(shown) > 0 {
		verdict = "❌"
	}
	if _, err := fmt.Fprintf(w, "### %s admit lint\n\n%s\n\n", verdict, markdown.Text(summary(findings, shown, threshold))); err != nil {
		return err
	}
	var rows [][]string
	var fixes strings.Builder
	for i, f := range shown {
		where := f.Kind + " " + f.Configuration
		if f.Webhook != "" {
			where += ", webhook " + f.Webhook
		}
		location := ""
		if loc := f.Location(); loc != "" {
			location = markdown.Code(loc)
		}
		rule := markdown.Code(f.Rule) + " " + markdown.Cell(f.Name)
		rows = append(rows, []string{"**" + f.Severity.String() + "**", rule, markdown.Cell(where), location, markdown.Cell(f.Message)})
		if f.Hint != "" && i < markdown.DefaultRows {
			fmt.Fprintf(&fixes, "- %s %s: %s\n", markdown.Code(f.Rule), markdown.Text(where), markdown.Text(f.Hint))
		}
	}
	table := markdown.Table{Header: []string{"Severity", "Rule", "Configuration", "Where", "Finding"}, Rows: rows, More: "findings"}
	if err := table.Write(w); err != nil {
		return err
	}
	if fixes.Len() == 0 {
		return nil
	}
	return markdown.Details(w, markdown.HTML("How to fix them"), func(w io.Writer) error {
		_, err := io.WriteString(w, fixes.String()+"\n")
		return err
	})
}
