package markdown

import (
	"fmt"
	"html"
	"io"
	"strings"
)

// DefaultRows is how many rows a table shows before "and N more": enough for a screen.
const DefaultRows = 25

// cellLimit bounds one cell: the longest messages (a schema's regular expression) say what they
// need in fewer characters.
const cellLimit = 300

// Cell is s as the text of a table cell: characters that Markdown or HTML would read as markup
// are escaped, line breaks are <br>, and text past cellLimit characters ends with "…".
func Cell(s string) string {
	if r := []rune(s); len(r) > cellLimit {
		s = string(r[:cellLimit-1]) + "…"
	}
	return escape(s, true)
}

// Text is s as a paragraph's text, escaped as Cell escapes it but for line breaks, which stay.
func Text(s string) string { return escape(s, false) }

// escape escapes what GitHub-flavoured Markdown reads as markup; inCell also turns line breaks
// into <br> and escapes "|".
func escape(s string, inCell bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\r':
		case r == '\n' && inCell:
			b.WriteString("<br>")
		case r == '|' && inCell:
			b.WriteString(`\|`)
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case strings.ContainsRune("\\`*_[]#~!", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Code is s as inline code: fenced with more backticks than it holds, line breaks as spaces,
// and "|" escaped so that it may stand in a table cell.
func Code(s string) string {
	s = strings.NewReplacer("\r", "", "\n", " ").Replace(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		pad = " "
	}
	return fence + pad + strings.ReplaceAll(s, "|", `\|`) + pad + fence
}

// Table is a table with its header, the rows given already escaped (Cell, Code); Rows beyond
// Limit are counted in a last line, "and N more". A table of no row is not written.
type Table struct {
	Header []string
	Rows   [][]string
	// Limit is how many rows are written; 0 means DefaultRows.
	Limit int
	// More names what the rows left out are, "and 3 more <More>"; default "rows".
	More string
	// Omitted counts rows not given (a writer that keeps the first rows and counts the rest):
	// they are among the "and N more".
	Omitted int
}

// Write writes the table and a blank line after it.
func (t Table) Write(w io.Writer) error {
	if len(t.Rows) == 0 {
		return nil
	}
	limit, more := t.Limit, t.More
	if limit <= 0 {
		limit = DefaultRows
	}
	if more == "" {
		more = "rows"
	}
	var b strings.Builder
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n|")
	for range t.Header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for i, row := range t.Rows {
		if i == limit {
			break
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	if n := max(0, len(t.Rows)-limit) + t.Omitted; n > 0 {
		fmt.Fprintf(&b, "\n_and %d more %s_\n", n, more)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// HTML is s as text inside an HTML element (a Details summary), where Markdown is not read.
func HTML(s string) string {
	return html.EscapeString(strings.NewReplacer("\r", "", "\n", " ").Replace(s))
}

// Details writes a folded section: summary (HTML-escaped already: see HTML) shown, body written
// inside, folded until the reader opens it.
func Details(w io.Writer, summary string, body func(io.Writer) error) error {
	if _, err := fmt.Fprintf(w, "<details><summary>%s</summary>\n\n", summary); err != nil {
		return err
	}
	if err := body(w); err != nil {
		return err
	}
	_, err := io.WriteString(w, "</details>\n\n")
	return err
}
