package markdown

import (
	"bytes"
	"html"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/internal/markdown/markdowntest"
)

var (
	tdCell = regexp.MustCompile(`(?s)<td>(.*?)</td>`)
	tag    = regexp.MustCompile(`<[^>]+>`)
)

// cells are the text of a rendered table's body cells, as a reader sees it: <br> a line break,
// the other tags (a <code>) dropped, entities decoded.
func cells(rendered string) []string {
	var out []string
	for _, m := range tdCell.FindAllStringSubmatch(rendered, -1) {
		text := strings.ReplaceAll(m[1], "<br>", "\n")
		out = append(out, html.UnescapeString(tag.ReplaceAllString(text, "")))
	}
	return out
}

// Text from the input renders as itself in a cell, whatever markup it holds: one row, two cells.
func TestCellRendersAsItself(t *testing.T) {
	for _, s := range []string{
		"plain", "a | b", "line one\nline two", "<script>alert(1)</script>", "**not bold** _nor this_",
		"`ticks`", `back\slash`, "[link](http://x)", "# not a heading", "a & b &amp; c", "~~strike~~", "!image",
		"ünïcödé ✓", "trailing space ",
	} {
		md := new(bytes.Buffer)
		if err := (Table{Header: []string{"A", "B"}, Rows: [][]string{{Cell(s), Code(s)}}}).Write(md); err != nil {
			t.Fatal(err)
		}
		got := cells(markdowntest.Render(t, md.String()))
		code := strings.ReplaceAll(s, "\n", " ")
		if diff := cmp.Diff([]string{strings.TrimSpace(s), code}, got); diff != "" {
			t.Errorf("%q (-want +rendered):\n%s\nmarkdown:\n%s", s, diff, md)
		}
	}
}

func FuzzCell(f *testing.F) {
	for _, s := range []string{"a|b", "x\ny", "<b>", "`", "\\|", "&#124;", "*_*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\x00\r\t\v\f") || !utf8Valid(s) || strings.TrimSpace(s) != s || strings.Contains(s, "\n ") || strings.Contains(s, " \n") || strings.Contains(s, "  ") || len([]rune(s)) >= cellLimit {
			return // whitespace Markdown folds, and what Cell cuts, are not the point
		}
		md := new(bytes.Buffer)
		if err := (Table{Header: []string{"A"}, Rows: [][]string{{Cell(s)}}}).Write(md); err != nil {
			t.Fatal(err)
		}
		if got := cells(markdowntest.Render(t, md.String())); len(got) != 1 || got[0] != s {
			t.Errorf("%q rendered as %q\nmarkdown:\n%s", s, got, md)
		}
	})
}

func utf8Valid(s string) bool {
	return strings.ToValidUTF8(s, "\uFFFD") == s && !strings.ContainsRune(s, '\uFFFD')
}

// A table past its limit shows Limit rows and says how many more there are.
func TestTableIsBounded(t *testing.T) {
	var rows [][]string
	for i := range 30 {
		rows = append(rows, []string{Cell(strings.Repeat("x", i+1))})
	}
	md := new(bytes.Buffer)
	if err := (Table{Header: []string{"X"}, Rows: rows, Limit: 10, More: "objects"}).Write(md); err != nil {
		t.Fatal(err)
	}
	rendered := markdowntest.Render(t, md.String())
	if n := len(cells(rendered)); n != 10 {
		t.Errorf("%d rows rendered, want 10", n)
	}
	if !strings.Contains(rendered, "<em>and 20 more objects</em>") {
		t.Errorf("no \"and 20 more\" line:\n%s", rendered)
	}
	md.Reset()
	if err := (Table{Header: []string{"X"}}).Write(md); err != nil || md.Len() != 0 {
		t.Errorf("a table of no row wrote %q, %v", md, err)
	}
}

// A folded section renders as <details> with its summary, the body's Markdown rendered inside.
func TestDetails(t *testing.T) {
	md := new(bytes.Buffer)
	err := Details(md, HTML("2 <warnings> & more"), func(w io.Writer) error {
		return Table{Header: []string{"W"}, Rows: [][]string{{Cell("one")}}}.Write(w)
	})
	if err != nil {
		t.Fatal(err)
	}
	rendered := markdowntest.Render(t, md.String())
	for _, want := range []string{"<details><summary>2 &lt;warnings&gt; &amp; more</summary>", "<td>one</td>", "</details>"} {
		if !strings.Contains(rendered, want) {
			t.Errorf("rendered without %q:\n%s", want, rendered)
		}
	}
}
