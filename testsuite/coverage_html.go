package testsuite

import (
	"fmt"
	"html"
	"io"
	"os"
	"strconv"
	"strings"
)

// coverageStyle is the page's whole style: lines hit green, missed red, partly hit amber.
const coverageStyle = `body{font-family:system-ui,sans-serif;margin:24px;color:#1b1f23;background:#fff}
h1{font-size:22px;margin:0 0 8px}h2{font-size:17px;margin:28px 0 8px}
.meta{color:#57606a}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
pre.source{font-family:ui-monospace,monospace;font-size:13px;line-height:1.45;background:#fafbfc;border:1px solid #d0d7de;padding:8px 0;overflow-x:auto}
pre.source span.line{display:block;padding:0 12px 0 0;white-space:pre}
span.ln{display:inline-block;width:48px;padding-right:12px;text-align:right;color:#8c959f;user-select:none}
.hit{background:#b7f0b1}.miss{background:#f8b4b4}.part{background:#f9e0a0}
.legend span{padding:2px 8px;margin-right:8px}
`

// The classes of a line or item by what of its units was hit.
const (
	classHit  = "hit"
	classMiss = "miss"
	classPart = "part"
)

// WriteHTML writes the coverage as one self-contained page, in the manner of `go tool cover`:
// the totals, a table of the items, and each configuration and policy file as written, every
// line that holds a unit marked — green when each of its units was hit, red when none, amber
// when some — with a title naming its units and the cases that hit them. It reads the files
// the items were read from.
func (c *Coverage) WriteHTML(w io.Writer) error {
	p := &htmlPage{}
	p.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	p.raw("<title>admit test coverage</title>\n<style>\n", coverageStyle, "</style>\n</head>\n<body>\n")
	p.raw("<h1>admit test coverage</h1>\n<p class=\"meta\" id=\"total\">", strconv.Itoa(c.Hit), " of ", strconv.Itoa(c.Units),
		" units hit (", percentText(c.Percent), ")</p>\n")
	p.raw("<p class=\"legend\"><span class=\"hit\">hit</span><span class=\"part\">partly hit</span><span class=\"miss\">not hit</span></p>\n")
	p.items(c)
	var files []string
	for _, item := range c.Items {
		if item.File != "" && !containsString(files, item.File) {
			files = append(files, item.File)
		}
	}
	for i, file := range files {
		if err := p.file(c, file, i); err != nil {
			return err
		}
	}
	p.raw("</body>\n</html>\n")
	_, err := io.WriteString(w, p.b.String())
	return err
}

func percentText(p float64) string { return strconv.FormatFloat(p, 'f', 1, 64) + "%" }

// htmlPage accumulates a page; what comes from the files and the cases goes through esc.
type htmlPage struct{ b strings.Builder }

func (p *htmlPage) raw(parts ...string) {
	for _, s := range parts {
		p.b.WriteString(s)
	}
}

// esc escapes text for an element's content and a quoted attribute's value alike.
func (p *htmlPage) esc(s string) string { return html.EscapeString(s) }

// class is how much of units was hit.
func class(units []*CoverageUnit) string {
	hit := 0
	for _, u := range units {
		if u.Hit {
			hit++
		}
	}
	switch hit {
	case len(units):
		return classHit
	case 0:
		return classMiss
	}
	return classPart
}

func (p *htmlPage) items(c *Coverage) {
	p.raw("<h2>Webhooks, policies and bindings</h2>\n<table id=\"items\">\n")
	p.raw("<tr><th>Item</th><th>Kind</th><th>Units hit</th><th>Where</th><th>Cases</th></tr>\n")
	for _, item := range c.Items {
		where := "-"
		if item.File != "" {
			where = item.File + ":" + strconv.Itoa(item.Line)
		}
		p.raw("<tr class=\"", class(item.Units), "\"><td>", p.esc(item.label()), "</td><td>", p.esc(item.Kind), "</td><td class=\"n\">",
			strconv.Itoa(item.hits()), "/", strconv.Itoa(len(item.Units)), "</td><td>", p.esc(where), "</td><td>",
			p.esc(casesText(item.Cases, item.Count)), "</td></tr>\n")
	}
	p.raw("</table>\n")
}

// file writes one file with its units' lines marked.
func (p *htmlPage) file(c *Coverage, file string, n int) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("coverage page: %w", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	byLine := map[int][]*CoverageUnit{}
	labels := map[*CoverageUnit]string{}
	units, hit := 0, 0
	for _, item := range c.Items {
		if item.File != file {
			continue
		}
		for _, u := range item.Units {
			units++
			if u.Hit {
				hit++
			}
			labels[u] = item.Kind + " " + item.Name + ": " + u.String()
			for _, line := range unitLines(lines, u) {
				byLine[line] = append(byLine[line], u)
			}
		}
	}
	percent := 100.0
	if units > 0 {
		percent = float64(int(1000*float64(hit)/float64(units)+0.5)) / 10
	}
	p.raw("<h2 id=\"file-", strconv.Itoa(n), "\">", p.esc(file), " <span class=\"meta\">", strconv.Itoa(hit), " of ", strconv.Itoa(units),
		" units (", percentText(percent), ")</span></h2>\n<pre class=\"source\" data-file=\"", p.esc(file), "\">")
	for i, line := range lines {
		number := strconv.Itoa(i + 1)
		us := byLine[i+1]
		if len(us) == 0 {
			p.raw("<span class=\"line\"><span class=\"ln\">", number, "</span>", p.esc(line), "</span>")
			continue
		}
		titles := make([]string, len(us))
		for j, u := range us {
			titles[j] = labels[u] + ": "
			if u.Hit {
				titles[j] += "hit by " + casesText(u.Cases, u.Count)
			} else {
				titles[j] += "not hit"
			}
		}
		p.raw("<span class=\"line ", class(us), "\" data-line=\"", number, "\" title=\"", p.esc(strings.Join(titles, "\n")), "\"><span class=\"ln\">",
			number, "</span>", p.esc(line), "</span>")
	}
	p.raw("</pre>\n")
	return nil
}

// unitLines are the lines of u's key and value: its line, and those below indented further than
// its key (a block scalar's, a flow mapping's continued); none when u has no line.
func unitLines(lines []string, u *CoverageUnit) []int {
	if u.Line <= 0 || u.Line > len(lines) {
		return nil
	}
	out := []int{u.Line}
	for n := u.Line + 1; n <= len(lines) && u.column > 0; n++ {
		text := lines[n-1]
		indent := len(text) - len(strings.TrimLeft(text, " "))
		if strings.TrimSpace(text) == "" || indent < u.column {
			break
		}
		out = append(out, n)
	}
	return out
}
