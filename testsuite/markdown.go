package testsuite

import (
	"fmt"
	"io"
	"strings"

	"github.com/admitkit/admit/internal/markdown"
	"github.com/admitkit/admit/internal/words"
)

// WriteMarkdown writes the reports of a run of test files as Markdown for a pull request's
// comment or a CI job's summary (`admit test -o markdown`): the totals, then a table of what did
// not pass, the worst first — files that could not run, cases that could not run, cases that
// failed — each with its first problem, bounded; then, folded, every failure in full.
func WriteMarkdown(w io.Writer, reports []*Report) error {
	cases, passed, failed, errs := 0, 0, 0, 0
	for _, r := range reports {
		p, f, e := r.Counts()
		passed, failed, errs = passed+p, failed+f, errs+e
		cases += r.NumCases()
	}
	verdict := "✅"
	if failed+errs > 0 {
		verdict = "❌"
	}
	totals := fmt.Sprintf("%s in %s: %d passed, %d failed", words.Plural(cases, "case", "cases"), words.Plural(len(reports), "file", "files"), passed, failed)
	if errs > 0 {
		totals += fmt.Sprintf(", %d could not run", errs)
	}
	if _, err := fmt.Fprintf(w, "### %s admit test\n\n%s\n\n", verdict, markdown.Text(totals)); err != nil {
		return err
	}
	// The table shows the first rows of the worst first: of each kind, more than it shows are
	// only counted, so that a run of many failed cases is not held.
	var fileErrors, caseErrors, failures [][]string
	omitted := 0
	keep := func(rows *[][]string, row []string) {
		if len(*rows) < markdown.DefaultRows {
			*rows = append(*rows, row)
		} else {
			omitted++
		}
	}
	var full strings.Builder
	listed := 0
	for _, r := range reports {
		file := markdown.Code(r.File)
		if r.Error != "" {
			keep(&fileErrors, []string{"**could not run**", file, "", markdown.Cell(r.Error)})
		}
		err := r.EachCase(func(c *CaseReport) error {
			where := markdown.Code(fmt.Sprintf("%s:%d", r.File, c.Line))
			switch {
			case c.Error != "":
				keep(&caseErrors, []string{"**could not run**", where, markdown.Cell(c.Name), markdown.Cell(c.Error)})
			case !c.Passed:
				first := c.Failures[0]
				if n := len(c.Failures) - 1; n > 0 {
					first += fmt.Sprintf(" (and %s)", words.Plural(n, "other failure", "other failures"))
				}
				keep(&failures, []string{"**failed**", where, markdown.Cell(c.Name), markdown.Cell(first)})
				if listed++; listed > markdown.DefaultRows {
					return nil // counted below
				}
				fmt.Fprintf(&full, "- %s, %s:\n", where, markdown.Text(c.Name))
				for _, f := range c.Failures {
					fmt.Fprintf(&full, "  - %s\n", markdown.Text(strings.ReplaceAll(f, "\n", " ")))
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", r.File, err)
		}
	}
	rows := append(append(fileErrors, caseErrors...), failures...)
	table := markdown.Table{Header: []string{"", "Where", "Case", "Why"}, Rows: rows, More: "cases that did not pass", Omitted: omitted}
	if err := table.Write(w); err != nil {
		return err
	}
	if err := writeMarkdownCoverage(w, reports); err != nil {
		return err
	}
	if full.Len() == 0 {
		return nil
	}
	if n := listed - markdown.DefaultRows; n > 0 {
		fmt.Fprintf(&full, "\n_and %d more failed cases_\n", n)
	}
	return markdown.Details(w, markdown.HTML("The failures in full"), func(w io.Writer) error {
		_, err := io.WriteString(w, full.String()+"\n")
		return err
	})
}

// writeMarkdownCoverage writes the files' coverage, when it was measured (Options.Coverage): the
// share of units hit, then, folded, the items that miss some, the most missed first as listed.
func writeMarkdownCoverage(w io.Writer, reports []*Report) error {
	var all []*Coverage
	for _, r := range reports {
		all = append(all, r.Coverage)
	}
	c := MergeCoverage(all...)
	if c == nil {
		return nil
	}
	if _, err := fmt.Fprintf(w, "**Coverage**: %.0f%% (%d of %s hit).\n\n", c.Percent, c.Hit, words.Plural(c.Units, "unit", "units")); err != nil {
		return err
	}
	table := markdown.Table{Header: []string{"Item", "Kind", "Hit", "Not hit"}, More: "items"}
	for _, item := range c.Items {
		var missed []string
		hit := 0
		for _, u := range item.Units {
			if u.Hit {
				hit++
			} else {
				missed = append(missed, u.String())
			}
		}
		if len(missed) > 0 {
			table.Rows = append(table.Rows, []string{markdown.Cell(item.Name), markdown.Cell(item.Kind),
				fmt.Sprintf("%d of %d", hit, len(item.Units)), markdown.Cell(strings.Join(missed, ", "))})
		}
	}
	if len(table.Rows) == 0 {
		return nil
	}
	return markdown.Details(w, markdown.HTML("What the cases do not reach"), table.Write)
}
