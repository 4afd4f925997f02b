package cli

import (
	"fmt"
	"html/template"
	"io"
	"strings"
)

// The HTML report: one self-contained page — styles inline, charts as inline SVG, no script, no
// external asset — that a CI system can keep as an artifact and anyone can open offline.

// chartRows bounds the bars of a chart: the worst ones.
const chartRows = 15

// chartLabelRunes is how much of a bar's label the label column shows.
const chartLabelRunes = 48

// chartBar is one bar of a stacked bar chart: its label, and a segment per effect.
type chartBar struct {
	// Label is what the chart shows, Title the whole name (a tooltip) when Label is shortened.
	Label, Title string
	Y            int
	Segments     []chartSegment
	Total        int
	// TotalX is where the total is written: just past the bar's end.
	TotalX float64
}

type chartSegment struct {
	Effect string
	Count  int
	X, W   float64
}

// chart is a horizontal stacked bar chart, laid out for SVG.
type chart struct {
	ID, Title        string
	Width, Height    int
	LabelWidth       int
	Bars             []chartBar
	Legend           []chartSegment
	Empty            string
	AxisX, AxisWidth int
}

// effectsOrder are the charts' segments, worst first, with their colours' class names.
func effectsOrder() []string { return []string{"denied", "failing", "warned", "mutated"} }

// newChart lays out bars whose segments count each effect; the longest bar fills the width.
func newChart(id, title, empty string, labels []string, counts [][]int) chart {
	const barHeight, gap, labelWidth, width = 22, 8, 320, 900
	c := chart{ID: id, Title: title, Width: width, LabelWidth: labelWidth, Empty: empty, AxisX: labelWidth + 10, AxisWidth: width - labelWidth - 70}
	most := 0
	for _, row := range counts {
		total := 0
		for _, n := range row {
			total += n
		}
		most = max(most, total)
	}
	for i, label := range labels {
		if len(c.Bars) == chartRows {
			break
		}
		bar := chartBar{Label: label, Title: label, Y: 30 + len(c.Bars)*(barHeight+gap)}
		if r := []rune(label); len(r) > chartLabelRunes {
			// The label column holds about this many characters: the start of a long name is
			// kept, the whole of it is in the tooltip and the table below.
			bar.Label = string(r[:chartLabelRunes-1]) + "…"
		}
		x := float64(c.AxisX)
		for j, effect := range effectsOrder() {
			n := counts[i][j]
			if n == 0 {
				continue
			}
			w := float64(c.AxisWidth) * float64(n) / float64(most)
			bar.Segments = append(bar.Segments, chartSegment{Effect: effect, Count: n, X: x, W: max(w, 2)})
			x += w
			bar.Total += n
		}
		bar.TotalX = x + 6
		if bar.Total > 0 {
			c.Bars = append(c.Bars, bar)
		}
	}
	for i, effect := range effectsOrder() {
		c.Legend = append(c.Legend, chartSegment{Effect: effect, X: float64(c.AxisX + i*120)})
	}
	c.Height = 40 + len(c.Bars)*(barHeight+gap) + 20
	if len(c.Bars) == 0 {
		c.Height = 60
	}
	return c
}

// htmlView is what the page template reads.
type htmlView struct {
	*auditReport
	Failed     bool
	Verdict    string
	StepsChart chart
	NSChart    chart
	Objects    []htmlObject
}

type htmlObject struct {
	auditObject
	Effect string
	Lines  []string
}

func writeAuditHTML(w io.Writer, r *auditReport) error {
	v := htmlView{auditReport: r, Failed: len(r.Exceeded) > 0 || !r.Complete}
	switch {
	case len(r.Exceeded) > 0:
		v.Verdict = "Not ready to roll out: " + strings.Join(r.Exceeded, "; ")
	case !r.Complete:
		v.Verdict = "Interrupted: these counts cover the writes audited before Ctrl-C"
	default:
		v.Verdict = "Nothing beyond the thresholds"
	}
	var labels []string
	var counts [][]int
	for _, s := range r.Steps {
		labels = append(labels, s.stepKey.String())
		counts = append(counts, []int{s.Denied, s.Failed, s.Warned, s.Mutated})
	}
	v.StepsChart = newChart("steps-chart", "New effects per webhook and policy", "No webhook or policy newly denies, fails, warns or mutates anything.", labels, counts)
	labels, counts = nil, nil
	for _, n := range r.Namespaces {
		labels = append(labels, namespaceName(n.Namespace))
		counts = append(counts, []int{n.Denied, n.Failing, n.Warned, n.Mutated})
	}
	v.NSChart = newChart("namespaces-chart", "New effects per namespace", "No namespace has a write with a new effect.", labels, counts)
	for _, o := range r.Objects {
		var b strings.Builder
		writeAuditObject(&b, o)
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		v.Objects = append(v.Objects, htmlObject{auditObject: o, Effect: o.Effects[0], Lines: lines[1:]})
	}
	return auditPage().Execute(w, v)
}

func auditPage() *template.Template {
	return template.Must(template.New("audit").Funcs(template.FuncMap{
		"namespace": namespaceName,
		"f":         func(x float64) string { return fmt.Sprintf("%.1f", x) },
		"add":       func(a, b int) int { return a + b },
	}).Parse(auditPageTemplate))
}

const auditPageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>admit audit: {{.Source}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem; color: #1f2328; max-width: 1100px; }
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
</style>
</head>
<body>
<h1>admit audit</h1>
<p class="meta">Audited: {{.Source}}{{if .Operation}} (each object's next write: {{.Operation}}){{end}}</p>
<p class="meta">Baseline: {{.Baseline}}</p>
<p class="meta">Proposal: {{.Proposal}}</p>
<div id="verdict" class="verdict {{if .Failed}}fail{{else}}pass{{end}}">{{.Verdict}}</div>

<div class="cards" id="totals">
<div class="card"><div class="n">{{.Totals.Read}}</div><div class="l">read</div></div>
<div class="card"><div class="n">{{.Totals.Audited}}</div><div class="l">audited</div></div>
<div class="card"><div class="n" id="total-denied">{{.Totals.NewlyDenied}}</div><div class="l">newly denied</div></div>
<div class="card"><div class="n" id="total-failing">{{.Totals.NewlyFailing}}</div><div class="l">newly failing</div></div>
<div class="card"><div class="n" id="total-mutated">{{.Totals.NewlyMutated}}</div><div class="l">newly mutated</div></div>
<div class="card"><div class="n" id="total-warned">{{.Totals.NewlyWarned}}</div><div class="l">newly warned</div></div>
<div class="card"><div class="n">{{.Totals.Unreviewed}}</div><div class="l">not reviewed</div></div>
</div>

{{define "chart"}}
<h2>{{.Title}}</h2>
<svg id="{{.ID}}" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}}">
{{- range .Legend}}
<rect class="legend {{.Effect}}" x="{{f .X}}" y="6" width="12" height="12"></rect><text x="{{f .X}}" dx="16" y="16">{{.Effect}}</text>
{{- end}}
{{- if not .Bars}}
<text class="empty" x="10" y="46">{{.Empty}}</text>
{{- end}}
{{- range .Bars}}
<g class="bar" data-label="{{.Title}}" data-total="{{.Total}}">
<title>{{.Title}}</title>
<text x="{{$.LabelWidth}}" y="{{add .Y 15}}" text-anchor="end">{{.Label}}</text>
{{- $y := .Y}}
{{- range .Segments}}
<rect class="segment {{.Effect}}" data-count="{{.Count}}" x="{{f .X}}" y="{{$y}}" width="{{f .W}}" height="22"><title>{{.Count}} {{.Effect}}</title></rect>
{{- end}}
<text class="total" x="{{f .TotalX}}" y="{{add .Y 15}}">{{.Total}}</text>
</g>
{{- end}}
</svg>
{{end}}
{{template "chart" .StepsChart}}
{{template "chart" .NSChart}}

<h2>Webhooks and policies</h2>
<table id="steps">
<tr><th>Step</th><th>Change</th><th>Matched</th><th>Denied</th><th>Failed</th><th>Mutated</th><th>Warned</th></tr>
{{- range .Steps}}
<tr><td>{{.String}}</td><td>{{.Change}}</td><td class="n">{{.Matched}}</td><td class="n">{{.Denied}}</td><td class="n">{{.Failed}}</td><td class="n">{{.Mutated}}</td><td class="n">{{.Warned}}</td></tr>
{{- end}}
</table>

<h2>Namespaces</h2>
<table id="namespaces">
<tr><th>Namespace</th><th>Audited</th><th>Denied</th><th>Failing</th><th>Mutated</th><th>Warned</th></tr>
{{- range .Namespaces}}
<tr><td>{{namespace .Namespace}}</td><td class="n">{{.Audited}}</td><td class="n">{{.Denied}}</td><td class="n">{{.Failing}}</td><td class="n">{{.Mutated}}</td><td class="n">{{.Warned}}</td></tr>
{{- end}}
</table>

<h2>Writes with new effects, the worst first</h2>
<div id="objects">
{{- range .Objects}}
<details class="object" data-effect="{{.Effect}}">
<summary><span class="tag {{.Effect}}">{{.Effect}}</span> {{.Operation}} {{.Kind}} {{if .Namespace}}{{.Namespace}}/{{end}}{{.Name}} <span class="meta">({{.Source}})</span></summary>
<pre>{{range .Lines}}{{.}}
{{end}}</pre>
</details>
{{- else}}
<p>None.</p>
{{- end}}
{{- if .OmittedObjects}}
<p>… and {{.OmittedObjects}} more (--limit).</p>
{{- end}}
</div>
{{- if .Unreviewed}}
<h2>Not reviewed</h2>
<ul id="unreviewed">
{{- range .Unreviewed}}
<li>{{.Count}}× {{.Reason}} (first: {{.First}})</li>
{{- end}}
</ul>
{{- end}}
{{- if .Notes}}
<h2>Notes</h2>
<ul id="notes">
{{- range .Notes}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- end}}
</body>
</html>
`
