package chart

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
)

// Bars is a horizontal bar chart.
type Bars struct {
	Title string
	// Unit labels the value axis, e.g. "requests per second".
	Unit string
	// Categories are the groups, top to bottom.
	Categories []string
	// Series are the bars of each group; every series has one value per category.
	Series []Series
	// Format renders a value next to its bar; default: three significant digits. Axis ticks are
	// round numbers and printed as such.
	Format func(float64) string
}

// Series is one bar per category, in one colour.
type Series struct {
	Name   string
	Values []float64
}

// Layout, in SVG user units (pixels at 100 %).
const (
	width       = 760
	labelWidth  = 170 // category labels, left of the plot
	valueMargin = 90  // room for the longest value label right of the longest bar
	barHeight   = 18
	barGap      = 4  // between the bars of one group
	groupGap    = 14 // between groups
	titleHeight = 34
	legendRow   = 20
	axisHeight  = 40
)

// palette is colour-blind safe (Okabe–Ito) and readable on light and dark backgrounds.
func palette(i int) string {
	colours := []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"}
	return colours[i%len(colours)]
}

func (b Bars) validate() error {
	if len(b.Categories) == 0 || len(b.Series) == 0 {
		return fmt.Errorf("chart %q: no categories or no series", b.Title)
	}
	for _, s := range b.Series {
		if len(s.Values) != len(b.Categories) {
			return fmt.Errorf("chart %q: series %q has %d values for %d categories", b.Title, s.Name, len(s.Values), len(b.Categories))
		}
		for i, v := range s.Values {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("chart %q: series %q, %s: %v is not a non-negative number", b.Title, s.Name, b.Categories[i], v)
			}
		}
	}
	return nil
}

// SVG renders the chart.
func (b Bars) SVG() ([]byte, error) {
	if err := b.validate(); err != nil {
		return nil, err
	}
	format := b.Format
	if format == nil {
		format = func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }
	}
	maxValue := 0.0
	for _, s := range b.Series {
		for _, v := range s.Values {
			maxValue = max(maxValue, v)
		}
	}
	step, top := ticks(maxValue)

	legendHeight := 0
	if len(b.Series) > 1 {
		legendHeight = legendRow
	}
	groupHeight := len(b.Series)*barHeight + (len(b.Series)-1)*barGap
	plotTop := titleHeight + legendHeight
	plotHeight := len(b.Categories)*groupHeight + (len(b.Categories)-1)*groupGap + 2*barGap
	height := plotTop + plotHeight + axisHeight
	plotWidth := float64(width - labelWidth - valueMargin)
	x := func(v float64) float64 { return labelWidth + plotWidth*v/top }

	var w svgWriter
	w.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	w.printf(`<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	w.printf(`<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", 10, escape(b.Title))
	if len(b.Series) > 1 {
		lx := float64(labelWidth)
		for i, s := range b.Series {
			w.printf(`<rect x="%.1f" y="%d" width="12" height="12" fill="%s"/>`+"\n", lx, titleHeight, palette(i))
			w.printf(`<text x="%.1f" y="%d">%s</text>`+"\n", lx+16, titleHeight+10, escape(s.Name))
			lx += 16 + 7.5*float64(len([]rune(s.Name))) + 20
		}
	}
	// Grid and axis.
	axisY := plotTop + plotHeight
	decimals := max(0, -int(math.Floor(math.Log10(step))))
	for i := 0; float64(i)*step <= top*(1+1e-9); i++ {
		v := float64(i) * step
		gx := x(v)
		w.printf(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#dddddd"/>`+"\n", gx, plotTop, gx, axisY)
		w.printf(`<text x="%.1f" y="%d" text-anchor="middle" fill="#555555">%s</text>`+"\n", gx, axisY+15, strconv.FormatFloat(v, 'f', decimals, 64))
	}
	w.printf(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333333"/>`+"\n", labelWidth, plotTop, labelWidth, axisY)
	w.printf(`<text x="%.1f" y="%d" text-anchor="middle" fill="#333333">%s</text>`+"\n", labelWidth+plotWidth/2, axisY+33, escape(b.Unit))
	// Bars.
	for ci, category := range b.Categories {
		groupY := plotTop + barGap + ci*(groupHeight+groupGap)
		w.printf(`<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n",
			labelWidth-8, float64(groupY)+float64(groupHeight)/2, escape(category))
		for si, s := range b.Series {
			y := groupY + si*(barHeight+barGap)
			v := s.Values[ci]
			w.printf(`<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s, %s: %s</title></rect>`+"\n",
				labelWidth, y, x(v)-labelWidth, barHeight, palette(si), escape(category), escape(s.Name), escape(format(v)))
			w.printf(`<text x="%.1f" y="%.1f" dominant-baseline="middle">%s</text>`+"\n", x(v)+4, float64(y)+barHeight/2.0, escape(format(v)))
		}
	}
	w.printf("</svg>\n")
	return w.buf.Bytes(), nil
}

// ticks picks a step of 1, 2 or 5 times a power of ten giving at most six intervals, and the
// axis end: the first multiple of the step at or above maxValue.
func ticks(maxValue float64) (step, top float64) {
	if maxValue <= 0 {
		return 1, 1
	}
	raw := maxValue / 6
	magnitude := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		step = m * magnitude
		if step >= raw {
			break
		}
	}
	top = math.Ceil(maxValue/step-1e-9) * step
	return step, top
}

type svgWriter struct{ buf bytes.Buffer }

func (w *svgWriter) printf(format string, args ...any) { fmt.Fprintf(&w.buf, format, args...) }

func escape(s string) string {
	var buf bytes.Buffer
	_ = xml.EscapeText(&buf, []byte(s)) // writing to a bytes.Buffer cannot fail
	return buf.String()
}
