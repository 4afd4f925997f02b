package review

import (
	"fmt"
	"io"
	"strings"

	"github.com/admitkit/admit/internal/markdown"
	"github.com/admitkit/admit/internal/words"
)

// MarkdownWriter writes reviews as Markdown for a pull request's comment or a CI job's summary
// (`admit review -o markdown`): the totals first, then a table of the objects not admitted —
// those not reviewed, then those rejected, in input order — and, folded, those admitted with
// webhooks or policies that failed open and those admitted with warnings. It keeps the first rows
// of each table and counts the rest, so that what it holds and writes is bounded whatever the
// number of objects; Close writes it all.
type MarkdownWriter struct {
	w io.Writer
	n int
	c counts
	// The tables' first rows, and how many more there are.
	notReviewed, rejected, open, warned                 [][]string
	moreNotReviewed, moreRejected, moreOpen, moreWarned int
}

// NewMarkdownWriter writes reviews to w as Markdown.
func NewMarkdownWriter(w io.Writer) *MarkdownWriter { return &MarkdownWriter{w: w} }

// Write takes one object's review.
func (mw *MarkdownWriter) Write(r *Outcome) error {
	mw.n++
	mw.c.add(r)
	keep := func(rows *[][]string, more *int, row []string) {
		if len(*rows) < markdown.DefaultRows {
			*rows = append(*rows, row)
		} else {
			*more++
		}
	}
	object, source := markdownObject(r), markdown.Code(r.Source)
	switch {
	case r.Err != nil:
		why := strings.TrimPrefix(r.Err.Error(), r.Source+": ")
		keep(&mw.notReviewed, &mw.moreNotReviewed, []string{"**not reviewed**", object, source, markdown.Cell(why)})
	case r.Skipped != "":
	case !r.Result.Allowed:
		why := fmt.Sprintf("%d %s", r.Result.Status.Code, r.Result.Status.Message)
		keep(&mw.rejected, &mw.moreRejected, []string{"**rejected**", object, source, markdown.Cell(why)})
	default:
		if rows := failedOpen(r.Result); len(rows) > 0 {
			keep(&mw.open, &mw.moreOpen, []string{object, source, markdown.Cell(rows[0].Name + ": " + rows[0].Reason)})
		}
		if len(r.Result.Warnings) > 0 {
			keep(&mw.warned, &mw.moreWarned, []string{object, source, markdown.Cell(strings.Join(r.Result.Warnings, "\n"))})
		}
	}
	return nil
}

// markdownObject names an outcome's object in a table: its operation, kind and name.
func markdownObject(r *Outcome) string {
	if r.Request == nil {
		if r.Object == nil {
			return ""
		}
		return markdown.Cell(r.Object.GetKind() + " " + r.Object.GetName())
	}
	return markdown.Cell(fmt.Sprintf("%s %s %s", r.Request.Operation, r.Request.Kind.Kind, qualifiedName(r)))
}

// Close writes the totals and the tables.
func (mw *MarkdownWriter) Close() error {
	verdict := "✅"
	if mw.c.rejected+mw.c.failed > 0 {
		verdict = "❌"
	}
	if _, err := fmt.Fprintf(mw.w, "### %s admit review\n\n%s\n\n", verdict, markdown.Text(mw.c.String(mw.n, true))); err != nil {
		return err
	}
	// The worst first: what could not be reviewed, then what was rejected; the rows past the
	// table's limit, and those not kept, are counted in its last line.
	rows := append(append([][]string(nil), mw.notReviewed...), mw.rejected...)
	refused := markdown.Table{Header: []string{"", "Object", "Source", "Why"}, Rows: rows, More: "objects not admitted",
		Omitted: mw.moreNotReviewed + mw.moreRejected}
	if err := refused.Write(mw.w); err != nil {
		return err
	}
	for _, section := range []struct {
		rows  [][]string
		more  int
		what  string
		title string
	}{
		{mw.open, mw.moreOpen, "with webhooks or policies that failed open", "Failed open"},
		{mw.warned, mw.moreWarned, "with warnings", "Warnings"},
	} {
		if len(section.rows) == 0 {
			continue
		}
		n := len(section.rows) + section.more
		summary := markdown.HTML(words.Plural(n, "object", "objects") + " admitted " + section.what)
		table := markdown.Table{Header: []string{"Object", "Source", section.title}, Rows: section.rows, More: "objects", Omitted: section.more}
		if err := markdown.Details(mw.w, summary, table.Write); err != nil {
			return err
		}
	}
	return nil
}

// WriteMarkdownAssumed writes, folded, what a review took for granted about the cluster
// (Session.Assumed), after its Markdown.
func WriteMarkdownAssumed(w io.Writer, assumed []string) error {
	if len(assumed) == 0 {
		return nil
	}
	return markdown.Details(w, "Assumed of the cluster", func(w io.Writer) error {
		for _, a := range assumed {
			if _, err := fmt.Fprintf(w, "- %s\n", markdown.Text(a)); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, "\n")
		return err
	})
}
