package audit

import (
	"html"
	"io"
	"strconv"
	"strings"
)

// WriteHTML writes the report as one self-contained page — styles inline, charts as inline
// SVG, no script, no external asset — that a CI system can keep as an artifact and anyone can
// open offline. It is written with html.EscapeString around every value rather than with
// html/template: a template's field evaluation calls methods by a name the linker cannot see,
// which makes it keep every exported method of every type the binary links (about 30 MB;
// docs/benchmarks.md, Binary size).
func (r *Report) WriteHTML(w io.Writer) error {
	p := &htmlPage{}
	p.head(r)
	p.totals(r)
	p.charts(r)
	p.tables(r)
	p.findings(r)
	p.raw("</body>\n</html>\n")
	_, err := io.WriteString(w, p.b.String())
	return err
}

// head writes the page's head, what was compared and the verdict.
func (p *htmlPage) head(r *Report) {
	verdictClass, verdict := "fail", ""
	switch {
	case len(r.Exceeded) > 0:
		verdict = "Not ready to roll out: " + strings.Join(r.Exceeded, "; ")
	case !r.Complete:
		verdict = "Interrupted: these counts cover the writes audited before Ctrl-C"
	default:
		verdictClass, verdict = "pass", "Nothing beyond the thresholds"
	}

	p.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	p.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	p.raw("<title>admit audit: ", p.esc(r.Source), "</title>\n<style>\n", auditPageStyle, "</style>\n</head>\n<body>\n")
	p.raw("<h1>admit audit</h1>\n<p class=\"meta\">Audited: ", p.esc(r.Source))
	if r.Operation != "" {
		p.raw(" (each object's next write: ", p.esc(r.Operation), ")")
	}
	p.raw("</p>\n<p class=\"meta\">Baseline: ", p.esc(r.Baseline), "</p>\n")
	p.raw("<p class=\"meta\">Proposal: ", p.esc(r.Proposal), "</p>\n")
	p.raw("<div id=\"verdict\" class=\"verdict ", verdictClass, "\">", p.esc(verdict), "</div>\n\n")
}

// totals writes the totals as cards.
func (p *htmlPage) totals(r *Report) {
	p.raw("<div class=\"cards\" id=\"totals\">\n")
	for _, card := range []struct {
		id, label string
		n         int
	}{
		{"", "read", r.Totals.Read},
		{"", "audited", r.Totals.Audited},
		{"total-denied", "newly denied", r.Totals.NewlyDenied},
		{"total-failing", "newly failing", r.Totals.NewlyFailing},
		{"total-mutated", "newly mutated", r.Totals.NewlyMutated},
		{"total-warned", "newly warned", r.Totals.NewlyWarned},
		{"", "not reviewed", r.Totals.Unreviewed},
	} {
		p.raw("<div class=\"card\"><div class=\"n\"")
		if card.id != "" {
			p.raw(" id=\"", card.id, "\"")
		}
		p.raw(">", strconv.Itoa(card.n), "</div><div class=\"l\">", card.label, "</div></div>\n")
	}
	p.raw("</div>\n")
}

// charts writes the new effects per step and per namespace as charts.
func (p *htmlPage) charts(r *Report) {
	var labels []string
	var counts [][]int
	for _, s := range r.Steps {
		labels = append(labels, s.Step.String())
		counts = append(counts, []int{s.Denied, s.Failed, s.Warned, s.Mutated})
	}
	p.chart(newChart("steps-chart", "New effects per webhook and policy", "No webhook or policy newly denies, fails, warns or mutates anything.", labels, counts))
	labels, counts = nil, nil
	for _, n := range r.Namespaces {
		labels = append(labels, namespaceName(n.Namespace))
		counts = append(counts, []int{n.Denied, n.Failing, n.Warned, n.Mutated})
	}
	p.chart(newChart("namespaces-chart", "New effects per namespace", "No namespace has a write with a new effect.", labels, counts))
}

// tables writes the steps and the namespaces as tables.
func (p *htmlPage) tables(r *Report) {
	p.raw("\n<h2>Webhooks and policies</h2>\n<table id=\"steps\">\n")
	p.raw("<tr><th>Step</th><th>Change</th><th>Matched</th><th>Denied</th><th>Failed</th><th>Mutated</th><th>Warned</th></tr>\n")
	for _, s := range r.Steps {
		p.raw("<tr><td>", p.esc(s.String()), "</td><td>", p.esc(s.Change), "</td>")
		p.cells(s.Matched, s.Denied, s.Failed, s.Mutated, s.Warned)
		p.raw("</tr>\n")
	}
	p.raw("</table>\n\n<h2>Namespaces</h2>\n<table id=\"namespaces\">\n")
	p.raw("<tr><th>Namespace</th><th>Audited</th><th>Denied</th><th>Failing</th><th>Mutated</th><th>Warned</th></tr>\n")
	for _, n := range r.Namespaces {
		p.raw("<tr><td>", p.esc(namespaceName(n.Namespace)), "</td>")
		p.cells(n.Audited, n.Denied, n.Failing, n.Mutated, n.Warned)
		p.raw("</tr>\n")
	}
	p.raw("</table>\n")
}

// findings writes the writes with new effects, the unreviewed writes and the notes.
func (p *htmlPage) findings(r *Report) {
	p.raw("\n<h2>Writes with new effects, the worst first</h2>\n<div id=\"objects\">\n")
	for _, o := range r.Objects {
		p.object(o)
	}
	if len(r.Objects) == 0 {
		p.raw("<p>None.</p>\n")
	}
	if r.OmittedObjects > 0 {
		p.raw("<p>… and ", strconv.Itoa(r.OmittedObjects), " more (--limit).</p>\n")
	}
	p.raw("</div>\n")
	if len(r.Unreviewed) > 0 {
		p.raw("<h2>Not reviewed</h2>\n<ul id=\"unreviewed\">\n")
		for _, u := range r.Unreviewed {
			p.raw("<li>", strconv.Itoa(u.Count), "× ", p.esc(u.Reason), " (first: ", p.esc(u.First), ")</li>\n")
		}
		p.raw("</ul>\n")
	}
	if len(r.Notes) > 0 {
		p.raw("<h2>Notes</h2>\n<ul id=\"notes\">\n")
		for _, note := range r.Notes {
			p.raw("<li>", p.esc(note), "</li>\n")
		}
		p.raw("</ul>\n")
	}
}

// htmlPage accumulates a page; what comes from the report goes through esc.
type htmlPage struct{ b strings.Builder }

func (p *htmlPage) raw(parts ...string) {
	for _, s := range parts {
		p.b.WriteString(s)
	}
}

// esc escapes text for an element's content and for a quoted attribute's value alike.
func (p *htmlPage) esc(s string) string { return html.EscapeString(s) }

// cells writes numbers as right-aligned table cells.
func (p *htmlPage) cells(ns ...int) {
	for _, n := range ns {
		p.raw("<td class=\"n\">", strconv.Itoa(n), "</td>")
	}
}

// object writes one write with new effects: a summary line, and the text report's lines for it.
func (p *htmlPage) object(o Finding) {
	var b strings.Builder
	o.writeText(&b)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	effect := p.esc(string(o.Effects[0]))
	p.raw("<details class=\"object\" data-effect=\"", effect, "\">\n")
	p.raw("<summary><span class=\"tag ", effect, "\">", effect, "</span> ", p.esc(o.Operation), " ", p.esc(o.Kind), " ")
	if o.Namespace != "" {
		p.raw(p.esc(o.Namespace), "/")
	}
	p.raw(p.esc(o.Name), " <span class=\"meta\">(", p.esc(o.Source), ")</span></summary>\n<pre>")
	for _, line := range lines[1:] {
		p.raw(p.esc(line), "\n")
	}
	p.raw("</pre>\n</details>\n")
}

// chart writes a chart as inline SVG.
func (p *htmlPage) chart(c chart) {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
	title := p.esc(c.Title)
	p.raw("\n<h2>", title, "</h2>\n")
	p.raw("<svg id=\"", c.ID, "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"", strconv.Itoa(c.Width), "\" height=\"", strconv.Itoa(c.Height),
		"\" viewBox=\"0 0 ", strconv.Itoa(c.Width), " ", strconv.Itoa(c.Height), "\" role=\"img\" aria-label=\"", title, "\">")
	for _, l := range c.Legend {
		p.raw("\n<rect class=\"legend ", l.Effect, "\" x=\"", f(l.X), "\" y=\"6\" width=\"12\" height=\"12\"></rect>",
			"<text x=\"", f(l.X), "\" dx=\"16\" y=\"16\">", l.Effect, "</text>")
	}
	if len(c.Bars) == 0 {
		p.raw("\n<text class=\"empty\" x=\"10\" y=\"46\">", p.esc(c.Empty), "</text>")
	}
	for _, bar := range c.Bars {
		barTitle := p.esc(bar.Title)
		p.raw("\n<g class=\"bar\" data-label=\"", barTitle, "\" data-total=\"", strconv.Itoa(bar.Total), "\">\n")
		p.raw("<title>", barTitle, "</title>\n")
		p.raw("<text x=\"", strconv.Itoa(c.LabelWidth), "\" y=\"", strconv.Itoa(bar.Y+15), "\" text-anchor=\"end\">", p.esc(bar.Label), "</text>")
		for _, s := range bar.Segments {
			count := strconv.Itoa(s.Count)
			p.raw("\n<rect class=\"segment ", s.Effect, "\" data-count=\"", count, "\" x=\"", f(s.X), "\" y=\"", strconv.Itoa(bar.Y),
				"\" width=\"", f(s.W), "\" height=\"22\"><title>", count, " ", s.Effect, "</title></rect>")
		}
		p.raw("\n<text class=\"total\" x=\"", f(bar.TotalX), "\" y=\"", strconv.Itoa(bar.Y+15), "\">", strconv.Itoa(bar.Total), "</text>\n</g>")
	}
	p.raw("\n</svg>\n")
}

// auditPageStyle is the page's only style sheet, inline.
const auditPageStyle = `body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem; color: #1f2328; max-width: 1100px; }
h1 { font-size: 1.5rem; margin-bottom: .25rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #d0d7de; padding-bottom: .25rem; }
.meta { color: #57606a; margin: .1rem 0; }
.verdict { padding: .75rem 1rem; border-radius: 6px; font-weight: 600; margin: 1rem 0; }
.verdict.fail { background: #ffebe9; border: 1px solid #ff8182; color: #82071e; }
.verdict.pass { background: #dafbe1; border: 1px solid #4ac26b; color: #116329; }
.cards { display: flex; flex-wrap: wrap; gap: .75rem; }
.card { border: 1px solid #d0d7de; border-radius: 6px; padding: .5rem .9rem; min-width: 7rem; }
.card .n { font-size: 1.6rem; font-weight: 700; }
.card .l { color: #57606a; font-size: .85rem; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #eaeef2; }
th { background: #f6f8fa; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
svg text { font-family: system-ui, sans-serif; font-size: 12px; fill: #1f2328; }
.denied { fill: #cf222e; background: #cf222e; }
.failing { fill: #bc4c00; background: #bc4c00; }
.warned { fill: #bf8700; background: #bf8700; }
.mutated { fill: #0969da; background: #0969da; }
.tag { color: #fff; border-radius: 4px; padding: 0 .4rem; font-size: .8rem; font-weight: 600; text-transform: uppercase; }
.tag.allowed { background: #1a7f37; }
details { border: 1px solid #d0d7de; border-radius: 6px; margin: .4rem 0; padding: .3rem .6rem; }
summary { cursor: pointer; }
pre { white-space: pre-wrap; font-size: .8rem; margin: .4rem 0; }
`
