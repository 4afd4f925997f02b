package audit

// The HTML report's charts: horizontal stacked bars, laid out for inline SVG.

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
