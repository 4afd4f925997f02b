package review

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteTexts writes each object's review under a heading naming it, then a summary line.
func WriteTexts(w io.Writer, outcomes []*Outcome, opts TextOptions) error {
	tw := NewTextWriter(w, opts)
	for _, r := range outcomes {
		if err := tw.Write(r); err != nil {
			return err
		}
	}
	return tw.Close()
}

// TextWriter writes reviews as WriteTexts does, one at a time as they are decided; Close writes
// the summary line.
type TextWriter struct {
	w    io.Writer
	opts TextOptions
	n    int
	c    counts
}

// NewTextWriter writes reviews to w.
func NewTextWriter(w io.Writer, opts TextOptions) *TextWriter {
	return &TextWriter{w: w, opts: opts}
}

// Write writes one object's review under a heading naming it.
func (tw *TextWriter) Write(r *Outcome) error {
	w := tw.w
	if tw.n > 0 {
		fmt.Fprintln(w)
	}
	tw.n++
	heading := r.Source
	if r.Request != nil {
		heading = fmt.Sprintf("%s %s %s (%s)", r.Request.Operation, r.Request.Kind.Kind, qualifiedName(r), r.Source)
	}
	fmt.Fprintf(w, "=== %s\n", heading)
	tw.c.add(r)
	var err error
	switch {
	case r.Err != nil:
		_, err = fmt.Fprintf(w, "NOT REVIEWED: %v\n", r.Err)
	case r.Skipped != "":
		_, err = fmt.Fprintf(w, "SKIPPED: %s\n", r.Skipped)
	default:
		err = r.WriteText(w, tw.opts)
	}
	return err
}

// Close writes the summary line of the reviews written.
func (tw *TextWriter) Close() error {
	_, err := fmt.Fprintf(tw.w, "\n%s\n", tw.c.String(tw.n, false))
	return err
}

// WriteSummary writes one line per object — the decision, the object, and why it was
// rejected, failed open, skipped or not reviewed — then the totals: what a large input needs to
// be read.
func WriteSummary(w io.Writer, outcomes []*Outcome, opts TextOptions) error {
	sw := NewSummaryWriter(w, opts)
	defer sw.Discard()
	for _, r := range outcomes {
		if err := sw.Write(r); err != nil {
			return err
		}
	}
	return sw.Close()
}

// SummaryWriter writes a summary as WriteSummary does, taking the reviews one at a time as they
// are decided. The table's columns are as wide as their widest cell, known once every line is:
// the lines wait in a spool (in memory up to a few MiB, then a temporary file) and are written
// by Close. Discard drops what was not written.
type SummaryWriter struct {
	w      io.Writer
	opts   TextOptions
	lines  *spool
	widths [summaryColumns]int
	n      int
	c      counts
}

// summaryColumns are the summary's aligned columns; the last, the detail, is not padded.
const summaryColumns = 4

// summaryHeader is the summary table's first line.
const summaryHeader = "DECISION\tOPERATION\tOBJECT\tSOURCE\tDETAIL"

// NewSummaryWriter writes a summary to w.
func NewSummaryWriter(w io.Writer, opts TextOptions) *SummaryWriter {
	sw := &SummaryWriter{w: w, opts: opts, lines: newSpool()}
	sw.measure(summaryHeader)
	return sw
}

// Write takes one object's line.
func (sw *SummaryWriter) Write(r *Outcome) error {
	sw.n++
	sw.c.add(r)
	line := summaryLine(r, sw.opts.paint)
	sw.measure(line)
	return sw.lines.add(line)
}

// measure widens the columns to line's cells.
func (sw *SummaryWriter) measure(line string) {
	for i := range summaryColumns {
		cell, rest, _ := strings.Cut(line, "\t")
		sw.widths[i] = max(sw.widths[i], utf8.RuneCountInString(cell))
		line = rest
	}
}

// Close writes the table, each column padded to its widest cell and two spaces (as
// text/tabwriter pads), then the totals, and removes the spool.
func (sw *SummaryWriter) Close() error {
	defer sw.Discard()
	if err := sw.writeLine(summaryHeader); err != nil {
		return err
	}
	if err := sw.lines.each(sw.writeLine); err != nil {
		return err
	}
	_, err := fmt.Fprintf(sw.w, "\n%s\n", sw.c.String(sw.n, true))
	return err
}

// Discard removes the spool; the lines not yet written are lost.
func (sw *SummaryWriter) Discard() { sw.lines.remove() }

// writeLine writes one line of the table.
func (sw *SummaryWriter) writeLine(line string) error {
	var b strings.Builder
	for i := range summaryColumns {
		cell, rest, _ := strings.Cut(line, "\t")
		b.WriteString(cell)
		b.WriteString(strings.Repeat(" ", sw.widths[i]+summaryPadding-utf8.RuneCountInString(cell)))
		line = rest
	}
	b.WriteString(line)
	b.WriteByte('\n')
	_, err := io.WriteString(sw.w, b.String())
	return err
}

// summaryPadding separates the summary's columns.
const summaryPadding = 2

// summaryCell makes a value safe for a cell of the summary's table: a tab, line break, vertical
// tab or form feed in it (a file's name, an object's) is a space, and bytes that are not UTF-8
// are U+FFFD, so that each line has its five columns and nothing else is read as one.
func summaryCell(c string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\t', '\n', '\r', '\v', '\f':
			return ' '
		}
		return r
	}, strings.ToValidUTF8(c, "\uFFFD"))
}
